/**
 * 2,400 seeded calls over real MCP to every tool of a real service under the preload, with
 * random, oversized, unicode, control-character, wrongly typed and prototype-named arguments and
 * `_meta`, and messages nested thousands of levels deep: no call may crash the service or answer
 * -32603 (an internal error), protocol errors are one line, and the service keeps serving its own
 * traffic and its agents.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect, it } from 'vitest';
import { BUILT_IN_TOOLS } from '../../src/mcp/built-in-tools.js';
import { type FixtureApp, freePort, ROOT, startFixture } from '../support/fixture-app.js';
import { seededRandom } from '../support/random.js';

let app: FixtureApp | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close().catch(() => undefined);
  await app?.stop();
});

const CALLS = 2400;
const PROTOTYPE_NAMES = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__'];
const TOOLS = [...BUILT_IN_TOOLS.map((t) => t.name), 'get_cache_flushes', 'flush_inventory_cache', 'no_such_tool'];

function fuzzer(random: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const int = (max: number) => Math.floor(random() * max);
  const text = (): string => {
    switch (int(9)) {
      case 0:
        return '';
      case 1:
        return 'x'.repeat(int(20_000));
      case 2:
        return '€'.repeat(1 + int(5000));
      case 3:
        return String.fromCharCode(...Array.from({ length: 1 + int(40) }, () => int(32)));
      case 4:
        return '\ud800 lone surrogate \udfff 🔥 \u2028 \u202e reversed';
      case 5:
        return pick([
          'GET /orders/{id}',
          'enable_fallback:GET /orders/{id}',
          'reset_baseline:GET /orders/{id}',
          'approve:APR-00000-0001',
          'open_circuit_breaker:inventory-breaker',
          'json',
          'text',
          '5',
          '-1',
          '99999999999',
          'OBSERVATION',
          'cascade_failure',
          'INC-20260101-aaaaa-0001',
          'SES-aaaaa-0001',
        ]);
      case 6:
        return pick(PROTOTYPE_NAMES);
      case 7:
        return `${pick(['GET', 'POST', 'approve:', 'escalate:'])} ${'a/'.repeat(int(400))}`;
      default:
        return Array.from({ length: int(30) }, () => String.fromCodePoint(int(0x2ffff))).join('');
    }
  };
  const value = (): unknown => (random() < 0.85 ? text() : pick([42, null, true, ['a'], { nested: 'x' }, 1e308, -0]));
  const args = (tool: string): Record<string, unknown> => {
    const known = BUILT_IN_TOOLS.find((t) => t.name === tool);
    const names = [...Object.keys(known?.parameters ?? {}), ...PROTOTYPE_NAMES, 'priority', text().slice(0, 50)];
    const out: Record<string, unknown> = {};
    for (let i = int(5); i > 0; i--) Object.defineProperty(out, pick(names), { value: value(), enumerable: true, configurable: true, writable: true });
    return out;
  };
  const meta = (): Record<string, unknown> | undefined => (random() < 0.3 ? { agentName: value(), agentRole: pick(['observer', 'admin', 'operator', 'x'.repeat(70), undefined, 7]) } : undefined);
  return { tool: () => pick(TOOLS), args, meta, random };
}

it('survives 2,400 hostile tool calls: no crash, no -32603, the service keeps serving', async () => {
  const inventoryPort = await freePort();
  app = await startFixture({
    script: 'app.mjs',
    cwd: join(ROOT, 'fixtures', 'orders-service'),
    env: { OTEL_SERVICE_NAME: 'orders-service', INVENTORY_PORT: String(inventoryPort), SVC_MCP_RATE_LIMIT_PER_MINUTE: '100000' },
    args: [`-Dsvc.dependencies[0].health-endpoint=http://127.0.0.1:${inventoryPort}/health`],
  });
  const url = await expect
    .poll(() => /MCP tool server listening at (\S+)/.exec(app!.stderr())?.[1])
    .toBeTruthy()
    .then(() => /MCP tool server listening at (\S+)/.exec(app!.stderr())![1]!);
  for (let i = 0; i < 30; i++) await app.get(`/orders/${i}`);
  client = new Client({ name: 'fuzzer', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer ops-demo-token' } } }));

  const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
  /** A message as a 2025 client outside the SDK would send it, on the client's session or on none. */
  const post = (body: string, onSession = true) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer ops-demo-token',
        'mcp-protocol-version': '2025-11-25',
        ...(onSession && { 'mcp-session-id': sessionId }),
      },
      body,
    });
  /** A tools/call the SDK client would not send: params, name or arguments of the wrong type. */
  const raw = async (params: unknown): Promise<{ code?: number; message: string }> => {
    const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }));
    const body = await response.text();
    const json = JSON.parse(
      body.startsWith('event:')
        ? body
            .split('\n')
            .find((l) => l.startsWith('data:'))!
            .slice(5)
        : body,
    ) as { error?: { code: number; message: string } };
    return json.error ?? { message: '' };
  };

  const fuzz = fuzzer(seededRandom(20261122));
  const outcomes = { results: 0, isError: 0, protocolErrors: 0 };
  for (let i = 0; i < CALLS; i++) {
    const name = fuzz.tool();
    if (fuzz.random() < 0.1) {
      const malformed = [{ name, arguments: JSON.stringify(fuzz.args(name)) }, { name: [name] }, { name, arguments: [1, 2] }, name, { name, _meta: 'me' }, null][i % 6];
      const error = await raw(malformed);
      expect(error.code, `${error.message}\nparams: ${JSON.stringify(malformed)}`).toBe(-32602);
      expect(error.message).not.toContain('\n');
      outcomes.protocolErrors++;
      continue;
    }
    const request = { name, arguments: fuzz.args(name), ...(fuzz.meta() && { _meta: fuzz.meta() }) };
    try {
      const result = (await client.callTool(request as Parameters<Client['callTool']>[0])) as CallToolResult;
      outcomes.results++;
      if (result.isError) outcomes.isError++;
      expect(Array.isArray(result.content), JSON.stringify(request).slice(0, 300)).toBe(true);
    } catch (error) {
      const { code, message } = error as { code?: number; message: string };
      expect(code, `${message.slice(0, 500)}\nrequest: ${JSON.stringify(request).slice(0, 300)}`).toBe(-32602);
      expect(message).not.toContain('\n');
      outcomes.protocolErrors++;
    }
    if (i % 400 === 399) expect((await app.get(`/orders/${i}`)).status).toBeLessThan(500);
  }
  // Nesting the SDK's recursive schema checks could not take (2,000 levels overflowed the stack and ended the process).
  for (const levels of [2_000, 100_000]) {
    const nested = `${'{"a":'.repeat(levels)}{}${'}'.repeat(levels)}`;
    const bodies = [
      {
        session: false,
        body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"experimental":${nested}},"clientInfo":{"name":"x","version":"1"}}}`,
      },
      { session: true, body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_service_health","_meta":{"deep":${nested}}}}` },
    ];
    for (const { session, body } of bodies) {
      const response = await post(body, session);
      expect(response.status, `${levels} levels`).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain('more than 64 levels deep');
      expect((await app.get('/orders/2')).status).toBe(200);
    }
  }
  console.log(`tool-argument fuzz: ${CALLS} calls: ${outcomes.results} results (${outcomes.isError} isError), ${outcomes.protocolErrors} -32602`);
  expect(app.child.exitCode).toBeNull();
  expect((await app.get('/orders/1')).status).toBe(200);
  const health = (await client.callTool({ name: 'get_service_health', arguments: {} })) as CallToolResult;
  expect(health.isError).toBeFalsy();
  expect(app.stderr()).not.toMatch(/failed inside the service|tool server request failed/);
}, 180_000);
