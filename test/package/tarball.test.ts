/**
 * What `npm publish` would upload (`npm pack --dry-run`): only the expected files, every entry
 * point and every relative link of the packed documents inside it, the metadata npm shows, and a
 * size budget that docs/packaging.md states and justifies.
 */
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/fixture-app.js';
import { type Packed, packList } from '../support/packed-package.js';

/** The budget docs/packaging.md states and justifies. */
const BUDGET = { packedKb: 760, unpackedKb: 2600, files: 500 };

/** Packed files must be one of these: the preload, compiled code and types, the example, the docs. */
const EXPECTED_FILE = /^(README\.md|package\.json|LICENSE|register\.mjs|svc\.yml\.example|docs\/[\w-]+\.md|dist\/[\w/.-]+\.(js|d\.ts))$/;

let packed: Packed;
let paths: Set<string>;
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;

beforeAll(() => {
  packed = packList();
  paths = new Set(packed.files.map((f) => f.path));
}, 60_000);

/** Relative link targets in a Markdown text (inline links; external and same-page ones skipped). */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(<?([^)\s>]+)>?\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z][a-z+.-]*:/i.test(target) && !target.startsWith('#'));
}

describe('contents', () => {
  it('packs only the preload, dist/ JavaScript and declarations, the example config, the docs and the README', () => {
    expect([...paths].filter((path) => !EXPECTED_FILE.test(path))).toEqual([]);
    for (const path of ['README.md', 'package.json', 'register.mjs', 'svc.yml.example', 'dist/api.js', 'dist/api.d.ts', 'dist/wiring/start.js']) expect(paths).toContain(path);
  });

  it('packs every file package.json points to: exports, typesVersions, bin', () => {
    const exportsField = manifest.exports as Record<string, string | Record<string, string>>;
    const targets = [
      ...Object.values(exportsField).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target))),
      ...Object.values(manifest.typesVersions as Record<string, Record<string, string[]>>).flatMap((map) => Object.values(map).flat()),
      ...Object.values(manifest.bin as Record<string, string>),
    ];
    expect(targets.length).toBeGreaterThanOrEqual(6);
    expect(targets.map((target) => posix.normalize(target)).filter((path) => !paths.has(path))).toEqual([]);
  });

  it('every relative link in a packed document points to a packed file, so the links work on npm', () => {
    const documents = [...paths].filter((path) => path.endsWith('.md'));
    expect(documents).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/telemetry.md', 'docs/analysis.md', 'docs/mcp.md', 'docs/packaging.md']));
    const dead: string[] = [];
    let links = 0;
    for (const document of documents) {
      for (const link of relativeLinks(readFileSync(join(ROOT, document), 'utf8'))) {
        links++;
        const target = posix.normalize(posix.join(posix.dirname(document), link.split('#')[0]!));
        if (!paths.has(target)) dead.push(`${document}: ${link}`);
      }
    }
    expect(links).toBeGreaterThanOrEqual(6);
    expect(dead).toEqual([]);
  });
});

describe('metadata npm shows', () => {
  it('has repository, homepage, bugs and keywords', () => {
    expect(manifest.repository).toEqual({ type: 'git', url: 'git+https://github.com/svc-register/register.git' });
    expect(manifest.homepage).toBe('https://github.com/svc-register/register#readme');
    expect(manifest.bugs).toEqual({ url: 'https://github.com/svc-register/register/issues' });
    expect((manifest.keywords as string[]).length).toBeGreaterThanOrEqual(5);
    expect(manifest.keywords).toEqual(expect.arrayContaining(['opentelemetry', 'mcp']));
  });
});

describe('size', () => {
  it(`stays within the budget: ${BUDGET.packedKb} kB packed, ${BUDGET.unpackedKb} kB unpacked, ${BUDGET.files} files`, () => {
    expect(packed.size / 1000).toBeLessThanOrEqual(BUDGET.packedKb);
    expect(packed.unpackedSize / 1000).toBeLessThanOrEqual(BUDGET.unpackedKb);
    expect(packed.entryCount).toBeLessThanOrEqual(BUDGET.files);
  });

  it('docs/packaging.md states the budget, and neither it nor the README a size that would go stale', () => {
    const packaging = readFileSync(join(ROOT, 'docs/packaging.md'), 'utf8');
    const budget = `${BUDGET.packedKb} kB packed, ${BUDGET.unpackedKb} kB unpacked, ${BUDGET.files} files`;
    expect(packaging).toContain(`Budget: **${budget}**`);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const sizes = (text: string) => [...text.matchAll(/\d+ kB (?:packed|unpacked)/g)].map((m) => m[0]);
    expect(sizes(packaging), 'sizes in docs/packaging.md: only the budget (npm pack --dry-run shows the measured ones)').toEqual([`${BUDGET.packedKb} kB packed`, `${BUDGET.unpackedKb} kB unpacked`]);
    expect(sizes(readme), 'sizes in README.md: none (docs/packaging.md states the budget)').toEqual([]);
  });
});
