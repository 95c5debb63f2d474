/**
 * A replica of fixtures/orders-service under the preload on a real redis-server, while a rogue
 * writer floods the fleet channel with notices (records naming many keys, remediations of ever
 * new targets) and then pauses Redis: the app keeps serving every request promptly and its memory
 * stays bounded (docs/state.md, Fleet).
 */
import { readFileSync } from 'node:fs';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RedisServer, redisServerAvailable, startRedisServer } from '../support/redis-server.js';
import { type Replica, startReplica } from './fleet-support.js';

const available = redisServerAvailable();
let redis: RedisServer;
let replica: Replica;

beforeAll(async () => {
  if (!available) return;
  redis = await startRedisServer();
  replica = await startReplica('replica-a', redis.url);
}, 60_000);

afterAll(async () => {
  await replica?.stop();
  await redis?.stop();
});

const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** Sequential requests until `done` resolves: the slowest answer (ms) and whether all were 200. */
async function serve(done: Promise<unknown>): Promise<{ slowest: number; requests: number; ok: boolean }> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  let slowest = 0;
  let requests = 0;
  let ok = true;
  while (!finished) {
    const started = performance.now();
    const response = await replica.app.get(`/orders/${requests % 50}`);
    await response.text();
    ok &&= response.status === 200;
    slowest = Math.max(slowest, performance.now() - started);
    requests++;
  }
  return { slowest, requests, ok };
}

it.skipIf(!available)(
  'keeps serving, with bounded memory, through a flood of notices and a paused Redis',
  async () => {
    const rogue = createClient({ url: redis.url });
    rogue.on('error', () => undefined);
    await rogue.connect();
    try {
      for (let i = 0; i < 20; i++) await replica.order(i);
      const pid = replica.app.child.pid!;
      const rssBefore = rssMb(pid);
      let sent = 0;
      const flood = (async () => {
        for (let batch = 0; batch < 40; batch++) {
          const pipeline = rogue.multi();
          for (let i = 0; i < 250; i++, sent++) {
            const changes = Array.from({ length: 100 }, (_, j) => ['sessions', `rogue-${sent}-${j}`]);
            pipeline.publish('svc:{orders-service}:fleet', JSON.stringify({ kind: 'records', from: 'rogue', changes }));
            const action = { action: `enable_fallback:GET /rogue/${sent}/${'x'.repeat(1000)}`, reason: 'r', agentName: 'rogue', role: 'operator' };
            pipeline.publish('svc:{orders-service}:fleet', JSON.stringify({ kind: 'remediation', from: 'rogue', action }));
          }
          await pipeline.execAsPipeline();
        }
      })();
      const flooded = await serve(flood);
      // Redis answers nothing for a second: requests do not wait on it.
      const pauseDone = new Promise((resolve) => setTimeout(resolve, 1000));
      await createClient({ url: redis.url })
        .connect()
        .then(async (c) => {
          await c.sendCommand(['CLIENT', 'PAUSE', '1000', 'ALL']);
          await c.close();
        });
      const paused = await serve(pauseDone);
      const rssAfter = rssMb(pid);
      expect(flooded.ok && paused.ok).toBe(true);
      // Figures in docs/state.md (Fleet, "Against a rogue writer"): before, RSS grew 269 MB, 3
      // requests were served in the flood (the slowest 510 ms) and 34 while Redis was paused (295
      // ms); after, about 80 and 1,000 (69-121 ms, 11-19 ms). The counts carry the verdict: time
      // bounds on a shared machine are loose.
      expect(flooded.requests).toBeGreaterThan(20);
      expect(paused.requests).toBeGreaterThan(100);
      expect(paused.slowest).toBeLessThan(250);
      expect(rssAfter - rssBefore).toBeLessThan(150);
      expect(await replica.order(1)).toMatch(/^200 /);
    } finally {
      await rogue.close();
    }
  },
  60_000,
);
