/**
 * The write path (docs/state.md): state changes are queued here in constant time and written in
 * batches by a timer (`flushIntervalMs`) or once `batchSize` are queued, never on the request
 * path. A record changed twice before a flush is written once, with its latest value.
 *
 * A store that fails or does not answer within `timeoutMs` degrades svc to local state: the
 * batch is kept and retried at the next flush, `status()` says so (get_service_health shows it)
 * and one line goes to stderr when it starts and when it ends. While the store is away at most
 * `maxPending` writes wait; beyond that the oldest are dropped and counted per collection.
 * Each collection keeps at most its retention count in the store (the same bounds as in memory).
 */
import { printable } from '../shared/printable.js';
import type { StateSink } from '../shared/state-sink.js';
import type { Mutation, StateStore } from './state-store.js';

/** How soon a change of a `prompt` collection is written: changes made together still go in one batch. */
const PROMPT_MS = 20;

export interface StateWriterOptions {
  readonly flushIntervalMs: number;
  readonly batchSize: number;
  readonly timeoutMs: number;
  readonly maxPending: number;
  /** Records kept per collection in the store; collections not named are not trimmed. */
  readonly retention: Readonly<Record<string, number>>;
  /** Hides credentials in a store's error messages. */
  readonly redact?: (message: string) => string;
  readonly report?: (line: string) => void;
  readonly now?: () => number;
}

export interface StoreStatus {
  readonly kind: StateStore['kind'];
  readonly description: string;
  /** `ok`, or `degraded` while writes fail: state is then local to this process until the store returns. */
  readonly state: 'ok' | 'degraded';
  /** Why the store is not the one configured (svc fell back to memory at start), if it is not. */
  readonly fallback: string | undefined;
  readonly degradedSince: number | undefined;
  readonly lastError: string | undefined;
  readonly pending: number;
  readonly maxPending: number;
  readonly written: number;
  readonly batches: number;
  /** Writes dropped because more than maxPending waited, per collection. */
  readonly dropped: Readonly<Record<string, number>>;
  /** Whether the records of the previous run were loaded at start. */
  readonly restored: boolean;
}

interface Pending {
  readonly collection: string;
  readonly key: string;
  readonly seq: number;
  readonly value: (() => unknown) | undefined;
}

export class StateWriter implements StateSink {
  private pending = new Map<string, Pending>();
  private lastSeq = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private soon = false;
  private closed = false;
  private degradedSince: number | undefined;
  private lastError: string | undefined;
  private written = 0;
  private batches = 0;
  private readonly dropped: Record<string, number> = {};
  private readonly now: () => number;
  restored = false;
  /** Collections whose changes are written within PROMPT_MS instead of the flush interval (a fleet's shared ones). */
  prompt: ReadonlySet<string> = new Set();
  private promptTimer: NodeJS.Timeout | undefined;
  /** Told of each batch once it is written (a fleet announces it to the other replicas). */
  onWritten: ((mutations: readonly Mutation[]) => void) | undefined;

  constructor(
    readonly store: StateStore,
    private readonly options: StateWriterOptions,
    /** Why this is not the configured store, when svc fell back to memory. */
    readonly fallback?: string,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Starts the flush timer (unref'd: it never keeps the process alive). */
  start(): this {
    this.timer ??= setInterval(() => void this.flush(), this.options.flushIntervalMs).unref();
    return this;
  }

  put(collection: string, key: string, value: () => unknown): void {
    this.enqueue(collection, key, value);
  }

  delete(collection: string, key: string): void {
    this.enqueue(collection, key, undefined);
  }

  private enqueue(collection: string, key: string, value: (() => unknown) | undefined): void {
    if (this.closed) return;
    const id = `${collection}\u0000${key}`;
    const previous = this.pending.get(id);
    const seq = previous?.seq ?? this.nextSeq();
    this.pending.set(id, { collection, key, seq, value });
    if (!previous && this.pending.size > this.options.maxPending) {
      const [oldestId, oldest] = this.pending.entries().next().value!;
      this.pending.delete(oldestId);
      this.dropped[oldest.collection] = (this.dropped[oldest.collection] ?? 0) + 1;
    }
    if (this.promptTimer === undefined && this.prompt.has(collection)) {
      this.promptTimer = setTimeout(() => {
        this.promptTimer = undefined;
        void this.flush();
      }, PROMPT_MS).unref();
    }
    if (this.pending.size >= this.options.batchSize && !this.soon) {
      this.soon = true;
      setImmediate(() => {
        this.soon = false;
        void this.flush();
      }).unref();
    }
  }

  /** Strictly increasing, from the clock: the order of first write across restarts. */
  private nextSeq(): number {
    this.lastSeq = Math.max(this.now() * 1000, this.lastSeq + 1);
    return this.lastSeq;
  }

  /** Writes what is queued, batch by batch; resolves when done or when the store failed (never rejects). */
  flush(): Promise<void> {
    this.flushing ??= this.drain().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0) {
      const taken: [string, Pending][] = [];
      for (const entry of this.pending) {
        if (taken.length === this.options.batchSize) break;
        taken.push(entry);
      }
      for (const [id] of taken) this.pending.delete(id);
      const mutations: Mutation[] = [];
      for (const [, p] of taken) {
        let value: string | undefined;
        if (p.value) {
          try {
            value = JSON.stringify(p.value());
          } catch {
            continue;
          }
        }
        mutations.push({ collection: p.collection, key: p.key, seq: p.seq, value });
      }
      try {
        await this.withTimeout(this.store.write(mutations));
        const touched = new Set(mutations.filter((m) => m.value !== undefined).map((m) => m.collection));
        for (const collection of touched) {
          const keep = this.options.retention[collection];
          if (keep !== undefined) await this.withTimeout(this.store.trim(collection, keep));
        }
      } catch (error) {
        // Keep the batch, unless a newer change to the same record was queued meanwhile.
        const rest = this.pending;
        this.pending = new Map(taken.filter(([id]) => !rest.has(id)));
        for (const [id, p] of rest) this.pending.set(id, p);
        while (this.pending.size > this.options.maxPending) {
          const [oldestId, oldest] = this.pending.entries().next().value!;
          this.pending.delete(oldestId);
          this.dropped[oldest.collection] = (this.dropped[oldest.collection] ?? 0) + 1;
        }
        this.degrade(error);
        return;
      }
      this.written += mutations.length;
      this.batches++;
      this.recover();
      this.onWritten?.(mutations);
    }
  }

  private withTimeout<T>(promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }

  private message(error: unknown): string {
    const text = error instanceof Error ? error.message : String(error);
    return printable((this.options.redact ?? ((m) => m))(text), 300);
  }

  private degrade(error: unknown): void {
    this.lastError = this.message(error);
    if (this.degradedSince !== undefined) return;
    this.degradedSince = this.now();
    this.options.report?.(
      `state store ${this.store.description} failed (${this.lastError}); state stays local to this process until it answers again, with up to ${this.options.maxPending} writes kept for it`,
    );
  }

  private recover(): void {
    if (this.degradedSince === undefined) return;
    this.degradedSince = undefined;
    const dropped = Object.values(this.dropped).reduce((a, b) => a + b, 0);
    this.options.report?.(`state store ${this.store.description} answers again; kept writes are written${dropped ? ` (${dropped} were dropped while it was away)` : ''}`);
  }

  /** Marks the store as unusable from the start (its records could not be loaded). */
  markDegraded(error: unknown): void {
    this.degrade(error);
  }

  status(): StoreStatus {
    return {
      kind: this.store.kind,
      description: this.store.description,
      state: this.degradedSince === undefined ? 'ok' : 'degraded',
      fallback: this.fallback,
      degradedSince: this.degradedSince,
      lastError: this.lastError,
      pending: this.pending.size,
      maxPending: this.options.maxPending,
      written: this.written,
      batches: this.batches,
      dropped: { ...this.dropped },
      restored: this.restored,
    };
  }

  /** Stops the timer, writes what is queued (within the timeout) and closes the store; safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.timer);
    clearTimeout(this.promptTimer);
    await this.flush();
    this.closed = true;
    await this.store.close().catch(() => undefined);
  }
}
