/**
 * The layering of src/, checked on the source: incidents return data and import nothing
 * from the tool server, and the tool server and telemetry reach process-global state only
 * through callbacks from the composition root (src/start.ts), never by looking up the runtime.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../../src/', import.meta.url).pathname;

function sources(folder: string): { file: string; text: string }[] {
  return readdirSync(join(SRC, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({ file: relative(SRC, join(SRC, folder, name)), text: readFileSync(join(SRC, folder, name), 'utf8') }));
}

describe('layers', () => {
  it('src/incidents imports nothing from src/mcp', () => {
    const offenders = sources('incidents').filter(({ text }) => /from '\.\.\/mcp\//.test(text));
    expect(offenders.map((o) => o.file)).toEqual([]);
  });

  it('src/analysis imports nothing from a higher folder (config, metadata, telemetry, store, incidents, mcp)', () => {
    const offenders = sources('analysis').filter(({ text }) => /from '\.\.\/(config|metadata|telemetry|store|incidents|mcp)\//.test(text));
    expect(offenders.map((o) => o.file)).toEqual([]);
  });

  it('the tools and their views (src/mcp/tools, src/mcp/views) import nothing from the status page that lays them out', () => {
    const offenders = [...sources('mcp/tools'), ...sources('mcp/views')].filter(({ text }) => /from '\.\.\/status-page\//.test(text));
    expect(offenders.map((o) => o.file)).toEqual([]);
  });

  it('the status page (src/mcp/status-page) reads through the views and lays out, never importing the tool server', () => {
    const offenders = sources('mcp/status-page').filter(({ text }) => /from '\.\.\/tool-server\.js'/.test(text));
    expect(offenders.map((o) => o.file)).toEqual([]);
  });

  it('src/mcp and src/telemetry never look up the runtime', () => {
    const offenders = [...sources('mcp'), ...sources('telemetry')].filter(({ text }) => /runtime\.js'|runtime\(\)/.test(text));
    expect(offenders.map((o) => o.file)).toEqual([]);
  });
});
