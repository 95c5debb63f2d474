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
 * id (URI-encoded), so replicas sharing the keyspace keep their own records; none for a single
 * process. There `claim` (src/fleet/analysis-claims.ts) says whether this replica may take an
 * owner's records: its own, and those of replicas that left the fleet, which it merges into its
 * own like a restart's and deletes. Other replicas' records are looked at again `takeAgainMs`
 * after the restore (a predecessor still counted as live at the start).
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

/** Whether this process may take `owner`'s records (its own when `own`); rejects when the store cannot tell. */
export type OwnerClaim = (owner: string, own: boolean) => Promise<boolean>;

interface Loaded {
  readonly part: CheckpointedState;
  /** The key as stored, owner and all. */
  readonly key: string;
  readonly text: string;
}

export class Checkpoints {
  private readonly parts: CheckpointedState[] = [];
  private readonly sink: StateSink;
  private timer: NodeJS.Timeout | undefined;
  private restoring: Promise<number> | undefined;
  private restored = false;
  private closed = false;
  /** Set on a fleet's Redis: without it every record is this process's own. */
  claim: OwnerClaim | undefined;
  takeAgainMs = 0;

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
    this.restoring ??= this.load(true).finally(() => (this.restoring = undefined));
    return this.restoring;
  }

  /** Reads the parts' collections whole, then applies the records of the owners this process may take. */
  private async load(own: boolean): Promise<number> {
    const mine = this.options.owner;
    const byOwner = new Map<string, Loaded[]>();
    for (const part of this.parts) {
      for (const { key, value } of await this.writer.store.load(part.collection)) {
        const space = mine ? key.indexOf(' ') : 0;
        const owner = key.slice(0, space);
        if (space < 0 || (owner === mine ? !own : !this.claim)) continue;
        const records = byOwner.get(owner) ?? byOwner.set(owner, []).get(owner)!;
        records.push({ part, key, text: value });
      }
    }
    const taken: string[] = [];
    for (const owner of byOwner.keys()) if (!this.claim || (await this.claim(owner, owner === mine))) taken.push(owner);
    // Applied once, even when two restores raced.
    if (own) {
      if (this.restored) return 0;
      this.restored = true;
      if (this.claim && this.takeAgainMs > 0) setTimeout(() => this.takeOthers(), this.takeAgainMs).unref();
    }
    let unreadable = 0;
    for (const owner of taken) {
      const records = byOwner.get(owner)!;
      for (const part of this.parts) {
        const values: StoredValue[] = [];
        for (const record of records) {
          if (record.part !== part) continue;
          try {
            values.push({ key: record.key.slice(owner.length + (mine ? 1 : 0)), value: JSON.parse(record.text) });
          } catch {
            unreadable++;
          }
          // Another replica's: from now on in this one's records.
          if (owner !== mine) this.writer.delete(part.collection, record.key);
        }
        unreadable += part.restore(values);
      }
    }
    return unreadable;
  }

  private takeOthers(): void {
    if (this.closed) return;
    this.load(false).then(
      (skipped) => {
        if (skipped) this.options.report(`state store ${this.writer.store.description}: ${skipped} analysis records of replicas that left did not read back and were skipped`);
      },
      () => undefined,
    );
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
