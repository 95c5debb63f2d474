/**
 * `redis://…` / `rediss://…`: Redis 7 or Valkey through the official `redis` client (v5). Per
 * collection a hash (key → value) and a sorted set (key → seq of first write), under
 * `svc:{<service name>}:`, so replicas of one service share them. `svc:{…}:schema` holds the
 * schema version, migrated forward at open.
 *
 * The client never queues commands while disconnected (`disableOfflineQueue`): a write to a
 * store that is down fails at once and the writer keeps it; the client reconnects in the
 * background. svc's own commands are never traced as the app's. The connection never keeps the
 * process alive (unref'd) except while a write is under way, so an app that closed its servers
 * ends, and its last batch is still written at a natural end.
 */

import { createRequire } from 'node:module';
import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import type { createClient } from 'redis';
import { type Mutation, SCHEMA_VERSION, type StateStore, type StoredRecord, StoreVersionError } from './state-store.js';
import { redactedStoreUrl } from './store-url.js';

export type RedisClient = ReturnType<typeof createClient>;

/** The Redis client's package, loaded when a store is on Redis: it is 60-90 ms of start-up that a SQLite store never needs. */
function loadCreateClient(): typeof createClient {
  return (createRequire(import.meta.url)('redis') as { createClient: typeof createClient }).createClient;
}
type Client = RedisClient;

export interface RedisStoreOptions {
  readonly url: string;
  /** `svc.store.password`; a password in the URL wins. */
  readonly password?: string;
  readonly namespace: string;
  readonly connectTimeoutMs: number;
}

/** Runs svc's own store traffic with tracing suppressed, so it never shows as the app's dependency calls. */
function untraced<T>(fn: () => Promise<T>): Promise<T> {
  return context.with(suppressTracing(context.active()), fn);
}

const HMGET_CHUNK = 500;

export class RedisStore implements StateStore {
  readonly kind = 'redis';
  readonly description: string;
  private client: Client | undefined;
  private readonly prefix: string;
  /** Connection errors since start (the client reconnects by itself). */
  connectionErrors = 0;

  constructor(private readonly options: RedisStoreOptions) {
    this.description = redactedStoreUrl(options.url);
    this.prefix = `svc:{${options.namespace}}:`;
  }

  private hash(collection: string): string {
    return `${this.prefix}${collection}`;
  }

  private order(collection: string): string {
    return `${this.prefix}${collection}:order`;
  }

  async open(): Promise<void> {
    const hasUrlPassword = new URL(this.options.url).password !== '';
    const client = loadCreateClient()({
      url: this.options.url,
      ...(!hasUrlPassword && this.options.password ? { password: this.options.password } : {}),
      disableOfflineQueue: true,
      socket: { connectTimeout: this.options.connectTimeoutMs, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** Math.min(retries, 6), 5000) },
    });
    client.on('error', () => this.connectionErrors++);
    client.unref();
    this.client = client;
    await untraced(async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no connection within ${this.options.connectTimeoutMs} ms`)), this.options.connectTimeoutMs);
      });
      try {
        await Promise.race([client.connect(), timeout]);
      } finally {
        clearTimeout(timer);
      }
      await this.migrate(client);
    });
  }

  private migrated = false;

  /** A store that was down at open is migrated at its first answer. */
  private async ready(client: Client): Promise<void> {
    if (!this.migrated) await this.migrate(client);
  }

  private async migrate(client: Client): Promise<void> {
    const key = `${this.prefix}schema`;
    const version = Number((await client.get(key)) ?? 0);
    if (version > SCHEMA_VERSION)
      throw new StoreVersionError(`${this.description} holds schema version ${version}, written by a newer svc (this one knows up to ${SCHEMA_VERSION}); it is left as it is`);
    // Version 1 is the first layout: nothing to convert yet; later steps go here, oldest first.
    if (version < SCHEMA_VERSION) await client.set(key, String(SCHEMA_VERSION));
    this.migrated = true;
  }

  private get connected(): Client {
    if (!this.client) throw new Error(`${this.description} is not open`);
    return this.client;
  }

  /** Runs `fn` with the open client, untraced: for the fleet's own keys beside the collections. */
  run<T>(fn: (client: Client) => Promise<T>): Promise<T> {
    const client = this.connected;
    return untraced(() => fn(client));
  }

  /** Calls `listener` each time the client connects from now on (it reconnects by itself): what failed while it was away can be read again. */
  onReady(listener: () => void): void {
    this.connected.on('ready', listener);
  }

  /** A second connection with the same options, for a pub/sub subscriber (a subscribed client runs no other commands). */
  duplicate(): Client {
    return this.connected.duplicate();
  }

  /** `svc:{<service name>}:<name>`: a key of this service beside its collections. */
  key(name: string): string {
    return `${this.prefix}${name}`;
  }

  async load(collection: string): Promise<StoredRecord[]> {
    const client = this.connected;
    return untraced(async () => {
      await this.ready(client);
      const keys = await client.zRange(this.order(collection), 0, -1);
      const records: StoredRecord[] = [];
      for (let i = 0; i < keys.length; i += HMGET_CHUNK) {
        const chunk = keys.slice(i, i + HMGET_CHUNK);
        const values = await client.hmGet(this.hash(collection), chunk);
        chunk.forEach((key, j) => {
          const value = values[j];
          if (typeof value === 'string') records.push({ key, value });
        });
      }
      return records;
    });
  }

  private writing = 0;

  /** Holds the process alive while `fn` writes (the connection is unref'd otherwise). */
  private async held<T>(client: Client, fn: () => Promise<T>): Promise<T> {
    if (this.writing++ === 0) client.ref();
    try {
      return await fn();
    } finally {
      if (--this.writing === 0) client.unref();
    }
  }

  async write(mutations: readonly Mutation[]): Promise<void> {
    const client = this.connected;
    await this.held(client, () =>
      untraced(async () => {
        await this.ready(client);
        const multi = client.multi();
        for (const m of mutations) {
          if (m.value === undefined) multi.hDel(this.hash(m.collection), m.key).zRem(this.order(m.collection), m.key);
          else multi.hSet(this.hash(m.collection), m.key, m.value).zAdd(this.order(m.collection), { score: m.seq, value: m.key }, { condition: 'NX' });
        }
        await multi.exec();
      }),
    );
  }

  async trim(collection: string, keep: number): Promise<number> {
    const client = this.connected;
    return untraced(async () => {
      const count = await client.zCard(this.order(collection));
      if (count <= keep) return 0;
      const oldest = await client.zRange(this.order(collection), 0, count - keep - 1);
      if (oldest.length === 0) return 0;
      await client.multi().zRem(this.order(collection), oldest).hDel(this.hash(collection), oldest).exec();
      return oldest.length;
    });
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    await untraced(async () => {
      try {
        if (client.isOpen) await client.close();
        else client.destroy();
      } catch {
        client.destroy();
      }
    });
  }
}
