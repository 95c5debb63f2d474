/**
 * Checkpoints of the state that changes on every request (src/shared/checkpointed-state.ts; docs/state.md,
 * "Analysis state"): every `intervalMs` (an unref'd timer) and when the state store closes, each
 * part puts the records that changed since the last checkpoint to the state writer, which writes
 * them in its batches.
 *
 * Nothing is written before the previous run's records were merged in: a record of this run is
 * never read back into it, and a previous run's is not overwritten by a part of this run's counts.
 * A store that could not be read at start is tried again at each checkpoint until it answers.
 *
 * On a fleet's Redis each replica's records are its own: `owner` (its instance id, URI-encoded)
 * names the collections they are in (`slo-budgets:<owner>`), and the `analysis-owners` collection
 * lists the owners. There `claim` (src/fleet/analysis-claims.ts) says whether this replica may
 * take an owner's records: its own, and those of replicas that left the fleet, which it merges into
 * its own like a restart's and deletes. The owners are looked at again `takeAgainMs` after the
 * restore (a predecessor still counted as live at the start). A single process has no owner.
 */
import type { CheckpointedState, StoredValue } from '../shared/checkpointed-state.js';
import type { StateSink } from '../shared/state-sink.js';
import type { StateWriter } from './state-writer.js';

export interface CheckpointOptions {
  readonly intervalMs: number;
  /** Whose records these are, in a store several processes share; '' for none. */
  readonly owner: string;
  readonly report: (line: string) => void;
}

/** On a shared store, the owners that have analysis records: one record each, keyed by owner. */
export const OWNERS_COLLECTION = 'analysis-owners';

/** Whether this process may take `owner`'s records (its own when `own`); rejects when the store cannot tell. */
export type OwnerClaim = (owner: string, own: boolean) => Promise<boolean>;

/** The collection of `owner`'s records of a part. */
function collectionOf(collection: string, owner: string): string {
  return owner ? `${collection}:${owner}` : collection;
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
    this.sink = {
      put: (collection, key, value) => writer.put(collectionOf(collection, options.owner), key, value),
      delete: (collection, key) => writer.delete(collectionOf(collection, options.owner), key),
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

  /** Applies the records of each owner this process may take (its own first), each owner's read whole first. */
  private async load(own: boolean): Promise<number> {
    const mine = this.options.owner;
    const owners = own ? [mine] : [];
    if (this.claim) for (const { key } of await this.writer.store.load(OWNERS_COLLECTION)) if (key !== mine) owners.push(key);
    let unreadable = 0;
    for (const owner of owners) {
      // Its own records when another replica took them a moment ago: nothing of its own to restore.
      const taken = !this.claim || (await this.claim(owner, owner === mine));
      const loaded: [CheckpointedState, StoredValue[]][] = [];
      for (const part of taken ? this.parts : []) {
        const collection = collectionOf(part.collection, owner);
        const values: StoredValue[] = [];
        for (const { key, value } of await this.writer.store.load(collection)) {
          try {
            values.push({ key, value: JSON.parse(value) });
          } catch {
            unreadable++;
          }
          // Another replica's: from now on in this one's records.
          if (owner !== mine) this.writer.delete(collection, key);
        }
        loaded.push([part, values]);
      }
      if (owner === mine) {
        // Applied once, even when two restores raced.
        if (this.restored) return 0;
        this.restored = true;
        if (this.claim) this.writer.put(OWNERS_COLLECTION, mine, () => ({ v: 1 }));
        if (this.claim && this.takeAgainMs > 0) setTimeout(() => this.takeOthers(), this.takeAgainMs).unref();
      } else if (taken) this.writer.delete(OWNERS_COLLECTION, owner);
      for (const [part, values] of loaded) unreadable += part.restore(values);
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
