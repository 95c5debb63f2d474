/**
 * The write path and its failures (docs/state.md): batching off the request path, a store that
 * is down (a real redis-server killed mid-test, then started again), slow, or unusable at start
 * (read-only directory, a file that is no database, a newer schema, no node:sqlite).
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { AuditTrail } from '../../src/incidents/audit-trail.js';
import { storeNote } from '../../src/mcp/tools/store-note.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { openState } from '../../src/store/open-state.js';
import { RedisStore } from '../../src/store/redis-store.js';
import { SqliteStore, sqliteModule } from '../../src/store/sqlite-store.js';
import type { Mutation, StateStore } from '../../src/store/state-store.js';
import { StateWriter, type StateWriterOptions } from '../../src/store/state-writer.js';
import { type RedisServer, redisServerAvailable, startRedisServer } from '../support/redis-server.js';
import { tempDir } from '../support/temp-dir.js';

const OPTIONS: StateWriterOptions = { flushIntervalMs: 60_000, batchSize: 100, timeoutMs: 500, maxPending: 200, retention: { audit: 50 } };

function audited(writer: StateWriter, count: number, clock = new FakeClock()): AuditTrail {
  const audit = new AuditTrail(clock, { maxEntries: 50 });
  audit.attachStore(writer);
  for (let i = 0; i < count; i++)
    audit.record({
      agentName: 'ops',
      role: 'operator',
      action: `escalate:GET /x${i}`,
      reason: 'r',
      approvedBy: undefined,
      approver: undefined,
      approval: 'not_required',
      outcome: 'success',
      detail: `n${i}`,
    });
  return audit;
}

describe('batching', () => {
  it('queues in constant time and writes once per flush, a record changed twice once, within the retention', async () => {
    const store = new MemoryStore();
    let writes = 0;
    const write = store.write.bind(store);
    store.write = async (m: readonly Mutation[]) => {
      writes++;
      return write(m);
    };
    const writer = new StateWriter(store, OPTIONS);
    audited(writer, 80);
    writer.put('incidents', 'INC-1', () => ({ v: 1 }));
    writer.put('incidents', 'INC-1', () => ({ v: 2 }));
    expect(writes).toBe(0);
    expect(writer.status().pending).toBe(81);
    await writer.flush();
    expect(writes).toBe(1);
    expect(await store.load('incidents')).toEqual([{ key: 'INC-1', value: '{"v":2}' }]);
    // 80 recorded, 50 kept in memory: the 30 evicted were deleted, the store holds the same 50.
    expect((await store.load('audit')).map((r) => JSON.parse(r.value).detail)).toEqual(Array.from({ length: 50 }, (_, i) => `n${i + 30}`));
  });
});

describe('a store that is down or slow', () => {
  it('a slow store: the batch times out, svc is degraded, and the writes wait for the next flush', async () => {
    let answer: (() => void) | undefined;
    const slow: StateStore = Object.assign(new MemoryStore(), { write: () => new Promise<void>((resolve) => (answer = resolve)) });
    const lines: string[] = [];
    const writer = new StateWriter(slow, { ...OPTIONS, timeoutMs: 20, report: (l) => lines.push(l) });
    audited(writer, 3);
    const started = performance.now();
    await writer.flush();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(writer.status()).toMatchObject({ state: 'degraded', pending: 3, lastError: 'no answer within 20 ms' });
    expect(lines).toHaveLength(1);
    expect(storeNote(writer.status())).toMatch(/^STATE STORE: DEGRADED, memory: is not answering \(no answer within 20 ms\); state is local to this process, 3 writes wait/);
    answer?.();
  });

  it('keeps at most maxPending writes while down, drops the oldest and counts them', async () => {
    const failing: StateStore = Object.assign(new MemoryStore(), { write: async () => Promise.reject(new Error('connection refused')) });
    const writer = new StateWriter(failing, { ...OPTIONS, maxPending: 100, retention: {} });
    for (let i = 0; i < 250; i++) writer.put('audit', `k${i}`, () => i);
    await writer.flush();
    expect(writer.status()).toMatchObject({ state: 'degraded', pending: 100, dropped: { audit: 150 } });
    expect(storeNote(writer.status())).toContain('150 audit writes dropped (more than 100 waited)');
  });

  it('a file that cannot be used falls back to memory with one stderr line: read-only directory, not a database, newer schema, no node:sqlite', async () => {
    const dir = tempDir();
    const readOnly = join(dir, 'ro');
    mkdirSync(readOnly);
    chmodSync(readOnly, 0o500);
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'this is not a database at all, but it is long enough to have a header of some kind');
    const newer = join(dir, 'newer.db');
    const db = new (sqliteModule()!.DatabaseSync)(newer);
    db.exec('PRAGMA user_version = 99');
    db.close();
    const cases = [`sqlite:${join(readOnly, 'sub', 'state.db')}`, `sqlite:${garbage}`, `sqlite:${newer}`];
    const root = process.getuid?.() === 0;
    for (const url of root ? cases.slice(1) : cases) {
      const lines: string[] = [];
      const state = openState({ ...OPTIONS, url, namespace: 'orders', instanceId: 'test:1', cwd: dir, report: (l) => lines.push(l) });
      expect(state.writer.store.kind, url).toBe('memory');
      expect(lines, url).toHaveLength(1);
      expect(lines[0]).toMatch(/cannot be used .*; svc keeps its state in memory \(memory:\)/);
      expect(storeNote(state.writer.status())).toMatch(/^STATE STORE: memory: \(sqlite:/);
    }
    const missing = new SqliteStore(join(dir, 'x.db'), 'orders', undefined);
    Object.defineProperty(missing, 'sqlite', { value: undefined });
    await expect(missing.open()).rejects.toThrow(/node:sqlite is not available/);
  });

  it('migrates a file of an older schema forward at open', async () => {
    const path = join(tempDir(), 'old.db');
    const first = new SqliteStore(path, 'orders', sqliteModule(), []);
    await first.open().catch(() => undefined);
    await first.close();
    const db = new (sqliteModule()!.DatabaseSync)(path);
    expect((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(0);
    db.close();
    const store = new SqliteStore(path, 'orders');
    await store.open();
    await store.write([{ collection: 'audit', key: 'a', seq: 1, value: '1' }]);
    expect(await store.load('audit')).toEqual([{ key: 'a', value: '1' }]);
    await store.close();
    const again = new (sqliteModule()!.DatabaseSync)(path);
    expect((again.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(1);
    again.close();
  });
});

describe('redis-server killed mid-test, then started again', () => {
  let redis: RedisServer | undefined;
  beforeAll(async () => {
    if (redisServerAvailable()) redis = await startRedisServer({ password: 's3cret-pass' });
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('degrades to local state, buffers the audit entries, writes them when it is back; the password never shows', async (t) => {
    if (!redis) return t.skip();
    const lines: string[] = [];
    const state = openState({ ...OPTIONS, url: redis.url, password: 's3cret-pass', namespace: 'orders', instanceId: 'test:1', cwd: tempDir(), report: (l) => lines.push(l) });
    expect(await state.ready).toBe(true);
    const writer = state.writer;
    const audit = audited(writer, 5);
    await writer.flush();
    expect(writer.status()).toMatchObject({ state: 'ok', written: 5 });

    await redis.kill();
    for (let i = 0; i < 10; i++)
      audit.record({
        agentName: 'ops',
        role: 'operator',
        action: 'escalate:GET /y',
        reason: 'while down',
        approvedBy: undefined,
        approver: undefined,
        approval: 'not_required',
        outcome: 'success',
        detail: `down${i}`,
      });
    const started = performance.now();
    await writer.flush();
    expect(performance.now() - started).toBeLessThan(OPTIONS.timeoutMs + 500);
    expect(writer.status()).toMatchObject({ state: 'degraded', pending: 10 });
    expect(audit.recent(1)[0]!.detail).toBe('down9');

    await redis.start();
    await expect
      .poll(
        async () => {
          await writer.flush();
          return writer.status().state;
        },
        { timeout: 15_000, interval: 100 },
      )
      .toBe('ok');
    expect(writer.status().pending).toBe(0);
    const reader = new RedisStore({ url: redis.url, password: 's3cret-pass', namespace: 'orders', connectTimeoutMs: 2000 });
    await reader.open();
    const details = (await reader.load('audit')).map((r) => JSON.parse(r.value).detail);
    expect(details).toEqual([...Array.from({ length: 5 }, (_, i) => `n${i}`), ...Array.from({ length: 10 }, (_, i) => `down${i}`)]);
    await reader.close();
    await writer.close();
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of [...lines, JSON.stringify(writer.status())]) expect(line).not.toContain('s3cret-pass');
  }, 30_000);

  it('a wrong password or no server at start: svc runs on local state and says why, without the password', async (t) => {
    if (!redis) return t.skip();
    const state = openState({ ...OPTIONS, url: `redis://:wrong-pass@127.0.0.1:${redis.port}`, namespace: 'orders', instanceId: 'test:1', cwd: tempDir() });
    expect(await state.ready).toBe(false);
    expect(state.writer.status().state).toBe('degraded');
    expect(JSON.stringify(state.writer.status())).not.toContain('wrong-pass');
    expect(state.writer.status().description).toBe(`redis://:***@127.0.0.1:${redis.port}`);
    await state.writer.close();
  });
});
