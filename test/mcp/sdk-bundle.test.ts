/**
 * The MCP SDK bundle that `npm run build` makes (scripts/build-mcp-sdk.mjs, dist/mcp/mcp-sdk-bundle.js):
 * built from the installed SDK and zod, and what it is for, a smaller heap than the SDK's own
 * modules. That it serves is the conformance suite's part (test/mcp/conformance.test.ts runs dist/).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { ROOT } from '../support/fixture-app.js';

const BUNDLE = join(ROOT, 'dist/mcp/mcp-sdk-bundle.js');

const installedVersion = (name: string) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/** Heap bytes (after garbage collection) that importing `specifier` adds to a fresh Node process. */
function heapOfImport(specifier: string): number {
  const script = `gc(); const before = process.memoryUsage().heapUsed; await import(${JSON.stringify(specifier)}); gc(); console.log(process.memoryUsage().heapUsed - before);`;
  return Number(execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }));
}

it('names, on its first line, the installed versions it was built from', () => {
  const firstLine = readFileSync(BUNDLE, 'utf8').split('\n', 1)[0]!;
  for (const name of ['@modelcontextprotocol/server', '@modelcontextprotocol/core', 'zod']) expect(firstLine).toContain(`${name} ${installedVersion(name)}`);
});

it('exports what the SDK exports under the same names', async () => {
  const bundle = (await import(pathToFileURL(BUNDLE).href)) as Record<string, unknown>;
  const sdk = (await import('@modelcontextprotocol/server')) as Record<string, unknown>;
  const names = Object.keys(bundle).sort();
  expect(names).toEqual(['ProtocolError', 'Server', 'WebStandardStreamableHTTPServerTransport', 'createMcpHandler', 'isInitializeRequest', 'isLegacyRequest', 'specTypeSchemas']);
  for (const name of names) expect(typeof bundle[name], name).toBe(typeof sdk[name]);
  expect(Object.keys(bundle.specTypeSchemas as object).sort()).toEqual(Object.keys(sdk.specTypeSchemas as object).sort());
});

it('costs less than half the heap of the SDK modules it replaces', () => {
  const bundle = heapOfImport(pathToFileURL(BUNDLE).href);
  const sdk = heapOfImport('@modelcontextprotocol/server');
  expect(bundle).toBeGreaterThan(0);
  expect(bundle / sdk).toBeLessThan(0.5);
}, 30_000);
