/**
 * SLO budgets and minute histories across a restart (docs/state.md, "Analysis state"): a run
 * counts on a fake clock, checkpoints into a real store (SQLite on a file, and memory:), and a
 * new run on the same store merges the records into what it counted meanwhile. Corrupt, foreign
 * and future records are skipped and counted; records stay within their byte bounds. On a fleet's
 * Redis (a real redis-server) replicas keep their own records and take those of replicas that left.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisEngine } from '../../src/analysis/analysis-engine.js';
import { FakeClock } from '../../src/analysis/clock.js';
import { HISTOGRAM_BUCKETS } from '../../src/analysis/latency-histogram.js';
import { LEARNED_NORMALS_COLLECTION, MAX_NORMAL_RECORD_BYTES } from '../../src/analysis/learned-normal-records.js';
import { BLOCK_MINUTES, blockSlots, MAX_BLOCK_RECORD_BYTES, MINUTE_HISTORY_COLLECTION } from '../../src/analysis/minute-history-records.js';
import { MAX_SLO_RECORD_BYTES, SLO_BUDGETS_COLLECTION } from '../../src/analysis/slo-budget-records.js';
import type { SloAlert, SloDefinition } from '../../src/analysis/slo-tracker.js';
import { analysisClaims } from '../../src/fleet/analysis-claims.js';
import { Checkpoints, OWNERS_COLLECTION } from '../../src/store/checkpoints.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { openState } from '../../src/store/open-state.js';
import { RedisStore } from '../../src/store/redis-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { StateStore } from '../../src/store/state-store.js';
import { StateWriter } from '../../src/store/state-writer.js';
import { analysisState, attachState, closeState, restoreState } from '../../src/wiring/state-persistence.js';
import { type RedisServer, redisServerAvailable, startRedisServer } from '../support/redis-server.js';
import { tempDir } from '../support/temp-dir.js';

const OP = 'GET /orders/{id}';
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const SLO: SloDefinition = { name: 'orders-availability', operationName: OP, type: 'AVAILABILITY', target: 0.99, windowMs: DAY };

/** One process: an engine on the shared clock, checkpointing into `store`. */
class Run {
  readonly engine: AnalysisEngine;
  readonly writer: StateWriter;
  readonly checkpoints: Checkpoints;
  readonly alerts: SloAlert[] = [];
  readonly reports: string[] = [];

  constructor(
    readonly clock: FakeClock,
    store: StateStore,
    slos: readonly SloDefinition[] = [SLO],
    /** A replica's instance id on a fleet's Redis. */
    replica?: string,
  ) {
    this.engine = new AnalysisEngine({ clock, anomalyDetection: { enabled: false } });
    for (const slo of slos) this.engine.sloTracker.register(slo);
    this.engine.onSloAlert((alert) => this.alerts.push(alert));
    this.writer = new StateWriter(store, { flushIntervalMs: 60_000, batchSize: 500, timeoutMs: 2000, maxPending: 1_000_000, retention: {} });
    this.checkpoints = new Checkpoints(this.writer, { intervalMs: 60_000, owner: replica ? encodeURIComponent(replica) : '', report: (line) => this.reports.push(line) });
    if (replica && store instanceof RedisStore) this.checkpoints.claim = analysisClaims(store, replica, 30_000);
    this.checkpoints.attach(analysisState(this.engine));
  }

  /** `count` requests of OP, `everyMs` apart; `bad(i)` fails, `latency(i)` ms. */
  drive(count: number, everyMs: number, bad: (i: number) => boolean = () => false, latency: (i: number) => number = (i) => 20 + (i % 7) * 15) {
    for (let i = 0; i < count; i++) {
      this.engine.observe(OP, latency(i), bad(i));
      this.clock.advance(everyMs);
    }
  }

  /** A checkpoint, written. */
  async checkpoint(): Promise<void> {
    this.checkpoints.checkpoint();
    await this.writer.flush();
  }

  /** The end of the process: the last checkpoint, written; the store closed. */
  async stop(): Promise<void> {
    this.checkpoints.close();
    await this.writer.close();
  }

  slo() {
    return this.engine.sloTracker.getStatus(SLO.name)!;
  }

  health() {
    const h = this.engine.health.getOperationHealth(OP)!;
    return { requestCount: h.requestCount, errorRate: h.errorRate, p50: h.p50, p99: h.p99 };
  }
}

const dir = tempDir();
let files = 0;
const STORES: { name: string; open: () => () => StateStore }[] = [
  {
    name: 'sqlite',
    open: () => {
      const path = join(dir, `state-${files++}.db`);
      return () => {
        const store = new SqliteStore(path, 'orders');
        store.openSync();
        return store;
      };
    },
  },
  {
    name: 'memory:',
    open: () => {
      const store = new MemoryStore();
      return () => store;
    },
  },
];

describe.each(STORES)('across a restart on $name', ({ open }) => {
  it('keeps an SLO budget: budget, burn rates and counts equal after the restore, and a tier that fired does not fire again', async () => {
    const store = open();
    const clock = new FakeClock();
    const first = new Run(clock, store());
    expect(await first.checkpoints.restore()).toBe(0);
    // 20 hours of traffic, then an hour failing 1 in 50: over half the budget spent.
    first.drive(20 * 60, MINUTE);
    first.drive(600, 6 * SECOND, (i) => i % 50 === 0);
    expect(first.alerts.map((a) => a.severity)).toContain('INFO');
    const before = first.slo();
    expect(before.budgetRemaining).toBeLessThan(0.5);
    await first.stop();

    const second = new Run(clock, store());
    expect(await second.checkpoints.restore()).toBe(0);
    expect(second.slo()).toEqual(before);
    // Further traffic re-alerts nothing the first run alerted already.
    second.drive(10, SECOND);
    expect(second.alerts.filter((a) => a.severity === 'INFO')).toEqual([]);
    await second.stop();
  });

  it('adds the requests counted before the restore to the restored ones, and a second restart counts none twice', async () => {
    const store = open();
    const clock = new FakeClock();
    const first = new Run(clock, store());
    await first.checkpoints.restore();
    first.drive(300, 10 * SECOND, (i) => i % 50 === 0);
    await first.stop();
    const counted = first.slo();
    clock.advance(20 * SECOND);

    const second = new Run(clock, store());
    second.drive(40, SECOND, (i) => i === 3);
    await second.checkpoints.restore();
    const merged = second.slo();
    expect(merged.totalRequests).toBe(counted.totalRequests + 40);
    expect(merged.failedRequests).toBe(counted.failedRequests + 1);
    expect(merged.observedMs).toBe(counted.observedMs + 20 * SECOND + 40 * SECOND);
    expect(second.engine.health.historyOf(OP, 60).reduce((n, m) => n + m.count, 0)).toBe(340);
    await second.checkpoint();
    second.drive(5, SECOND);
    await second.stop();
    const last = second.slo();
    const third = new Run(clock, store());
    await third.checkpoints.restore();
    expect(third.slo()).toEqual(last);
    expect(third.engine.health.historyOf(OP, 60).reduce((n, m) => n + m.count, 0)).toBe(345);
    await third.stop();
  });

  it('keeps the learned normal: the next run judges by the same baseline before its own first request', async () => {
    const store = open();
    const clock = new FakeClock();
    const first = new Run(clock, store());
    await first.checkpoints.restore();
    first.drive(30 * 60, SECOND, (i) => i % 50 === 0);
    const learned = first.engine.health.getOperationHealth(OP)!.baseline!;
    expect(learned).toMatchObject({ p50Source: 'learned', errorRateSource: 'learned' });
    await first.stop();
    clock.advance(MINUTE);

    const second = new Run(clock, store());
    expect(await second.checkpoints.restore()).toBe(0);
    const restored = second.engine.health.getOperationHealth(OP)?.baseline ?? second.engine.baselinesOf(OP).baseline!;
    // The periods still waiting their probation at the stop (the last 100 s or so) are not kept: within 2 %.
    const near = (a: number | undefined, b: number | undefined) => Math.abs(a! - b!) / b!;
    expect(near(restored.latencyP50Ms, learned.latencyP50Ms)).toBeLessThan(0.02);
    expect(near(restored.latencyP99Ms, learned.latencyP99Ms)).toBeLessThan(0.02);
    expect(near(restored.errorRate, learned.errorRate)).toBeLessThan(0.05);
    expect(restored.learnedOverMs).toBeGreaterThan(30 * MINUTE);
    const records = await store().load(LEARNED_NORMALS_COLLECTION);
    expect(records.map((r) => r.key)).toEqual([OP]);
    expect(records[0]!.value.length).toBeLessThan(MAX_NORMAL_RECORD_BYTES);
    await second.stop();
  });

  it('keeps the minute history: health and each minute read the same after the restore', async () => {
    const store = open();
    const clock = new FakeClock();
    const first = new Run(clock, store());
    await first.checkpoints.restore();
    clock.advance(17 * SECOND);
    // 25 minutes, slower and failing from minute 18 on; a checkpoint every 30 s.
    for (let half = 0; half < 50; half++) {
      const late = half >= 36;
      first.drive(
        30,
        SECOND,
        (i) => late && i % 4 === 0,
        (i) => (late ? 300 + i * 10 : 15 + (i % 5)),
      );
      await first.checkpoint();
    }
    const health = first.health();
    const minutes = first.engine.health.historyOf(OP, 60);
    expect(minutes.length).toBe(26);
    await first.stop();

    const second = new Run(clock, store());
    await second.checkpoints.restore();
    expect(second.health()).toEqual(health);
    expect(second.engine.health.historyOf(OP, 60)).toEqual(minutes);
    await second.stop();
  });

  it('drops what left the history and deletes its records; a minute ahead of a clock set back counts in the current minute, once', async () => {
    const store = open();
    const clock = new FakeClock();
    const first = new Run(clock, store());
    await first.checkpoints.restore();
    first.drive(60, SECOND);
    first.drive(60, SECOND);
    await first.stop();
    const stored = (await store().load(MINUTE_HISTORY_COLLECTION)).length;
    // Both minutes in one block.
    expect(stored).toBe(1);

    // Back 10 minutes: both minutes are ahead; their requests count in the current minute.
    clock.advance(-10 * MINUTE);
    const back = new Run(clock, store());
    expect(await back.checkpoints.restore()).toBe(0);
    expect(back.engine.health.historyOf(OP, 60).map((m) => m.count)).toEqual([120]);
    expect(back.slo().totalRequests).toBe(120);
    await back.stop();
    const again = new Run(clock, store());
    await again.checkpoints.restore();
    expect(again.engine.health.historyOf(OP, 60).map((m) => m.count)).toEqual([120]);
    await again.stop();

    // Two hours on, the minutes left the history: none restored, and their records deleted.
    clock.advance(2 * HOUR);
    const later = new Run(clock, store());
    await later.checkpoints.restore();
    expect(later.engine.health.historyOf(OP, 60)).toEqual([]);
    await later.stop();
    expect(await store().load(MINUTE_HISTORY_COLLECTION)).toEqual([]);
  });
});

describe('through the state store of the preload (openState, attachState, restoreState, closeState)', () => {
  it('writes nothing before the restore, restores at start with one line counting the skipped, and checkpoints at close', async () => {
    const cwd = tempDir();
    const options = {
      url: 'sqlite:state.db',
      namespace: 'orders',
      cwd,
      instanceId: 'h:1:0001',
      flushIntervalMs: 60_000,
      batchSize: 500,
      timeoutMs: 2000,
      maxPending: 10_000,
      retention: {},
      checkpointIntervalMs: 60_000,
    };
    const clock = new FakeClock();
    const engineOf = () => {
      const engine = new AnalysisEngine({ clock, anomalyDetection: { enabled: false } });
      engine.sloTracker.register(SLO);
      return engine;
    };
    const lines: string[] = [];
    const first = openState(options);
    const counted = engineOf();
    attachState(first, { analysis: analysisState(counted) });
    counted.observe(OP, 10, false);
    first.checkpoints.checkpoint();
    expect(first.writer.status().pending).toBe(0);
    await restoreState(first, {}, 2000, (line) => lines.push(line));
    for (let i = 0; i < 150; i++) {
      counted.observe(OP, 10 + i, i % 30 === 0);
      clock.advance(SECOND);
    }
    await closeState(first);

    const second = openState(options);
    const restored = engineOf();
    attachState(second, { analysis: analysisState(restored) });
    await second.writer.store.write([{ collection: SLO_BUDGETS_COLLECTION, key: 'orders-latency', seq: 1, value: '{"v":1}' }]);
    restored.sloTracker.register({ ...SLO, name: 'orders-latency' });
    await restoreState(second, {}, 2000, (line) => lines.push(line));
    expect(lines).toEqual([`state store sqlite:${join(cwd, 'state.db')}: 1 records did not read back and were skipped`]);
    expect(restored.sloTracker.getStatus(SLO.name)).toEqual(counted.sloTracker.getStatus(SLO.name));
    expect(restored.health.historyOf(OP, 60)).toEqual(counted.health.historyOf(OP, 60));
    await closeState(second);
  });
});

describe('records that do not read back', () => {
  async function seeded(extra: (store: StateStore) => Promise<void>) {
    const store = new MemoryStore();
    const clock = new FakeClock();
    const first = new Run(clock, store);
    await first.checkpoints.restore();
    first.drive(200, SECOND, (i) => i % 40 === 0);
    await first.stop();
    await extra(store);
    return { store, clock, expected: first };
  }

  const put = (store: StateStore, collection: string, key: string, value: string) => store.write([{ collection, key, seq: Date.now() * 1000 + Math.random(), value }]);

  it('skips and counts corrupt, foreign and future records, and restores the good ones', async () => {
    const { store, clock, expected } = await seeded(async (store) => {
      const [block] = await store.load(MINUTE_HISTORY_COLLECTION);
      const good = JSON.parse(block!.value);
      const [m, n, , buckets] = good.minutes[0];
      const slot = Number(block!.key.split(' ')[0]);
      const other = `${(slot + 1) % blockSlots(60)} GET /other`;
      const minutes = (...rows: unknown[]) => JSON.stringify({ ...good, minutes: rows });
      const bad = [
        'not json',
        JSON.stringify({ ...good, v: 2 }),
        minutes([m, n, n + 1, buckets]),
        minutes([m, n, 0, [3, 1, 2, 1]]),
        minutes([m, n, 0, [99, 1]]),
        minutes([m, -1, 0, []]),
        minutes([m + 1, n, 0, buckets]),
        minutes([m + 3 * HOUR, n, 0, buckets]),
        minutes([m, 1.5, 0, []]),
        minutes([m, n, 0, buckets], [m + BLOCK_MINUTES * MINUTE, n, 0, buckets]),
        minutes(),
      ];
      for (const [i, value] of bad.entries()) await put(store, MINUTE_HISTORY_COLLECTION, `${i} GET /bad${i}`, value);
      // The right record under another slot than its block's.
      await put(store, MINUTE_HISTORY_COLLECTION, other, block!.value);
      const [slo] = await store.load(SLO_BUDGETS_COLLECTION);
      const record = JSON.parse(slo!.value);
      await store.write([{ collection: SLO_BUDGETS_COLLECTION, key: 'orders-latency', seq: 1, value: JSON.stringify({ ...record, target: 0.95 }) }]);
      await store.write([{ collection: SLO_BUDGETS_COLLECTION, key: 'orders-future', seq: 2, value: JSON.stringify({ ...record, savedAt: record.savedAt + 2 * HOUR }) }]);
      const rings = record.rings.map((r: number[]) => [...r]);
      rings[0][1] = Number.NaN;
      await store.write([{ collection: SLO_BUDGETS_COLLECTION, key: 'orders-nan', seq: 3, value: JSON.stringify({ ...record, rings }) }]);
      const short = record.rings.map((r: number[]) => r.slice(0, -1));
      await store.write([{ collection: SLO_BUDGETS_COLLECTION, key: 'orders-short', seq: 4, value: JSON.stringify({ ...record, rings: short }) }]);
      await store.write([{ collection: SLO_BUDGETS_COLLECTION, key: 'orders-fired', seq: 5, value: JSON.stringify({ ...record, fired: [true] }) }]);
    });
    const names = ['orders-latency', 'orders-future', 'orders-nan', 'orders-short', 'orders-fired'];
    const second = new Run(clock, store, [SLO, ...names.map((name) => ({ ...SLO, name }))]);
    expect(await second.checkpoints.restore()).toBe(12 + 5);
    expect(second.slo()).toEqual(expected.slo());
    expect(second.health()).toEqual(expected.health());
    for (const name of names) expect(second.engine.sloTracker.getStatus(name)!.totalRequests).toBe(0);
    expect(second.engine.health.operations()).toEqual([OP]);
    await second.stop();
  });
});

describe('byte bounds', () => {
  it('an SLO with every bucket of every ring at the largest counts stays within MAX_SLO_RECORD_BYTES', async () => {
    const clock = new FakeClock();
    const store = new MemoryStore();
    const run = new Run(clock, store, [{ ...SLO, windowMs: 30 * DAY }]);
    await run.checkpoints.restore();
    const now = clock.now();
    const big = 9_999_999_999;
    const rows = (bucketMs: number, size: number, fields: number) =>
      Array.from({ length: size }, (_, i) => {
        const bucket = Math.floor(now / bucketMs) - size + 1 + i;
        return fields === 4 ? [bucket, big, big, 0.1234567890123456, big] : [bucket, big, big];
      });
    const merged = run.engine.sloTracker.merge(SLO.name, {
      startedAt: now - 30 * DAY,
      fired: [true, true, true],
      burning: [true, true],
      rings: [rows(3_600_000, 720, 4), rows(5_000, 60, 2), rows(30_000, 60, 2), rows(60_000, 60, 2), rows(300_000, 72, 2)],
    });
    expect(merged).toBe(true);
    await run.checkpoint();
    const [record] = await store.load(SLO_BUDGETS_COLLECTION);
    expect(JSON.parse(record!.value).rings.map((r: number[]) => r.length)).toEqual([3600, 180, 180, 180, 216]);
    expect(Buffer.byteLength(record!.value)).toBeLessThanOrEqual(MAX_SLO_RECORD_BYTES);
    await run.stop();
  });

  it('a block with every minute and every latency bucket at the largest counts stays within MAX_BLOCK_RECORD_BYTES', async () => {
    const clock = new FakeClock();
    const store = new MemoryStore();
    const run = new Run(clock, store);
    await run.checkpoints.restore();
    const buckets = Array.from({ length: HISTOGRAM_BUCKETS }, (_, bucket) => [bucket, 2 ** 32 - 1]).flat();
    const history = run.engine.health.restorableHistory(OP)!;
    for (let m = 0; m < BLOCK_MINUTES; m++) {
      const minuteStart = clock.now() + m * MINUTE;
      history.merge(minuteStart, { minuteStart, count: Number.MAX_SAFE_INTEGER, errors: Number.MAX_SAFE_INTEGER, buckets }, clock.now() + 999);
    }
    clock.advance((BLOCK_MINUTES - 1) * MINUTE);
    await run.checkpoint();
    const [record] = await store.load(MINUTE_HISTORY_COLLECTION);
    expect(JSON.parse(record!.value).minutes.map((row: number[][]) => row[3]!.length)).toEqual(Array(BLOCK_MINUTES).fill(2 * HISTOGRAM_BUCKETS));
    expect(Buffer.byteLength(record!.value)).toBeLessThanOrEqual(MAX_BLOCK_RECORD_BYTES);
    await run.stop();
  });
});

describe("on a fleet's Redis", () => {
  let redis: RedisServer | undefined;
  beforeAll(async () => {
    if (redisServerAvailable()) redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it.skipIf(!redisServerAvailable())('keeps each replica its own records, restores a restarted one its own, and gives the records of one that left to one replica, once', async () => {
    const clock = new FakeClock();
    const open = async () => {
      const store = new RedisStore({ url: redis!.url, namespace: 'orders', connectTimeoutMs: 2000 });
      await store.open();
      return store;
    };
    const replica = async (id: string) => {
      const run = new Run(clock, await open(), [SLO], id);
      await run.checkpoints.restore();
      return run;
    };
    const a = await replica('pod-a:1:0001');
    const b = await replica('pod b/2');
    a.drive(100, SECOND, (i) => i % 25 === 0);
    b.drive(40, SECOND, (i) => i === 0);
    const countsA = a.slo();
    const countsB = b.slo();
    await a.stop();
    await b.stop();
    // pod-a is live (its summary is there); pod b/2 left the fleet, its claim on its own records expired.
    const admin = await open();
    await admin.run((client) => client.set(admin.key('fleet:replica:pod-a:1:0001'), '{}'));
    await admin.run((client) => client.del(admin.key(`analysis:taken:${encodeURIComponent('pod b/2')}`)));

    const c = await replica('pod-c:3:0003');
    const d = await replica('pod-d:4:0004');
    expect(c.slo()).toMatchObject({ totalRequests: countsB.totalRequests, failedRequests: countsB.failedRequests, budgetRemaining: countsB.budgetRemaining });
    expect(c.engine.health.historyOf(OP, 60).reduce((n, m) => n + m.count, 0)).toBe(40);
    expect(d.slo()).toMatchObject({ totalRequests: 0 });
    await c.stop();
    await d.stop();
    // Taken over: pod b/2's records are gone, pod-c's hold them; each replica's in collections of its own.
    const owned = async (id: string) => (await admin.load(`${SLO_BUDGETS_COLLECTION}:${encodeURIComponent(id)}`)).map((r) => r.key);
    expect(await owned('pod b/2')).toEqual([]);
    expect(await owned('pod-a:1:0001')).toEqual([SLO.name]);
    expect(await owned('pod-c:3:0003')).toEqual([SLO.name]);
    expect((await admin.load(OWNERS_COLLECTION)).map((r) => decodeURIComponent(r.key)).sort()).toEqual(['pod-a:1:0001', 'pod-c:3:0003', 'pod-d:4:0004']);

    // pod-a restarts, while pod-c and pod-d still run.
    for (const id of ['pod-c:3:0003', 'pod-d:4:0004']) await admin.run((client) => client.set(admin.key(`fleet:replica:${id}`), '{}'));
    const again = await replica('pod-a:1:0001');
    expect(again.slo()).toMatchObject({ totalRequests: countsA.totalRequests, failedRequests: countsA.failedRequests, budgetRemaining: countsA.budgetRemaining });
    await again.stop();
    await admin.close();
  });
});
