/**
 * A plain node:http service with no router and no configuration: the route svc infers from the
 * paths (`GET /api/items/{param:int}`) reads the same in every tool that names it, as an agent
 * passes it back, and each says the route was inferred rather than named by a framework.
 */
import { join } from 'node:path';
import { type Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FixtureApp, ROOT, startFixture } from '../support/fixture-app.js';
import { newClient } from '../support/mcp-harness.js';

const INFERRED = 'GET /api/items/{param:int}';
const SAID = 'route inferred from request paths, not named by a framework';

let app: FixtureApp | undefined;
let client: Client | undefined;

beforeAll(async () => {
  app = await startFixture({ script: 'app.mjs', cwd: join(ROOT, 'fixtures', 'http-inferred') });
  for (let i = 0; i < 12; i++) await (await app.get(`/api/items/${i}`)).arrayBuffer();
  const url = /MCP tool server listening at (\S+)/.exec(app.stderr())?.[1];
  expect(url, app.stderr()).toBeDefined();
  client = newClient('2026-07-28');
  await client.connect(new StreamableHTTPClientTransport(new URL(url!)));
});

afterAll(async () => {
  await client?.close();
  await app?.stop();
});

async function call(name: string, args: Record<string, string> = {}): Promise<{ text: string; structured: unknown }> {
  const result = await client!.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
  expect(result.isError ?? false, text).toBe(false);
  return { text, structured: result.structuredContent };
}

it('get_service_health lists the inferred name once, unaltered, and says how it was named', async () => {
  const { text } = await call('get_service_health');
  expect(text).toContain(`OPERATIONS (1 operation, last 5 minutes; names with {param:<kind>}: ${SAID})`);
  expect(text).toMatch(/^ {2}GET \/api\/items\/\{param:int\} +12 req +err 50\.00%/m);
  expect(text).not.toMatch(/\{param\{|\{\{/);
  const { structured } = await call('get_service_health', { format: 'json' });
  expect((structured as { operations: unknown[] }).operations).toEqual([expect.objectContaining({ name: INFERRED, routeInferred: true, requestCount: 12 })]);
});

it.each([
  ['get_trend_analysis', `TREND ANALYSIS: ${INFERRED} (${SAID})`],
  ['get_error_analysis', `ERROR ANALYSIS: ${INFERRED} (${SAID})`],
  ['get_cross_stack_context', `CROSS-STACK CONTEXT: ${INFERRED} (${SAID})`],
  ['get_incident_context', `Operation:      ${INFERRED} (${SAID})`],
  ['get_playbook', `for ${INFERRED} (${SAID})`],
])('%s takes the name as health shows it and shows it the same way', async (tool, shown) => {
  const { text } = await call(tool, { operation_name: INFERRED });
  expect(text).toContain(shown);
  expect(text).not.toMatch(/\{param\{|\{\{/);
});
