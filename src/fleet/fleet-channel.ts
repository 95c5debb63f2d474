/**
 * The fleet's pub/sub channel, `svc:{<service name>}:fleet` on the Redis store (docs/state.md,
 * Fleet): small JSON notices between the replicas of one service. A notice names what changed
 * (the store holds the records) or carries a remediation to apply. Pub/sub delivers at most once
 * and only to connected subscribers, so `onReconnect` tells the caller to read the store again.
 *
 * The subscriber is a second connection (a subscribed client runs no other commands); it
 * reconnects by itself and subscribes again. A notice larger than MAX_MESSAGE_BYTES, not JSON,
 * or from this replica is ignored (the foreign ones counted).
 */
import type { RedisClient, RedisStore } from '../store/redis-store.js';

export const MAX_MESSAGE_BYTES = 64 * 1024;
/**
 * Notices handled per second at most (a fleet sends a few per write batch and replica); beyond,
 * they are dropped before parsing (counted) and `onMissed` is told once the second is over, so a
 * flood costs the app the decoding of the messages only.
 */
export const MAX_NOTICES_PER_SECOND = 1000;

/** RedisStore.run, rejecting instead of throwing when the store is closed. */
export function runSafely<T>(store: RedisStore, fn: (client: RedisClient) => Promise<T>): Promise<T> {
  try {
    return store.run(fn);
  } catch (error) {
    return Promise.reject(error);
  }
}

export interface FleetChannelOptions {
  readonly instanceId: string;
  /** A notice from another replica: parsed JSON with a string `kind`, checked further by the caller. */
  readonly onMessage: (message: { readonly kind: string; readonly from: string } & Record<string, unknown>) => void;
  /** The subscriber connected again after a loss: notices may have been missed. */
  readonly onReconnect: () => void;
  /** Notices were dropped over MAX_NOTICES_PER_SECOND: told once the second is over. */
  readonly onMissed: () => void;
}

export class FleetChannel {
  readonly name: string;
  private subscriber: RedisClient | undefined;
  private connectedOnce = false;
  private closed = false;
  published = 0;
  received = 0;
  /** Notices that could not be published (Redis down) or were ignored as malformed or too large. */
  failed = 0;
  ignored = 0;
  /** Notices dropped over MAX_NOTICES_PER_SECOND. */
  dropped = 0;
  private windowStart = 0;
  private inWindow = 0;

  constructor(
    private readonly store: RedisStore,
    private readonly options: FleetChannelOptions,
  ) {
    this.name = store.key('fleet');
  }

  /** Subscribes; resolves once subscribed, or rejects when Redis does not answer (it keeps trying in the background). */
  async start(): Promise<void> {
    const subscriber = this.store.duplicate();
    this.subscriber = subscriber;
    subscriber.on('error', () => undefined);
    // Listening never keeps the process alive.
    subscriber.unref();
    subscriber.on('ready', () => {
      if (this.connectedOnce && !this.closed) this.options.onReconnect();
      this.connectedOnce = true;
    });
    await this.store.run(async () => {
      await subscriber.connect();
      await subscriber.subscribe(this.name, (message) => this.receive(message));
    });
  }

  private receive(text: string): void {
    const now = performance.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.inWindow = 0;
    }
    if (++this.inWindow > MAX_NOTICES_PER_SECOND) {
      this.dropped++;
      if (this.inWindow === MAX_NOTICES_PER_SECOND + 1) setTimeout(() => this.closed || this.options.onMissed(), 1000 - (now - this.windowStart)).unref();
      return;
    }
    if (text.length > MAX_MESSAGE_BYTES) {
      this.ignored++;
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.ignored++;
      return;
    }
    const m = message as { kind?: unknown; from?: unknown } | null;
    if (typeof m?.kind !== 'string' || typeof m.from !== 'string') {
      this.ignored++;
      return;
    }
    if (m.from === this.options.instanceId) return;
    this.received++;
    try {
      this.options.onMessage(m as { kind: string; from: string } & Record<string, unknown>);
    } catch {
      this.ignored++;
    }
  }

  /** Sends a notice to the other replicas; never throws (a Redis that is down loses it, counted). */
  publish(kind: string, body: Record<string, unknown>): void {
    const text = JSON.stringify({ ...body, kind, from: this.options.instanceId });
    if (text.length > MAX_MESSAGE_BYTES) {
      this.failed++;
      return;
    }
    runSafely(this.store, (client) => client.publish(this.name, text)).then(
      () => this.published++,
      () => this.failed++,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (!subscriber) return;
    try {
      if (subscriber.isOpen) await subscriber.close();
      else subscriber.destroy();
    } catch {
      subscriber.destroy();
    }
  }
}
