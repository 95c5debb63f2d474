/**
 * Operations' learned normals across restarts (docs/state.md, "Analysis state"): one record per
 * operation in the `learned-normals` collection, keyed by its name, put at a checkpoint when the
 * normal learned since the previous one (a period folded in, a deviation held or accepted, a
 * reset). Restoring adds a record to this run's normal, both decayed to the later of their times
 * (LearnedNormal.mergeRecord): a release is judged against the previous release's normal from its
 * first request, and a deviation held before the restart goes on towards its acceptance.
 *
 * Record, version 1 (NormalRecord, learned-normal.ts): { v: 1, learned: [79 numbers: 75 bucket
 * weights, count, errors, sum of log latency and of its squares], learnedAt, firstLearnedAt, and
 * when a deviation is held: held (79 numbers), heldAt, heldSince; acceptedAt when one was
 * accepted }. At most MAX_NORMAL_RECORD_BYTES. A record of another version or shape, with numbers
 * that are not finite, or learned more than MAX_AHEAD_MS ahead of this clock, is skipped; names
 * over MAX_OPERATION_CHARS are not kept.
 */
import { type CheckpointedState, MAX_AHEAD_MS, type StoredValue } from '../shared/checkpointed-state.js';
import { NO_SINK, type StateSink } from '../shared/state-sink.js';
import type { Clock } from './clock.js';
import type { NormalMemory } from './normal-memory.js';

export const LEARNED_NORMALS_COLLECTION = 'learned-normals';
/** Two lists of 79 numbers of up to 24 characters, and five times. */
export const MAX_NORMAL_RECORD_BYTES = 4 * 1024;
const MAX_OPERATION_CHARS = 1024;

export class LearnedNormalRecords implements CheckpointedState {
  readonly collection = LEARNED_NORMALS_COLLECTION;
  private sink: StateSink = NO_SINK;

  constructor(
    private readonly normals: NormalMemory,
    private readonly clock: Clock,
  ) {}

  attachStore(sink: StateSink): void {
    this.sink = sink;
  }

  checkpoint(): void {
    for (const { key, value } of this.normals.takeChanged()) {
      if (key.length > MAX_OPERATION_CHARS) continue;
      if (value) this.sink.put(this.collection, key, () => value);
      else this.sink.delete(this.collection, key);
    }
  }

  restore(records: readonly StoredValue[]): number {
    const latest = this.clock.now() + MAX_AHEAD_MS;
    const fresh = records.filter(({ key, value }) => {
      const learnedAt = (value as { learnedAt?: unknown } | null)?.learnedAt;
      return key.length <= MAX_OPERATION_CHARS && !(typeof learnedAt === 'number' && learnedAt > latest);
    });
    return records.length - fresh.length + this.normals.restore(fresh);
  }
}
