/**
 * Checkpoints of the state that changes on every request (src/checkpointed-state.ts; docs/state.md,
 * "Analysis state"): every `intervalMs` (an unref'd timer) and when the state store closes, each
 * part puts the records that changed since the last checkpoint to the state writer, which writes
 * them in its batches.
 *
 * Nothing is written before the previous run's records were merged in: a record of this run is
 * never read back into it, and a previous run's is not overwritten by a part of this run's counts.
 * A store that could not be read at start is tried again at each checkpoint until it answers.
 *
 * `owner` is put before every key (`<owner> <key>`): on a fleet's Redis the replica's instance
 * id, so replicas sharing the keyspace keep their own records; none for a single process.
 */
import type { CheckpointedState, StoredValue } from '../checkpointed-state.js';
import type { StateSink } from '../state-sink.js';
import type { StateWriter } from './state-writer.js';

export interface CheckpointOptions {
  readonly intervalMs: number;
  /** Put before each key with a space; '' for none. */
  readonly owner: string;
  readonly report: (line: string) => void;
}

export class Checkpoints {
  private readonly parts: CheckpointedState[] = [];
  private readonly sink: StateSink;
  private timer: NodeJS.Timeout | undefined;
  private restoring: Promise<number> | undefined;
  private restored = false;
  private closed = false;

  constructor(
    private readonly writer: StateWriter,
    private readonly options: CheckpointOptions,
  ) {
    const prefix = options.owner ? `${options.owner} ` : '';
    this.sink = {
      put: (collection, key, value) => writer.put(collection, prefix + key, value),
      delete: (collection, key) => writer.delete(collection, prefix + key),
    };
  }

  /** Checkpoints these parts from now on (their records are restored by `restore`). */
  attach(parts: readonly CheckpointedState[]): void {
    for (const part of parts) {
      part.attachStore(this.sink);
      this.parts.push(part);
    }
    this.timer ??= setInterval(() => this.tick(), this.options.intervalMs).unref();
  }

  get attached(): boolean {
    return this.parts.length > 0;
  }

  /**
   * Merges the previous run's records into the parts, once; resolves with how many were skipped
   * as unreadable. Rejects when the store cannot be read (tried again at the next checkpoint).
   */
  restore(): Promise<number> {
    if (this.restored) return Promise.resolve(0);
    this.restoring ??= this.load().finally(() => (this.restoring = undefined));
    return this.restoring;
  }

  private async load(): Promise<number> {
    const prefix = this.options.owner ? `${this.options.owner} ` : '';
    const loaded: [CheckpointedState, StoredValue[]][] = [];
    let unreadable = 0;
    for (const part of this.parts) {
      const records: StoredValue[] = [];
      for (const { key, value } of await this.writer.store.load(part.collection)) {
        if (!key.startsWith(prefix)) continue;
        try {
          records.push({ key: key.slice(prefix.length), value: JSON.parse(value) });
        } catch {
          unreadable++;
        }
      }
      loaded.push([part, records]);
    }
    // Read whole before any is applied; applied once, even when two restores raced.
    if (this.restored) return 0;
    this.restored = true;
    for (const [part, records] of loaded) unreadable += part.restore(records);
    return unreadable;
  }

  /** Each part puts what changed since the last checkpoint; nothing until the previous run's records are in. */
  checkpoint(): void {
    if (!this.restored || this.closed) return;
    for (const part of this.parts) part.checkpoint();
  }

  private tick(): void {
    if (this.restored) {
      this.checkpoint();
      return;
    }
    this.restore().then(
      (skipped) => {
        if (skipped) this.options.report(`state store ${this.writer.store.description}: ${skipped} analysis records did not read back and were skipped`);
      },
      () => undefined,
    );
  }

  /** The last checkpoint, before the writer closes; no more after it. */
  close(): void {
    clearInterval(this.timer);
    this.checkpoint();
    this.closed = true;
  }
}
