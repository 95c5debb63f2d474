/**
 * The MCP SDK stays unloaded until the first agent request (src/mcp/mcp-sdk.ts), and then comes
 * from svc's bundle of it alone (scripts/build-mcp-sdk.mjs), not wrapped by the ESM hook; an SDK v1
 * client is served.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, expect, it } from 'vitest';
import { type FixtureApp, ROOT, startFixture } from '../support/fixture-app.js';

let app: FixtureApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

it('loads the MCP SDK with the first agent session, not at start, from the bundle alone, unwrapped', async () => {
  const reporter = pathToFileURL(join(ROOT, 'test/support/report-mcp-sdk-load.mjs')).href;
  app = await startFixture({ script: 'fixtures/http-plain/app.mjs', env: { NODE_OPTIONS: `--import ${reporter}` } });
  const listening = /MCP tool server listening at (\S+)/;
  await expect.poll(() => listening.test(app!.stderr())).toBe(true);
  expect((await app.get('/orders/1')).status).toBeLessThan(500);
  expect(app.stderr()).not.toContain('MCP SDK resolved');

  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(listening.exec(app.stderr())![1]!)));
  expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  await client.close();
  // Only svc's import of its bundle: no SDK package, and no second import of the bundle by its URL,
  // which is how the OpenTelemetry ESM hook (import-in-the-middle) wraps a module (register.mjs excludes it).
  expect([...app.stderr().matchAll(/MCP SDK resolved: (\S+)/g)].map((m) => m[1])).toEqual(['./mcp-sdk-bundle.js']);
});
