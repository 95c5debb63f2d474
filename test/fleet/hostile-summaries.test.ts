/**
 * A rogue writer of the fleet's summaries and minutes (anyone with access to the Redis store, a
 * replica with a clock far off): written with the `redis` client directly on a real redis-server,
 * read by a replica's real FleetLink in this process. What the replica holds stays bounded.
 */
import { describe, expect, it } from 'vitest';
import { FleetLink } from '../../src/fleet/fleet-link.js';
import { FleetView } from '../../src/fleet/fleet-view.js';
import { ReplicaSummarizer } from '../../src/fleet/replica-summary.js';
import { engineHarness } from '../support/engine-harness.js';
import { redisForTests } from './redis-for-tests.js';

const redis = redisForTests();
const { available } = redis;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 10);
const MINUTE = 60_000;

async function replica(id: string, namespace: string) {
  const h = engineHarness();
  h.clock.set(T0);
  const opened = await redis.openReplicaState(id, namespace);
  const options = { clock: h.clock, publishIntervalMs: 5000, replicaTtlMs: 30_000, historyMinutes: 60, maxOperations: 1000 };
  const view = new FleetView({ ...options, ownId: id, ownSlos: () => [] });
  const link = new FleetLink({ ...options, store: opened.store, engine: h.engine, view, instanceId: id, startedAt: T0 });
  return { h, view, link };
}

describe.skipIf(!available)('a rogue writer of summaries and minutes', () => {
  it('minutes off the minute or far from this replica’s clock are not kept', async () => {
    const b = await replica('replica-b', 'hostile-minutes');
    const rogue = await redis.rogueClient();
    // A genuine summary and minute of one operation, from a real engine, then rewritten as a rogue would.
    const source = engineHarness();
    source.clock.set(T0);
    for (let i = 0; i < 50; i++) source.request('/orders/{id}', 20, false);
    const { text, minutes } = await new ReplicaSummarizer(source.engine, 'rogue', T0 - MINUTE, 60).summarize(T0, new Set());
    const minuteText = [...minutes.values()][0]!;
    const current = Math.floor(T0 / MINUTE) * MINUTE;
    for (let round = 0; round <= 10; round++) {
      // Each round names 1,400 new minutes: within the hour but not minute starts, and minute starts
      // days ahead; from round 5 its current minute is days ahead too, but for the last round's.
      const junk = [...Array.from({ length: 700 }, (_, k) => current - 1 - (round * 700 + k) * 13), ...Array.from({ length: 700 }, (_, k) => current + (10_000 + round * 700 + k) * MINUTE)];
      const ahead = round >= 5 && round < 10 ? [current + (1000 + round) * MINUTE] : [];
      const summary = { ...JSON.parse(text), minutes: junk, ...(ahead.length && { minute: ahead[0] }) };
      await rogue.set('svc:{hostile-minutes}:fleet:replica:rogue', JSON.stringify(summary));
      await rogue.zAdd('svc:{hostile-minutes}:fleet:replicas', { score: T0, value: 'rogue' });
      await rogue.hSet('svc:{hostile-minutes}:fleet:minutes:rogue', Object.fromEntries([...junk, ...ahead, current].map((m) => [String(m), minuteText])));
      await b.link.merge();
    }
    // Before: 4,205 minutes kept (700 a round off the minute, 5 current minutes days ahead folded
    // when replaced), none ever pruned.
    expect(b.view.history.heldMinutes()).toBe(0);
    // The rogue's current minute, a genuine one, is still shown.
    expect(b.view.history.historyOf('GET /orders/{id}')?.series(T0, 1)[0]?.count).toBe(50);
  });

  it('summaries over 4 MB and replica ids over 256 characters are refused in Redis, not sent', async () => {
    const b = await replica('replica-b', 'hostile-sizes');
    const rogue = await redis.rogueClient();
    const huge = 'x'.repeat(5 * 1024 * 1024);
    for (let i = 0; i < 20; i++) {
      await rogue.set(`svc:{hostile-sizes}:fleet:replica:big-${i}`, huge);
      await rogue.zAdd('svc:{hostile-sizes}:fleet:replicas', { score: T0, value: `big-${i}` });
    }
    for (let i = 0; i < 20; i++) await rogue.zAdd('svc:{hostile-sizes}:fleet:replicas', { score: T0 + 1, value: `${i}-${'y'.repeat(1024 * 1024)}` });
    const sent = async () => Number(/total_net_output_bytes:(\d+)/.exec(await rogue.info('stats'))?.[1]);
    const before = await sent();
    await b.link.merge();
    // Before: 125.8 MB sent to the replica (20 ids of 1 MB, 20 summaries of 5 MB); after: 1.7 KB in one run.
    expect((await sent()) - before).toBeLessThan(64 * 1024);
    expect(b.view.note()).toContain('figures merged from 0 replicas at');
    expect(await rogue.zCard('svc:{hostile-sizes}:fleet:replicas')).toBe(0);
  });

  it('index entries whose summaries do not read back leave the index, so they do not hold the places of replicas that publish', async () => {
    const b = await replica('replica-b', 'hostile-index');
    const rogue = await redis.rogueClient();
    await b.link.publish();
    for (let i = 0; i < 150; i++) {
      await rogue.set(`svc:{hostile-index}:fleet:replica:rogue-${i}`, i % 2 ? 'not json' : 'x'.repeat(5 * 1024 * 1024));
      // Published later than replica-b by their clocks: read first.
      await rogue.zAdd('svc:{hostile-index}:fleet:replicas', { score: T0 + 60_000, value: `rogue-${i}` });
    }
    for (let round = 0; round < 3; round++) await b.link.merge();
    // Before: merged from 0 replicas (51 more not read), at every merge.
    expect(b.view.note()).toContain('figures merged from 1 replica at');
  });
});
