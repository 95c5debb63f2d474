/**
 * Replicas on one Redis are one fleet (docs/state.md, Fleet): three replicas of the orders
 * fixture on a real redis-server, agents on different replicas through the MCP tools. One fault
 * on two replicas is one incident; a session created on one is read on another; a fallback
 * enabled on one is served by all within a second and audited once; a replica started later
 * finds all of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, redisServerAvailable, startRedisServer } from '../support/redis-server.js';
import { count, incidentIdIn, OPERATION, type Replica, startReplica } from './fleet-support.js';

const available = redisServerAvailable();
let redis: RedisServer;
let a: Replica;
let b: Replica;
let c: Replica;
const replicas: Replica[] = [];

beforeAll(async () => {
  if (!available) return;
  redis = await startRedisServer();
  [a, b, c] = await Promise.all(['replica-a', 'replica-b', 'replica-c'].map((id) => startReplica(id, redis.url)));
  replicas.push(a, b, c);
}, 60_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await redis?.stop();
});

let incidentId: string | undefined;
let sessionId: string | undefined;

describe.skipIf(!available)('a fleet of three replicas on one redis-server', () => {
  it('opens one incident, with one id, for a fault that two replicas detect', async () => {
    for (const r of [a, b, c]) for (let i = 0; i < 30; i++) await r.order(i);
    await Promise.all([a, b].map((r) => r.app.get('/__fault', { method: 'POST', body: '{"inventory":"fail"}' })));
    const opsA = await (await a.call('ops'))('get_incident_context', { operation_name: OPERATION });
    expect(incidentIdIn(opsA.text)).toBeUndefined();
    const contexts = async () => Promise.all([a, b].map(async (r) => (await r.call('ops'))('get_incident_context', { operation_name: OPERATION })));
    for (const until = Date.now() + 20_000; Date.now() < until; ) {
      await Promise.all([a, b].map(async (r) => Promise.all([r.order(1), r.order(2)])));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const [onA, onB] = await contexts();
      // Both replicas detected it and each knows the other did.
      if (/SEEN ON:\s+2 replicas/.test(onA!.text) && /SEEN ON:\s+2 replicas/.test(onB!.text)) break;
    }
    const [onA, onB] = await contexts();
    incidentId = incidentIdIn(onA!.text);
    expect(incidentId, onA!.text).toBeDefined();
    expect(incidentIdIn(onB!.text), onB!.text).toBe(incidentId);
    for (const text of [onA!.text, onB!.text]) expect(text).toMatch(/SEEN ON:\s+2 replicas: replica-[ab], replica-[ab]/);
    // C saw no fault yet knows the fleet's incident, under the same id.
    await expect.poll(async () => incidentIdIn((await (await c.call('ops'))('get_incident_context', { operation_name: OPERATION })).text), { timeout: 3000 }).toBe(incidentId);
    // One incident record of the operation in the store, however many replicas detected it.
    const { createClient } = await import('redis');
    const client = createClient({ url: redis.url });
    await client.connect();
    const records = Object.values(await client.hGetAll('svc:{orders-service}:incidents')).map((v) => JSON.parse(v) as { id: string; operation: string; status: string });
    await client.close();
    expect(records.filter((r) => r.operation === OPERATION && r.status === 'open').map((r) => r.id)).toEqual([incidentId]);
  }, 40_000);

  it('shows a session created on one replica, and the entries added on others, on every replica', async () => {
    expect(incidentId).toBeDefined();
    const created = await (await a.call('ops'))('create_session', { incident_id: incidentId! });
    sessionId = (created.structuredContent as { sessionId: string }).sessionId;
    const started = Date.now();
    await expect.poll(async () => (await (await b.call('ops'))('get_session', { session_id: sessionId! })).isError, { interval: 20, timeout: 3000 }).toBeFalsy();
    const readAfterMs = Date.now() - started;
    expect(readAfterMs).toBeLessThan(1000);
    // Entries added at once on two replicas are both kept.
    await Promise.all([
      (await b.call('ops'))('add_session_entry', { session_id: sessionId!, type: 'OBSERVATION', content: 'inventory answers 503 on replica-b' }),
      (await c.call('alice'))('add_session_entry', { session_id: sessionId!, type: 'DIAGNOSIS', content: 'inventory-service is failing for the whole fleet' }),
    ]);
    for (const r of [a, b, c]) {
      await expect
        .poll(
          async () => {
            const text = (await (await r.call('ops'))('get_session', { session_id: sessionId! })).text;
            return text.includes('503 on replica-b') && text.includes('failing for the whole fleet');
          },
          { timeout: 3000 },
        )
        .toBe(true);
    }
  }, 20_000);

  it('applies a fallback enabled on one replica to every replica within a second, audited once with that replica', async () => {
    for (const r of [b, c]) expect(await r.order(7)).not.toContain('cached');
    const executed = await (await a.call('ops'))('execute_remediation', { action_name: `enable_fallback:${OPERATION}`, reason: 'serve cached stock fleet-wide' });
    expect(executed.isError, executed.text).toBeFalsy();
    const started = Date.now();
    const reached = await Promise.all(
      [b, c].map(async (r) => {
        while (!(await r.order(7)).includes('cached')) {
          if (Date.now() - started > 5000) return Number.POSITIVE_INFINITY;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return Date.now() - started;
      }),
    );
    for (const ms of reached) expect(ms).toBeLessThan(1000);
    expect(await a.order(7)).toContain('cached');
    for (const r of [a, b, c]) {
      await expect.poll(async () => count((await (await r.call('ops'))('get_recent_agent_actions')).text, `enable_fallback:${OPERATION}`), { timeout: 3000 }).toBe(1);
      const actions = (await (await r.call('ops'))('get_recent_agent_actions')).text;
      expect(actions).toMatch(/SUCCESS enable_fallback:GET \/orders\/\{id\} by ops-bot \(operator\) on replica replica-a; reason: serve cached stock fleet-wide/);
    }
  }, 20_000);

  it('gives a replica started later the fleet state: incident, session, audit trail and the fallback', async () => {
    const d = await startReplica('replica-d', redis.url);
    replicas.push(d);
    expect(await d.order(3)).toContain('cached');
    const ops = await d.call('ops');
    expect(incidentIdIn((await ops('get_incident_context', { operation_name: OPERATION })).text)).toBe(incidentId);
    const session = await ops('get_session', { session_id: sessionId! });
    expect(session.text).toContain('failing for the whole fleet');
    const actions = (await ops('get_recent_agent_actions')).text;
    expect(count(actions, `enable_fallback:${OPERATION}`)).toBe(1);
    // And it takes part: a fallback it disables is off on the others within a second.
    expect((await ops('execute_remediation', { action_name: `disable_fallback:${OPERATION}`, reason: 'inventory recovered' })).isError).toBeFalsy();
    await expect.poll(() => a.order(4), { interval: 10, timeout: 1000 }).not.toContain('cached');
  }, 30_000);
});
