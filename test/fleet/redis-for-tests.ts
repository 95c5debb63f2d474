/**
 * What the in-process fleet tests share: a real `redis-server` (ephemeral port) for the test
 * file, the state a replica opens on it (with its FleetSync when `fleet` is asked for), a rogue
 * client writing to Redis directly, and closing all of it after the file's tests, newest first.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, expect } from 'vitest';
import { FleetSync } from '../../src/fleet/fleet-sync.js';
import { type OpenedState, openState } from '../../src/store/open-state.js';
import type { RedisStore } from '../../src/store/redis-store.js';
import { type RedisServer, redisServerAvailable, startRedisServer } from '../support/redis-server.js';
import { tempDir } from '../support/temp-dir.js';

export interface RedisForTests {
  readonly available: boolean;
  readonly url: string;
  /** Runs `close` after the file's tests. */
  closeAfter(close: () => Promise<unknown>): void;
  /** A replica's state store on this Redis, open; closed after the tests. */
  openReplicaState(id: string, namespace: string): Promise<OpenedState & { store: RedisStore }>;
  /** The same with its FleetSync, subscribed once `attachState` attached parts. */
  openFleetState(id: string, namespace: string): Promise<OpenedState & { store: RedisStore; fleetSync: FleetSync }>;
  /** A client writing to Redis as a rogue replica would. */
  rogueClient(): Promise<ReturnType<typeof createClient>>;
}

/** Call at the top of a test file: starts the server before its tests (when installed), stops it after. */
export function redisForTests(): RedisForTests {
  const available = redisServerAvailable();
  let redis: RedisServer | undefined;
  const closers: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    if (available) redis = await startRedisServer();
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await redis?.stop();
  });
  const url = (): string => {
    if (!redis) throw new Error('no redis-server: skip the test when `available` is false');
    return redis.url;
  };
  const open = async (id: string, namespace: string): Promise<OpenedState & { store: RedisStore }> => {
    const opened = openState({ url: url(), namespace, instanceId: id, cwd: tempDir(), flushIntervalMs: 1000, batchSize: 500, timeoutMs: 2000, maxPending: 1000, retention: {} });
    expect(await opened.ready).toBe(true);
    return { ...opened, store: opened.writer.store as RedisStore };
  };
  return {
    available,
    get url() {
      return url();
    },
    closeAfter: (close) => void closers.push(close),
    async openReplicaState(id, namespace) {
      const opened = await open(id, namespace);
      closers.push(() => opened.writer.close());
      return opened;
    },
    async openFleetState(id, namespace) {
      const opened = await open(id, namespace);
      const fleetSync = new FleetSync(opened.store, opened.writer, id, () => undefined, opened.ready);
      closers.push(async () => {
        await fleetSync.close();
        await opened.writer.close();
      });
      return { ...opened, fleetSync };
    },
    async rogueClient() {
      const client = createClient({ url: url() });
      client.on('error', () => undefined);
      await client.connect();
      closers.push(() => client.close());
      return client;
    },
  };
}
