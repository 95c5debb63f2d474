/**
 * The exceptions of real apps under the preload, read by an agent over MCP: Express records a
 * route handler's exception on the handler's span and NestJS on its handler's span, neither on the
 * server span; get_error_analysis names each by type and normalised message, with its count and
 * the app's frame that threw it. An error without an exception keeps its status code.
 */
import { join } from 'node:path';
import { type CallToolResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type FixtureApp, ROOT, startFixture } from '../support/fixture-app.js';
import { newClient } from '../support/mcp-harness.js';

let app: FixtureApp | undefined;

afterEach(async () => {
  await app?.stop();
  app = undefined;
});

async function toolServerUrl(started: FixtureApp): Promise<string> {
  const listening = () => /MCP tool server listening at (\S+)/.exec(started.stderr())?.[1];
  await expect.poll(listening).toBeTruthy();
  return listening()!;
}

/** get_error_analysis of `operation`, read over MCP until its categories hold `expected` (the server span ends just after the response). */
async function errorAnalysis(started: FixtureApp, operation: string, expected: RegExp): Promise<string> {
  const client = newClient('2026-07-28');
  await client.connect(new StreamableHTTPClientTransport(new URL(await toolServerUrl(started))));
  try {
    const read = async () => {
      const result = (await client.callTool({ name: 'get_error_analysis', arguments: { operation_name: operation } })) as CallToolResult;
      return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    };
    await expect.poll(read).toMatch(expected);
    return await read();
  } finally {
    await client.close();
  }
}

describe('get_error_analysis on real apps', () => {
  it("Express: a handler's TypeError with ids in its message, one category with the app's frame; a 503 keeps its status code", async () => {
    app = await startFixture({ script: 'app.mjs', cwd: join(ROOT, 'fixtures', 'errors') });
    for (const [id, sku] of [
      ['17', 'SKU-1'],
      ['42', 'SKU-2'],
      ['9001', 'SKU-3'],
    ]) {
      expect((await app.get(`/carts/${id}/lines/${sku}`, { method: 'DELETE' })).status).toBe(500);
    }
    expect((await app.get('/carts/17')).status).toBe(503);

    const text = await errorAnalysis(app, 'DELETE /carts/{id}/lines/{sku}', /errors since start\)\n {2}TypeError/);
    expect(text).toMatch(/ERROR CATEGORIES \(3 errors since start\)\n {2}TypeError: cart <num> is not loaded: cannot remove line <str> +3 +100\.0%\n {4}at removeLine \(cart-service\.mjs:3:\d+\)\n/);
    // The HTTP instrumentation puts the status code in error.type.
    expect(await errorAnalysis(app, 'GET /carts/{id}', /errors since start\)\n {2}503/)).toMatch(/ERROR CATEGORIES \(1 errors since start\)\n {2}503 +1 +100\.0%\n\n/);
  });

  it("NestJS: a controller's exception, recorded on Nest's handler span", async () => {
    app = await startFixture({ script: 'nest.cjs', args: ['express'], cwd: join(ROOT, 'fixtures', 'frameworks') });
    for (let i = 0; i < 2; i++) expect((await app.get('/fail')).status).toBe(500);

    const text = await errorAnalysis(app, 'GET /fail', /errors since start\)\n {2}Error/);
    expect(text).toMatch(/ERROR CATEGORIES \(2 errors since start\)\n {2}Error: failing route +2 +100\.0%\n {4}at FailController\.fail \(nest\.cjs:\d+:\d+\)\n/);
  });
});
