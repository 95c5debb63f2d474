/**
 * State that changes on every request and survives restarts (docs/state.md, "Analysis state"):
 * SLO budgets, minute histories, learned baselines. A request only marks it changed (a boolean,
 * a counter); a checkpoint (src/store/checkpoints.ts: every `svc.store.checkpoint-interval` and
 * at exit) puts the records that changed since the last one. Restoring merges a previous run's
 * records into what this run counted since it started, by absolute time.
 *
 * Records are JSON with a schema version (`v`), every field checked when read: a record that does
 * not read back (corrupt, foreign, from the future) is skipped and counted.
 */
import type { StateSink } from './state-sink.js';

/** A record saved further ahead of this clock is from the future (a clock set back that far, another writer): skipped. */
export const MAX_AHEAD_MS = 60 * 60_000;

export interface StoredValue {
  readonly key: string;
  readonly value: unknown;
}

export interface CheckpointedState {
  /** The store's collection of its records. */
  readonly collection: string;
  /** From now on its checkpoints put to `sink`. */
  attachStore(sink: StateSink): void;
  /** Merges a previous run's records; returns how many were skipped as unreadable. */
  restore(records: readonly StoredValue[]): number;
  /** Puts the records that changed since the last checkpoint. */
  checkpoint(): void;
}
