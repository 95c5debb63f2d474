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
import { youngFunctionLiterals } from '../../scripts/young-function-literals.mjs';
import { ROOT } from '../support/fixture-app.js';
import { expectPromotesLess, type Promoted, promotedAfterLoop } from '../support/promoted-bytes.js';

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

/**
 * Bytes the young generation's collections promoted to the old one while a fresh Node process
 * failed `count` parses of a request against the response schema (the SDK checks every message
 * that way first), with the MCP SDK module `specifier`; and the first failure's error.
 */
function failedParses(specifier: string, count: number): { promotedBytes: number; issues: number; replaced: boolean } {
  const script = `
    const { specTypeSchemas } = await import(${JSON.stringify(specifier)});
    const parse = (i) => specTypeSchemas.JSONRPCResultResponse.safeParse({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'x', arguments: { i } } });
    const first = parse(0);
    const issues = first.success ? 0 : first.error.issues.length;
    const replacement = new Error('replaced');
    first.error = replacement;
    console.log('LOOP');
    for (let i = 0; i < ${count}; i++) if (parse(i).success) throw new Error('a request parsed as a response');
    console.log('RESULT ' + JSON.stringify({ issues, replaced: first.error === replacement }));`;
  const { loop, promotedBytes } = promotedAfterLoop(script);
  return { promotedBytes, ...(JSON.parse(/RESULT (.*)/.exec(loop)![1]!) as { issues: number; replaced: boolean }) };
}

it("keeps a failed parse's objects in the young generation (zod's failed-parse result is a class in the bundle)", () => {
  const bundle = failedParses(pathToFileURL(BUNDLE).href, 100_000);
  const sdk = failedParses('@modelcontextprotocol/server', 100_000);
  // The same failure either way: its error built on demand, with the issues, and replaceable.
  expect(bundle.issues).toBeGreaterThan(0);
  expect(bundle.issues).toBe(sdk.issues);
  expect(bundle.replaced).toBe(true);
  expect(sdk.replaced).toBe(true);
  // zod's own result, an object literal with an accessor, promotes most of each failed parse.
  expect(sdk.promotedBytes, "zod's own failed-parse result no longer outlives young collections on this V8: the bundle's change to it (scripts/build-mcp-sdk.mjs) may go").toBeGreaterThan(
    20 * 1024 * 1024,
  );
  expect(bundle.promotedBytes).toBeLessThan(8 * 1024 * 1024);
  expect(bundle.promotedBytes).toBeLessThan(sdk.promotedBytes / 10);
}, 60_000);

/**
 * Bytes per call the young generation's collections promoted to the old one while a fresh Node
 * process answered `count` tools/call requests (2026-07-28: a server per request) through the
 * createMcpHandler of the MCP SDK module `specifier`, after 1000 it did not count.
 */
function promotedPerCall(specifier: string, count: number): Promoted {
  const script = `
    const { createMcpHandler, Server } = await import(${JSON.stringify(specifier)});
    const handler = createMcpHandler(() => {
      const server = new Server({ name: 'bench', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/call', () => ({ content: [{ type: 'text', text: 'ok' }] }));
      return server;
    }, { legacy: 'reject' });
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const parsedBody = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ok', arguments: {}, _meta: meta } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'ok' };
    const call = async () => {
      const response = await handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers }), { parsedBody });
      const text = await response.text();
      if (!text.includes('"ok"')) throw new Error('tools/call answered ' + response.status + ' ' + text);
    };
    for (let i = 0; i < 1000; i++) await call();
    console.log('LOOP');
    for (let i = 0; i < ${count}; i++) await call();`;
  const { promotedBytes, scavenges } = promotedAfterLoop(script);
  return { perRequest: promotedBytes / count, scavenges };
}

it("keeps a request's objects in the young generation (no function literal is assigned straight to a property)", () => {
  // V8 allocates such a literal in the old generation (scripts/young-function-literals.mjs): none is left in the bundle.
  expect(youngFunctionLiterals(readFileSync(BUNDLE, 'utf8')).count).toBe(0);
  const bundle = promotedPerCall(pathToFileURL(BUNDLE).href, 5000);
  const sdk = promotedPerCall('@modelcontextprotocol/server', 5000);
  // The SDK's own modules promote most of each request (8-9 KB measured); the bundle next to nothing (0.01 KB).
  expectPromotesLess(bundle, sdk, {
    theirsAbove: 2048,
    oursBelow: 1024,
    factor: 10,
    premise: "the SDK's own modules no longer promote a request's objects on this V8: the bundle's changes to them (scripts/build-mcp-sdk.mjs) may go",
  });
}, 60_000);
