// State store figures (docs/state.md): the cost of queuing a state change (what the request path
// could ever pay: incidents and changes are queued from detections, not per span), and write
// throughput per store: memory:, SQLite (a temp file) and Redis (a redis-server started here on
// an ephemeral port, when `redis-server` is on the PATH), in batches of 500 audit-sized records.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '../dist/store/memory-store.js';
import { RedisStore } from '../dist/store/redis-store.js';
import { SqliteStore } from '../dist/store/sqlite-store.js';
import { StateWriter } from '../dist/store/state-writer.js';
import { printedSection } from './printed-section.mjs';
import { startRedisServer } from './redis-server.mjs';

const section = printedSection('bench/store.mjs', 'State store writes');

const RECORDS = 50_000;
const BATCH = 500;
const record = (i) => ({
  timestamp: Date.now(),
  agentName: 'ops-agent',
  role: 'operator',
  action: `enable_fallback:GET /orders/{id}`,
  reason: 'serve cached stock',
  approval: 'not_required',
  outcome: 'success',
  detail: `fallback enabled ${i}`,
});

function enqueueCost() {
  const writer = new StateWriter(new MemoryStore(), { flushIntervalMs: 60_000, batchSize: 1_000_000, timeoutMs: 1000, maxPending: 1_000_000, retention: {} });
  const value = record(0);
  for (let i = 0; i < 100_000; i++) writer.put('incidents', `INC-${i % 100}`, () => value);
  const start = process.hrtime.bigint();
  const n = 1_000_000;
  for (let i = 0; i < n; i++) writer.put('incidents', `INC-${i % 100}`, () => value);
  return Number(process.hrtime.bigint() - start) / n;
}

async function throughput(store) {
  await store.open();
  const writer = new StateWriter(store, { flushIntervalMs: 60_000, batchSize: BATCH, timeoutMs: 10_000, maxPending: RECORDS * 2, retention: { audit: RECORDS } });
  for (let i = 0; i < RECORDS; i++) {
    const value = record(i);
    writer.put('audit', `AUD-${i}`, () => value);
  }
  const start = performance.now();
  await writer.flush();
  const ms = performance.now() - start;
  const batches = writer.status().batches;
  await writer.close();
  return { perSecond: Math.round(RECORDS / (ms / 1000)), msPerBatch: ms / batches };
}

section.say(`queuing a state change: ${enqueueCost().toFixed(0)} ns (a Map set; serialisation happens at the flush)`);
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-store-'));
const stores = [
  ['memory:', () => new MemoryStore()],
  ['sqlite', () => new SqliteStore(join(dir, 'state.db'), 'bench')],
];
const redis = await startRedisServer(dir);
if (redis) stores.push(['redis', () => new RedisStore({ url: redis.url, namespace: 'bench', connectTimeoutMs: 5000 })]);
for (const [name, create] of stores) {
  const { perSecond, msPerBatch } = await throughput(create());
  section.say(`${name.padEnd(8)} ${perSecond.toLocaleString('en-US').padStart(9)} records/s written, ${msPerBatch.toFixed(2)} ms per batch of ${BATCH}`);
}
redis?.stop();
await section.write();
