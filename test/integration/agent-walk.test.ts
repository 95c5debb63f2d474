/**
 * Two agents with different roles walk Observe, Diagnose, Act, Verify against a real service
 * under the preload, over real HTTP with the official MCP SDK client, after a real fault.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, expect, it } from 'vitest';
import { type AgentCall, fixtureAgent } from '../support/fixture-agent.js';
import { type FixtureApp, freePort, ROOT, startFixture } from '../support/fixture-app.js';

let app: FixtureApp | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await app?.stop();
});

const agent = (url: string, token: string, name: string): Promise<AgentCall> => fixtureAgent(url, token, name, clients);

it('finds the incident, remediates it and verifies the effect, with a shared session', async () => {
  const inventoryPort = await freePort();
  app = await startFixture({
    script: 'app.mjs',
    cwd: join(ROOT, 'fixtures', 'orders-service'),
    // The shortest detection window, so the fault is sustained in seconds, not the default 30 s.
    env: { OTEL_SERVICE_NAME: 'orders-service', SVC_MCP_VERIFICATION_DELAY: '0ms', INVENTORY_PORT: String(inventoryPort), SVC_PATTERNS_WINDOW: '6s' },
    args: [`-Dsvc.dependencies[0].health-endpoint=http://127.0.0.1:${inventoryPort}/health`],
  });
  const url = await expect
    .poll(() => /MCP tool server listening at (\S+)/.exec(app!.stderr())?.[1])
    .toBeTruthy()
    .then(() => /MCP tool server listening at (\S+)/.exec(app!.stderr())![1]!);
  const fire = async (count: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) statuses.push((await app!.get(`/orders/${i}`)).status);
    return statuses;
  };
  expect(new Set(await fire(60))).toEqual(new Set([200]));
  await app.get('/__fault', { method: 'POST', body: '{"inventory":"fail"}' });
  const failed: number[] = [];
  for (const until = Date.now() + 7500; Date.now() < until; ) {
    failed.push(...(await fire(2)));
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(failed.every((s) => s === 502)).toBe(true);

  const triage = await agent(url, 'triage-demo-token', 'triage-agent');
  const ops = await agent(url, 'ops-demo-token', 'ops-agent');
  const operation = 'GET /orders/{id}';

  const health = await triage('get_service_health');
  expect(health.text).toMatch(/^SERVICE HEALTH: orders-service \| STATUS: CRITICAL/);
  expect(health.text).toMatch(/GET \/orders\/\{id\}.*ELEVATED/);

  const context = await triage('get_incident_context', { operation_name: operation });
  const incidentId = /INCIDENT (INC-\d{8}-[0-9a-z]{5}-\d{4})/.exec(context.text)?.[1];
  expect(incidentId).toBeDefined();
  expect(context.text).toMatch(/SEVERITY: +(HIGH|CRITICAL)/);
  expect(context.text).toContain('error_rate_spike');
  expect(context.text).toContain('version 2.5.0 (was 2.4.3, rolling)');
  expect(context.text).toMatch(/User-facing: +YES/);
  expect(context.text).toMatch(/Dependencies: +inventory-service/);
  expect(context.text).toContain('web-frontend (synchronous, SLA 800ms)');
  expect(context.text).toContain('Escalation level: PAGE_ONCALL (#checkout-oncall)');
  expect(context.text).toMatch(/\[HIGH\] enable_fallback:GET \/orders\/\{id\}/);

  const session = await triage('create_session', { incident_id: incidentId! });
  const sessionId = (session.structuredContent as { sessionId: string }).sessionId;
  await triage('add_session_entry', { session_id: sessionId, type: 'DIAGNOSIS', content: 'inventory-service fails; the breaker is open; fallback recommended' });

  const playbook = await triage('get_playbook', { operation_name: operation });
  expect(playbook.text).toMatch(/^PLAYBOOK \w+ for GET \/orders\/\{id\}/);
  expect(playbook.text).toContain('Action: enable_fallback');
  expect((await triage('execute_remediation', { action_name: `enable_fallback:${operation}`, reason: 'diagnostician tries' })).text).toContain('insufficient permission');

  const actions = await ops('list_remediation_actions', { operation_name: operation });
  expect(actions.text).toContain(`enable_fallback:${operation}`);
  expect(actions.text).toMatch(/(open|close)_circuit_breaker:inventory-breaker/);
  expect(actions.text).toContain('flush_inventory_cache  [custom, NEEDS APPROVAL');
  const executed = await ops('execute_remediation', { action_name: `enable_fallback:${operation}`, reason: 'serve cached stock while inventory-service is down' });
  expect(executed.isError).toBeFalsy();
  await ops('add_session_entry', { session_id: sessionId, type: 'ACTION', content: 'enabled the fallback for GET /orders/{id}' });

  expect(new Set(await fire(30))).toEqual(new Set([200]));
  const verified = await ops('verify_remediation_effect', { action_name: `enable_fallback:${operation}` });
  expect(verified.text).toMatch(/Effective: +YES/);
  expect(verified.text).toMatch(/Requests since: +30/);

  const requested = await ops('execute_remediation', { action_name: 'flush_inventory_cache', reason: 'stale stock' });
  const approvalId = /Approval request (APR-\S+) is open/.exec(requested.text)?.[1];
  expect(approvalId, requested.text).toBeDefined();
  expect((await ops('execute_remediation', { action_name: 'flush_inventory_cache', reason: 'stale stock', approved_by: 'alice' })).text).toContain('approved_by names no open approval');
  const alice = await agent(url, 'approver-demo-token', 'alice');
  expect((await alice('execute_remediation', { action_name: `approve:${approvalId}`, reason: 'cache is stale, go' })).isError).toBeFalsy();
  expect((await ops('execute_remediation', { action_name: 'flush_inventory_cache', reason: 'stale stock', approved_by: approvalId! })).text).toContain('inventory cache flushed (1 flushes so far)');
  expect((await triage('get_cache_flushes')).text).toBe('1 flushes');

  const shared = await triage('get_session', { session_id: sessionId });
  expect(shared.text).toMatch(/Entries: +2/);
  expect(shared.text).toMatch(/DIAGNOSIS by triage-bot\/triage-agent \(diagnostician\)/);
  expect(shared.text).toMatch(/ACTION by ops-bot\/ops-agent \(operator\)/);
  const trail = await triage('get_recent_agent_actions');
  expect(trail.text).toMatch(/SUCCESS enable_fallback:GET \/orders\/\{id\} by ops-bot\/ops-agent \(operator\); reason: serve cached stock/);
});
