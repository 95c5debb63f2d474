/**
 * A Redis that goes away mid-fleet (docs/state.md, Fleet): each replica runs on its local state
 * and tool calls keep answering; what a replica did meanwhile reaches the others once Redis is
 * back, although the notice sent while it was down was lost; a replica started while Redis was
 * down reads the fleet state once it answers. a replica started while Redis was
 * down reads the fleet's state once it answers.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RedisServer, redisServerAvailable, startRedisServer } from '../support/redis-server.js';
import { count, OPERATION, type Replica, startReplica } from './fleet-support.js';

const available = redisServerAvailable();
let redis: RedisServer;
const replicas: Replica[] = [];

beforeAll(async () => {
  if (!available) return;
  redis = await startRedisServer();
  replicas.push(...(await Promise.all(['replica-a', 'replica-b'].map((id) => startReplica(id, redis.url)))));
}, 60_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await redis?.stop();
});

it.skipIf(!available)(
  'applies a remediation made while Redis was down on the other replicas once it is back',
  async () => {
    const [a, b] = replicas as [Replica, Replica];
    for (const r of [a, b]) await r.order(1);
    await redis.kill();
    const started = Date.now();
    const executed = await (await a.call('ops'))('execute_remediation', { action_name: `enable_fallback:${OPERATION}`, reason: 'cached stock while redis is away' });
    // The tool answers at once from local state.
    expect(Date.now() - started).toBeLessThan(1000);
    expect(executed.isError, executed.text).toBeFalsy();
    expect(await a.order(2)).toContain('cached');
    // The broadcast was lost with Redis: B does not know.
    expect(await b.order(2)).not.toContain('cached');
    await expect.poll(async () => (await (await a.call('ops'))('get_service_health')).text, { timeout: 5000 }).toContain('STATE STORE: DEGRADED');

    await redis.start();
    // The clients reconnect with a backoff of up to 5 s.
    await expect.poll(() => b.order(3), { interval: 50, timeout: 20_000 }).toContain('cached');
    await expect
      .poll(async () => (await (await b.call('ops'))('get_recent_agent_actions')).text, { timeout: 10_000 })
      .toMatch(/enable_fallback:GET \/orders\/\{id\} by ops-bot \(operator\) on replica replica-a/);
    expect(count((await (await b.call('ops'))('get_recent_agent_actions')).text, `enable_fallback:${OPERATION}`)).toBe(1);
  },
  40_000,
);

it.skipIf(!available)(
  'gives a replica started while Redis is down the fleet state once Redis answers',
  async () => {
    await redis.kill();
    const c = await startReplica('replica-c', redis.url);
    replicas.push(c);
    expect(await c.order(1)).not.toContain('cached');
    await redis.start();
    await expect.poll(() => c.order(2), { interval: 50, timeout: 20_000 }).toContain('cached');
    await expect
      .poll(async () => (await (await c.call('ops'))('get_recent_agent_actions')).text, { timeout: 10_000 })
      .toMatch(/enable_fallback:GET \/orders\/\{id\} by ops-bot \(operator\) on replica replica-a/);
  },
  40_000,
);
