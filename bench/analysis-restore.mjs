// Analysis state across a restart (docs/state.md, "Analysis state"): the start-up restore of
// 1,000 operations' minute histories (every minute of the hour with traffic, about 15 latency
// buckets each: 61,000 records) and learned normals (one record each), and 10 SLOs with every
// bucket of their rings filled, from SQLite
// (a temp file) and from Redis (a redis-server started here, when it is on the PATH): the median
// of 7 restores into a fresh engine, each the store read, the JSON parsed, every field checked and
// merged. Then the steady state: a checkpoint after every operation had requests, put and written.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnalysisEngine } from '../dist/analysis/analysis-engine.js';
import { FakeClock } from '../dist/analysis/clock.js';
import { Checkpoints } from '../dist/store/checkpoints.js';
import { RedisStore } from '../dist/store/redis-store.js';
import { SqliteStore } from '../dist/store/sqlite-store.js';
import { StateWriter } from '../dist/store/state-writer.js';
import { analysisState } from '../dist/wiring/state-persistence.js';
import { startRedisServer } from './redis-server.mjs';

const OPERATIONS = 1000;
const SLOS = 10;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const ROUNDS = 7;
const NOW = Date.UTC(2026, 0, 1, 12, 0, 30);
const operation = (i) => `GET /api/v1/resource-${i}/{id}`;

function engineAt(clock) {
  const engine = new AnalysisEngine({ clock, anomalyDetection: { enabled: false } });
  for (let i = 0; i < SLOS; i++) engine.sloTracker.register({ name: `slo-${i}`, operationName: operation(i), type: 'AVAILABILITY', target: 0.999, windowMs: 30 * DAY });
  return engine;
}

function writerOf(store) {
  return new StateWriter(store, { flushIntervalMs: 60_000, batchSize: 500, timeoutMs: 30_000, maxPending: 1_000_000, retention: {} });
}

/** The state of a busy hour, made directly (requests one by one would take minutes). */
function fill(engine, clock) {
  const now = clock.now();
  for (let op = 0; op < OPERATIONS; op++) {
    const history = engine.health.restorableHistory(operation(op));
    for (let m = 60; m >= 0; m--) {
      const buckets = [];
      for (let b = 30; b < 45; b++) buckets.push(b, 1 + ((op + m + b) % 40));
      const count = buckets.reduce((sum, n, i) => (i % 2 ? sum + n : sum), 0);
      history.merge(now, { minuteStart: Math.floor(now / MINUTE) * MINUTE - m * MINUTE, count, errors: (op + m) % 3, buckets });
    }
  }
  // A learned normal of six hours, about 15 latency buckets, per operation.
  const normals = [];
  for (let op = 0; op < OPERATIONS; op++) {
    const learned = new Array(79).fill(0);
    for (let b = 30; b < 45; b++) learned[b] = 500 + ((op * 7 + b) % 300) + 0.123456789;
    const count = learned.reduce((n, w) => n + w, 0);
    learned.splice(75, 4, count, count * 0.01, count * Math.log(12), count * Math.log(12) ** 2);
    normals.push({ key: operation(op), value: { v: 1, learned, learnedAt: now - MINUTE, firstLearnedAt: now - 6 * 60 * MINUTE } });
  }
  if (engine.normals.restore(normals)) throw new Error('a normal did not read back');
  const rows = (bucketMs, size, fields) =>
    Array.from({ length: size }, (_, i) => {
      const bucket = Math.floor(now / bucketMs) - size + 1 + i;
      return fields === 4 ? [bucket, 36_000 + i, 30, 0.000963 + i * 1e-9, 30] : [bucket, 600 + i, 1];
    });
  for (let i = 0; i < SLOS; i++)
    engine.sloTracker.merge(`slo-${i}`, {
      startedAt: now - 30 * DAY,
      fired: [false, false, false],
      burning: [false, false],
      rings: [rows(3_600_000, 720, 4), rows(5_000, 60, 2), rows(30_000, 60, 2), rows(60_000, 60, 2), rows(300_000, 72, 2)],
    });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(name, open) {
  // The previous run: started two hours ago, its hour filled, every record written.
  const clock = new FakeClock(NOW - 2 * 60 * MINUTE);
  const seeded = writerOf(await open());
  const seeding = new Checkpoints(seeded, { intervalMs: 3_600_000, owner: '', report: console.log });
  const source = engineAt(clock);
  seeding.attach(analysisState(source));
  await seeding.restore();
  clock.set(NOW);
  fill(source, clock);
  seeding.checkpoint();
  const records = seeded.status().pending;
  await seeded.flush();
  const bytes = (await seeded.store.load('minute-history')).reduce((n, r) => n + r.key.length + r.value.length, 0);
  const normalBytes = (await seeded.store.load('learned-normals')).reduce((n, r) => n + r.key.length + r.value.length, 0);
  await seeded.close();

  const restores = [];
  let engine;
  for (let round = 0; round < ROUNDS; round++) {
    const store = await open();
    const writer = writerOf(store);
    engine = engineAt(clock);
    const checkpoints = new Checkpoints(writer, { intervalMs: 3_600_000, owner: '', report: console.log });
    checkpoints.attach(analysisState(engine));
    const start = performance.now();
    const skipped = await checkpoints.restore();
    restores.push(performance.now() - start);
    if (skipped) throw new Error(`${skipped} records skipped`);
    if (round < ROUNDS - 1) {
      checkpoints.close();
      await writer.close();
      continue;
    }
    // Every operation has requests in the current minute: the checkpoint puts one record each, the SLOs theirs.
    for (let op = 0; op < OPERATIONS; op++) engine.observe(operation(op), 12 + (op % 50), false);
    const put = performance.now();
    checkpoints.checkpoint();
    const putMs = performance.now() - put;
    const pending = writer.status().pending;
    const write = performance.now();
    await writer.flush();
    const writeMs = performance.now() - write;
    console.log(
      `${name}: ${records.toLocaleString('en')} records (${(bytes / 1024 / 1024).toFixed(1)} MB of minute history, ${(normalBytes / OPERATIONS / 1024).toFixed(1)} KB of learned normal per operation), restored in median ${median(restores).toFixed(0)} ms (${restores.map((ms) => ms.toFixed(0)).join(', ')})`,
    );
    console.log(
      `${name}: a checkpoint of ${OPERATIONS} operations with requests: ${pending} records put in ${putMs.toFixed(1)} ms, written in ${writeMs.toFixed(1)} ms (${writer.status().batches} batches)`,
    );
    checkpoints.close();
    await writer.close();
  }
  const status = engine.sloTracker.getStatus('slo-0');
  if (engine.health.operations().length !== OPERATIONS || status.totalRequests === 0 || !engine.normals.getBaseline(operation(OPERATIONS - 1))) throw new Error('the restore lost state');
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-analysis-'));
const path = join(dir, 'state.db');
await measure('sqlite', async () => {
  const store = new SqliteStore(path, 'bench');
  store.openSync();
  return store;
});
const redis = await startRedisServer(dir);
if (redis) {
  try {
    await measure('redis', async () => {
      const store = new RedisStore({ url: redis.url, namespace: 'bench', connectTimeoutMs: 2000 });
      await store.open();
      return store;
    });
  } finally {
    await redis.stop();
  }
}
