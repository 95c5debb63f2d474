/**
 * The layering of src/ (docs/architecture.md), checked on the source: each folder imports only
 * from folders below it, the shared leaves (src/shared) from none, and only the composition root
 * (src/wiring, and the public API src/api.ts on top of it) looks up the process's runtime;
 * everything else gets callbacks and options from it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src/', import.meta.url).pathname;

/** Bottom to top: a folder may import from the folders before it. `wiring` is the composition root. */
const LAYERS = ['shared', 'analysis', 'store', 'config', 'metadata', 'telemetry', 'agentic', 'incidents', 'fleet', 'frontend', 'mcp', 'cli', 'wiring'];
/** The public API, on top of everything. */
const API = 'api.ts';
/** A bundle of its own, for browsers: it shares the frontend's attribute names only. */
const BROWSER = 'browser';

function sources(): { file: string; imports: string[] }[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => {
      const text = readFileSync(join(SRC, name), 'utf8');
      const imports = [...text.matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((m) => relative(SRC, normalize(join(dirname(join(SRC, name)), m[1] as string))).replace(/\.js$/, '.ts'));
      return { file: name, imports };
    });
}

/** A file's place: its layer's index (the API's above them all). */
function rank(file: string): number {
  const folder = file.includes('/') ? (file.split('/')[0] as string) : undefined;
  if (folder === undefined) {
    if (file !== API) throw new Error(`src/${file} is a loose file: put it in the folder of its layer (src/shared for a leaf)`);
    return LAYERS.length;
  }
  if (folder === BROWSER) return LAYERS.indexOf('frontend') + 0.5;
  const index = LAYERS.indexOf(folder);
  if (index < 0) throw new Error(`src/${folder}/ is in no layer of this test: place it in LAYERS`);
  return index;
}

describe('layers', () => {
  const files = sources();

  it('every folder of src/ imports only from itself and the folders below it', () => {
    const upward = files.flatMap(({ file, imports }) => imports.filter((target) => target.split('/')[0] !== file.split('/')[0] && rank(target) >= rank(file)).map((target) => `${file} -> ${target}`));
    expect(upward).toEqual([]);
  });

  it('the shared leaves (src/shared) import only each other', () => {
    const leaves = files.filter(({ file }) => file.startsWith('shared/'));
    expect(leaves.length).toBeGreaterThan(5);
    expect(leaves.flatMap(({ file, imports }) => imports.filter((t) => !t.startsWith('shared/')).map((t) => `${file} -> ${t}`))).toEqual([]);
  });

  it('the tools and their views (mcp/tools, mcp/views) import nothing of the status page that lays them out; the page nothing of the tool server', () => {
    const offenders = files.filter(
      ({ file, imports }) =>
        ((file.startsWith('mcp/tools/') || file.startsWith('mcp/views/')) && imports.some((t) => t.startsWith('mcp/status-page/'))) ||
        (file.startsWith('mcp/status-page/') && imports.includes('mcp/tool-server.ts')),
    );
    expect(offenders.map(({ file }) => file)).toEqual([]);
  });

  it("the tools, their views and the status page read the analysis through AnalysisReads, never the engine's components", () => {
    const offenders = files
      .filter(({ file, imports }) => ['mcp/tools/', 'mcp/views/', 'mcp/status-page/'].some((folder) => file.startsWith(folder)) && imports.includes('analysis/analysis-engine.ts'))
      .map(({ file }) => file);
    expect(offenders).toEqual([]);
  });

  it('only the composition root looks up the runtime', () => {
    const offenders = files.filter(({ file, imports }) => !file.startsWith('wiring/') && file !== API && imports.includes('wiring/runtime.ts')).map(({ file }) => file);
    expect(offenders).toEqual([]);
  });

  it('has no import circle between files', () => {
    const graph = new Map(files.map(({ file, imports }) => [file, imports]));
    const state = new Map<string, 'open' | 'done'>();
    const circles: string[] = [];
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(circles).toEqual([]);
  });
});
