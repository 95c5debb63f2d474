/**
 * State survives a restart (docs/state.md): a real app under the preload with the default
 * embedded store (a real SQLite file), a real fault, agents acting through the MCP tools; the
 * app is stopped and started again on the same store, and the tools show what was there, the SLO
 * budget and the operation's minute history among it.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, expect, it } from 'vitest';
import { type AgentCall, fixtureAgent } from '../support/fixture-agent.js';
import { type FixtureApp, freePort, ROOT, startFixture } from '../support/fixture-app.js';
import { tempDir } from '../support/temp-dir.js';

let app: FixtureApp | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await app?.stop();
});

interface SloJson {
  readonly slos: readonly { readonly name: string; readonly budgetRemaining: number; readonly totalRequests: number; readonly failedRequests: number }[];
}

const agent = (url: string, token: string, name: string): Promise<AgentCall> => fixtureAgent(url, token, name, clients);

async function toolUrl(fixture: FixtureApp): Promise<string> {
  await expect.poll(() => /MCP tool server listening at (\S+)/.exec(fixture.stderr())?.[1], { timeout: 10_000 }).toBeTruthy();
  return /MCP tool server listening at (\S+)/.exec(fixture.stderr())![1]!;
}

it('keeps incidents, sessions, the audit trail, changes, fallback flags, breaker overrides, pending verifications, the SLO budget and the minute history across a restart', async () => {
  const store = join(tempDir(), 'state.db');
  const inventoryPort = await freePort();
  const start = () =>
    startFixture({
      script: 'app.mjs',
      cwd: join(ROOT, 'fixtures', 'orders-service'),
      env: { OTEL_SERVICE_NAME: 'orders-service', SVC_STORE_URL: `sqlite:${store}`, SVC_MCP_VERIFICATION_DELAY: '10m', INVENTORY_PORT: String(inventoryPort), SVC_PATTERNS_WINDOW: '6s' },
      args: [`-Dsvc.dependencies[0].health-endpoint=http://127.0.0.1:${inventoryPort}/health`],
    });
  app = await start();
  let url = await toolUrl(app);
  const fire = async (count: number) => {
    const bodies: string[] = [];
    for (let i = 0; i < count; i++) bodies.push(`${(await app!.get(`/orders/${i}`)).status} ${await (await app!.get(`/orders/${i}`)).text()}`);
    return bodies;
  };
  await fire(30);
  await app.get('/__fault', { method: 'POST', body: '{"inventory":"fail"}' });
  for (const until = Date.now() + 7500; Date.now() < until; ) {
    await fire(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const operation = 'GET /orders/{id}';
  let ops = await agent(url, 'ops-demo-token', 'ops-agent');
  let alice = await agent(url, 'approver-demo-token', 'alice');
  const context = await ops('get_incident_context', { operation_name: operation });
  const incidentId = /INCIDENT (INC-\d{8}-[0-9a-z]{5}-\d{4})/.exec(context.text)?.[1];
  expect(incidentId, context.text).toBeDefined();
  const sessionId = ((await ops('create_session', { incident_id: incidentId! })).structuredContent as { sessionId: string }).sessionId;
  await ops('add_session_entry', { session_id: sessionId, type: 'DIAGNOSIS', content: 'inventory-service fails; fallback before restart' });
  expect((await ops('execute_remediation', { action_name: `enable_fallback:${operation}`, reason: 'serve cached stock' })).isError).toBeFalsy();
  expect((await alice('execute_remediation', { action_name: 'open_circuit_breaker:inventory-breaker', reason: 'stop calling a failing inventory' })).isError).toBeFalsy();
  expect((await fire(1))[0]).toContain('cached');
  const sloOf = async () => ((await ops('get_slo_report', { format: 'json' })).structuredContent as unknown as SloJson).slos.find((s) => s.name === 'orders-availability')!;
  const requestsOf = async () => Number(/(\d+) requests over/.exec((await ops('get_trend_analysis', { operation_name: operation })).text)?.[1]);
  const slo = await sloOf();
  const requests = await requestsOf();
  // Enough events for the budget to be priced, and some of them failed.
  expect(slo.totalRequests).toBeGreaterThanOrEqual(100);
  expect(slo.budgetRemaining).toBeLessThan(1);
  expect(requests).toBe(slo.totalRequests);

  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await app.stop();

  app = await start();
  url = await toolUrl(app);
  ops = await agent(url, 'ops-demo-token', 'ops-agent');
  alice = await agent(url, 'approver-demo-token', 'alice');
  // The fallback flag is set again before the app serves its first request after the store answered.
  expect((await fire(1))[0]).toContain('cached');

  const after = await ops('get_incident_context', { operation_name: operation });
  expect(after.text).toContain(incidentId!);
  // The change history: this start's deployment, the previous one's and the remediations before the restart.
  expect(after.text).toContain(`enable_fallback:${operation} by ops-bot`);
  const session = await ops('get_session', { session_id: sessionId });
  expect(session.text).toContain('fallback before restart');
  const actions = await ops('get_recent_agent_actions');
  expect(actions.text).toContain(`enable_fallback:${operation}`);
  expect(actions.text).toContain('open_circuit_breaker:inventory-breaker');
  const listed = await ops('list_remediation_actions', { operation_name: operation });
  expect(listed.text).toContain(`disable_fallback:${operation}`);
  expect(listed.text).toContain('close_circuit_breaker:inventory-breaker');
  const verification = await ops('verify_remediation_effect', { action_name: `enable_fallback:${operation}` });
  // Pending, not forgotten: the before-snapshot survived and the 10 minutes run from the execution.
  expect(verification.text).toContain('Too early to verify');
  expect(verification.text).not.toContain('no execution');
  const health = await ops('get_service_health');
  expect(health.text).not.toContain('STATE STORE');
  // The budget goes on where it was (the two requests since were served from the fallback), and the history with it.
  expect(await sloOf()).toMatchObject({ budgetRemaining: slo.budgetRemaining, totalRequests: slo.totalRequests + 2, failedRequests: slo.failedRequests });
  expect(await requestsOf()).toBe(requests + 2);
}, 60_000);

it('opens incidents with the tool server off (svc.mcp.enabled=false): a later run with the tool server shows the incident', async () => {
  const store = join(tempDir(), 'state.db');
  const inventoryPort = await freePort();
  const start = (toolServer: boolean) =>
    startFixture({
      script: 'app.mjs',
      cwd: join(ROOT, 'fixtures', 'orders-service'),
      env: { OTEL_SERVICE_NAME: 'orders-service', SVC_STORE_URL: `sqlite:${store}`, SVC_MCP_ENABLED: String(toolServer), INVENTORY_PORT: String(inventoryPort), SVC_PATTERNS_WINDOW: '6s' },
      args: [`-Dsvc.dependencies[0].health-endpoint=http://127.0.0.1:${inventoryPort}/health`],
    });
  app = await start(false);
  for (let i = 0; i < 30; i++) await app.get(`/orders/${i}`);
  await app.get('/__fault', { method: 'POST', body: '{"inventory":"fail"}' });
  for (const until = Date.now() + 7500; Date.now() < until; ) {
    for (let i = 0; i < 4; i++) await app.get(`/orders/${i}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(app.stderr()).not.toContain('MCP tool server listening');
  await app.stop();

  app = await start(true);
  const ops = await agent(await toolUrl(app), 'ops-demo-token', 'ops-agent');
  const history = await ops('get_incident_context', { operation_name: 'GET /orders/{id}' });
  expect(history.text).toMatch(/INCIDENT INC-\d{8}-[0-9a-z]{5}-\d{4}/);
}, 60_000);
