/**
 * The contract every state store keeps (src/store/state-store.ts), run against memory:, SQLite
 * (a real file) and Redis (a real redis-server on an ephemeral port), and Valkey where
 * `valkey-server` is installed (Debian 13 packages it; Debian 12 does not, and the case is skipped).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory-store.js';
import { RedisStore } from '../../src/store/redis-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { Mutation, StateStore } from '../../src/store/state-store.js';
import { type RedisServer, redisServerAvailable, startRedisServer } from '../support/redis-server.js';
import { tempDir } from '../support/temp-dir.js';

let redis: RedisServer | undefined;
let valkey: RedisServer | undefined;
beforeAll(async () => {
  if (redisServerAvailable()) redis = await startRedisServer();
  if (redisServerAvailable('valkey-server')) valkey = await startRedisServer({ binary: 'valkey-server' });
});
afterAll(async () => {
  await redis?.stop();
  await valkey?.stop();
});

interface Case {
  readonly name: string;
  readonly durable: boolean;
  /** A store; the same `place` gives the same data (where durable). */
  create(namespace: string, place: string): StateStore;
  readonly skip?: () => boolean;
}

const dir = tempDir();
const memories = new Map<string, MemoryStore>();
const CASES: Case[] = [
  { name: 'memory:', durable: false, create: (ns, place) => memories.get(`${ns}/${place}`) ?? memories.set(`${ns}/${place}`, new MemoryStore()).get(`${ns}/${place}`)! },
  { name: 'sqlite', durable: true, create: (ns, place) => new SqliteStore(join(dir, `${place}.db`), ns) },
  {
    name: 'redis',
    durable: true,
    create: (ns, place) => new RedisStore({ url: redis!.url, namespace: `${place}:${ns}`, connectTimeoutMs: 2000 }),
    skip: () => redis === undefined,
  },
  {
    name: 'valkey',
    durable: true,
    create: (ns, place) => new RedisStore({ url: valkey!.url, namespace: `${place}:${ns}`, connectTimeoutMs: 2000 }),
    skip: () => valkey === undefined,
  },
];

let seq = 1;
const put = (collection: string, key: string, value: unknown): Mutation => ({ collection, key, seq: seq++, value: JSON.stringify(value) });
const del = (collection: string, key: string): Mutation => ({ collection, key, seq: seq++, value: undefined });

describe.each(CASES)('state store contract: $name', (c) => {
  let place = 0;
  async function opened(namespace = 'orders'): Promise<StateStore> {
    const store = c.create(namespace, `p${++place}`);
    await store.open();
    return store;
  }

  it('loads records in the order of their first write; writing again keeps the place and takes the value', async (t) => {
    if (c.skip?.()) return t.skip();
    const store = await opened();
    await store.write([put('audit', 'a', 1), put('audit', 'b', 2), put('audit', 'c', 3)]);
    await store.write([put('audit', 'a', 10)]);
    expect(await store.load('audit')).toEqual([
      { key: 'a', value: '10' },
      { key: 'b', value: '2' },
      { key: 'c', value: '3' },
    ]);
    await store.close();
  });

  it('deletes; keeps collections apart; an empty collection loads empty', async (t) => {
    if (c.skip?.()) return t.skip();
    const store = await opened();
    await store.write([put('sessions', 's1', { id: 's1' }), put('incidents', 'i1', { id: 'i1' }), del('sessions', 's1'), del('sessions', 'never-there')]);
    expect(await store.load('sessions')).toEqual([]);
    expect(await store.load('incidents')).toEqual([{ key: 'i1', value: '{"id":"i1"}' }]);
    expect(await store.load('changes')).toEqual([]);
    await store.close();
  });

  it('trims a collection to its newest records (retention) and says how many went', async (t) => {
    if (c.skip?.()) return t.skip();
    const store = await opened();
    await store.write(Array.from({ length: 10 }, (_, i) => put('audit', `k${i}`, i)));
    expect(await store.trim('audit', 4)).toBe(6);
    expect((await store.load('audit')).map((r) => r.key)).toEqual(['k6', 'k7', 'k8', 'k9']);
    expect(await store.trim('audit', 4)).toBe(0);
    await store.close();
  });

  it('keeps namespaces (service names) apart', async (t) => {
    if (c.skip?.()) return t.skip();
    const place_ = `shared${++place}`;
    const a = c.create('orders', place_);
    const b = c.create('payments', place_);
    await a.open();
    await b.open();
    await a.write([put('audit', 'x', 'orders')]);
    expect(await b.load('audit')).toEqual([]);
    await a.close();
    await b.close();
  });

  it('keeps what was written when opened again (durable stores)', async (t) => {
    if (c.skip?.() || !c.durable) return t.skip();
    const where = `again${++place}`;
    const first = c.create('orders', where);
    await first.open();
    await first.write([put('remediation', 'fallback:GET /x', { kind: 'fallback', target: 'GET /x' })]);
    await first.close();
    const second = c.create('orders', where);
    await second.open();
    expect(await second.load('remediation')).toEqual([{ key: 'fallback:GET /x', value: '{"kind":"fallback","target":"GET /x"}' }]);
    await second.close();
  });

  it('writes a batch of 2,000 records and reads them back', async (t) => {
    if (c.skip?.()) return t.skip();
    const store = await opened();
    await store.write(Array.from({ length: 2000 }, (_, i) => put('changes', `c${i}`, { i })));
    const loaded = await store.load('changes');
    expect(loaded).toHaveLength(2000);
    expect(loaded[1999]).toEqual({ key: 'c1999', value: '{"i":1999}' });
    await store.close();
  });
});
