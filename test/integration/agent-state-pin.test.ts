/**
 * Agents filling everything they can fill (shared sessions with the longest entries and names,
 * the audit trail and change history with the longest reasons) in a real service under the
 * preload: what it retains (heap and external memory after garbage collection) stays under the
 * ceiling `svc check` states for its configuration, while agents push over three times as much.
 * The agents speak both protocols: two 2026-07-28 (stateless), one 2025-11-25 (a session).
 */
import { join } from 'node:path';
import { type CallToolResult, type Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { agentStateCeiling, ceilingLimitsFromConfig } from '../../src/mcp/agent-state-ceiling.js';
import { INPUT_LIMITS } from '../../src/mcp/input-limits.js';
import { formatBytes } from '../../src/shared/memory-size.js';
import { type FixtureApp, freePort, ROOT, startFixture } from '../support/fixture-app.js';
import { newClient, type Protocol } from '../support/mcp-harness.js';

let app: FixtureApp | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await app?.stop();
});

const LIMITS = {
  SVC_LIMITS_MAX_SESSION_BYTES: String(2 * 1024 * 1024),
  SVC_LIMITS_MAX_OPERATIONS: '50',
  SVC_LIMITS_MAX_INCIDENTS: '50',
  SVC_MCP_RATE_LIMIT_PER_MINUTE: '100000',
};

interface Memory {
  heapUsed: number;
  external: number;
  rss: number;
}

it('keeps what agents can make it hold under the stated ceiling', async () => {
  const cwd = join(ROOT, 'fixtures', 'orders-service');
  const inventoryPort = await freePort();
  app = await startFixture({
    script: 'app.mjs',
    cwd,
    env: { ...LIMITS, OTEL_SERVICE_NAME: 'orders-service', INVENTORY_PORT: String(inventoryPort), NODE_OPTIONS: '--expose-gc' },
    args: [`-Dsvc.dependencies[0].health-endpoint=http://127.0.0.1:${inventoryPort}/health`],
  });
  const { config } = loadConfig({ cwd, env: LIMITS, args: [] });
  const ceiling = agentStateCeiling(ceilingLimitsFromConfig(config)).totalBytes;
  const url = await expect
    .poll(() => /MCP tool server listening at (\S+)/.exec(app!.stderr())?.[1])
    .toBeTruthy()
    .then(() => /MCP tool server listening at (\S+)/.exec(app!.stderr())![1]!);
  for (let i = 0; i < 60; i++) await app.get(`/orders/${i}`);
  await app.get('/__fault', { method: 'POST', body: '{"inventory":"fail"}' });
  for (let i = 0; i < 40; i++) await app.get(`/orders/${i}`);

  const connect = async ([token, protocol]: readonly [string, Protocol]) => {
    const client = newClient(protocol, { name: 'filler' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return async (tool: string, args: Record<string, string>, meta?: Record<string, unknown>) => {
      const result = (await client.callTool({ name: tool, arguments: args, ...(meta && { _meta: meta }) })) as CallToolResult;
      return { ...result, text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') };
    };
  };
  const agents = await Promise.all(
    (
      [
        ['ops-demo-token', '2026-07-28'],
        ['triage-demo-token', '2025-11-25'],
        ['approver-demo-token', '2026-07-28'],
      ] as const
    ).map(connect),
  );
  const context = await agents[1]!('get_incident_context', { operation_name: 'GET /orders/{id}' });
  const incidentId = /INCIDENT (INC-\S+)/.exec(context.text)![1]!;
  // One call of each agent first: what the first call of a protocol loads once (the SDK's code and schemas) is not what agents made svc hold.
  for (const call of agents) await call('get_recent_agent_actions', {});
  const memory = async (): Promise<Memory> => (await (await app!.get('/__memory')).json()) as Memory;
  const before = await memory();

  // Two-byte characters, so every string takes the most memory it can.
  const longest = (n: number, seed: number) => `${seed}:`.padEnd(n, '€');
  let pushedBytes = 0;
  for (let round = 0; round < 22; round++) {
    await Promise.all(
      agents.map(async (call, a) => {
        const created = await call('create_session', { incident_id: incidentId }, { agentName: longest(INPUT_LIMITS.agentName, a) });
        const sessionId = (created.structuredContent as { sessionId: string }).sessionId;
        for (let e = 0; e < 80; e++) {
          const added = await call('add_session_entry', { session_id: sessionId, type: 'OBSERVATION', content: longest(INPUT_LIMITS.content, e) }, { agentName: longest(INPUT_LIMITS.agentName, e) });
          expect(added.isError, added.text).toBeFalsy();
          pushedBytes += 2 * (INPUT_LIMITS.content + INPUT_LIMITS.agentName);
        }
        if (a === 0) {
          for (let e = 0; e < 60; e++)
            await call('execute_remediation', { action_name: 'escalate:GET /orders/{id}', reason: longest(INPUT_LIMITS.reason, e) }, { agentName: longest(INPUT_LIMITS.agentName, e) });
          pushedBytes += 60 * 2 * (INPUT_LIMITS.reason + INPUT_LIMITS.agentName);
        }
      }),
    );
  }
  const after = await memory();
  const heapGrowth = after.heapUsed + after.external - (before.heapUsed + before.external);
  const rssGrowth = after.rss - before.rss;
  console.log(`agent state pin: pushed ${formatBytes(pushedBytes)}; heap+external grew ${formatBytes(heapGrowth)}, RSS ${formatBytes(rssGrowth)}; stated ceiling ${formatBytes(ceiling)}`);
  expect(pushedBytes).toBeGreaterThan(3 * ceiling);
  // What stays after garbage collection is what svc holds. RSS is printed, not judged: it keeps
  // V8's and the allocator's high-water mark of the flood's transient garbage (docs/mcp.md "Limits").
  expect(heapGrowth).toBeLessThan(ceiling);
  // The trail kept its newest entries.
  expect((await agents[0]!('get_recent_agent_actions', {})).text).toContain('escalate:GET /orders/{id}');
}, 120_000);
