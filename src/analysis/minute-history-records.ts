/**
 * Operations' minute histories across restarts (docs/state.md, "Analysis state"): in the
 * `minute-history` collection, one record per operation and block of BLOCK_MINUTES minutes with
 * traffic. A checkpoint puts, for each operation that had requests since the previous one, the
 * blocks from the newest minute it wrote then: the current block, and the one before when it
 * closed meanwhile; never the whole hour again. Blocks rather than single minutes: a restart reads
 * a fifth of the records (bench/analysis-restore.mjs), each still small enough for SQLite to keep
 * in its page.
 *
 * Key: `<slot> <operation>`, the slot being the block's number modulo the blocks a history spans
 * plus one (blockSlots): a block overwrites one whose minutes all left the history, so an
 * operation has at most that many records (14 at the default 60 minutes). Operation names over
 * MAX_OPERATION_CHARS are not kept.
 *
 * Record, version 1: { v: 1, minutes: [[minute start, requests, errors, [bucket, count, ...]], ...]
 * (the block's minutes with traffic, ascending; the latency histogram's buckets that hold any,
 * ascending), f: the history's first request when it was in the block }. At most
 * MAX_BLOCK_RECORD_BYTES.
 *
 * Restoring adds each minute to this run's (MinuteHistory.merge). A minute that left the history
 * is dropped, and a record with nothing left deleted. A minute ahead of this clock (by at most
 * MAX_AHEAD_MS) counts in the current minute, and its record is deleted so it is never read back
 * twice (the current block is written again at the next checkpoint). A record in another slot
 * than its block's (limits.history-minutes changed, another writer) is skipped and deleted.
 */
import { type CheckpointedState, MAX_AHEAD_MS, type StoredValue } from '../shared/checkpointed-state.js';
import { BadRecord, countOf, fields } from '../shared/record-fields.js';
import { NO_SINK, type StateSink } from '../shared/state-sink.js';
import type { Clock } from './clock.js';
import type { HealthAggregator } from './health-aggregator.js';
import { HISTOGRAM_BUCKETS } from './latency-histogram.js';
import type { MinuteCounts, MinuteHistory, SparseMinute } from './minute-history.js';

export const MINUTE_HISTORY_COLLECTION = 'minute-history';
const VERSION = 1;
const MINUTE_MS = 60_000;
export const BLOCK_MINUTES = 5;
const BLOCK_MS = BLOCK_MINUTES * MINUTE_MS;
/** Longer operation names are not kept across restarts (as in a fleet's summary). */
const MAX_OPERATION_CHARS = 1024;
/** The most one block's record takes as JSON: every minute with every bucket of the histogram at the largest counts. */
export const MAX_BLOCK_RECORD_BYTES = 6 * 1024;

interface Written {
  readonly changes: number;
  /** The newest minute written: it may have had more requests since. */
  readonly minute: number;
}

/** Records an operation has at most: the blocks a history of `minutes` whole minutes and the current one spans, plus one. */
export function blockSlots(minutes: number): number {
  return Math.ceil((minutes + 1) / BLOCK_MINUTES) + 1;
}

export class MinuteHistoryRecords implements CheckpointedState {
  readonly collection = MINUTE_HISTORY_COLLECTION;
  private sink: StateSink = NO_SINK;
  private readonly written = new Map<MinuteHistory, Written>();
  /** Minutes before it are a previous run's: restored as they are stored. */
  private readonly startMinute: number;

  constructor(
    private readonly health: HealthAggregator,
    private readonly clock: Clock,
  ) {
    this.startMinute = minuteOf(clock.now());
  }

  attachStore(sink: StateSink): void {
    this.sink = sink;
  }

  checkpoint(): void {
    const now = this.clock.now();
    this.health.forEachHistory((history, operation) => {
      if (operation.length > MAX_OPERATION_CHARS) return;
      const last = this.written.get(history);
      if (last?.changes === history.changes) return;
      // The newest kept, not now's: after a clock set back, requests count in the newest minute.
      const newest = history.newestMinute;
      const oldest = newest - history.minutes * MINUTE_MS;
      for (let block = blockOf(Math.max(last?.minute ?? 0, oldest)); block <= blockOf(newest); block += BLOCK_MS) {
        const minutes: MinuteCounts[] = [];
        for (let m = Math.max(block, oldest); m < block + BLOCK_MS && m <= newest; m += MINUTE_MS) {
          const minute = history.minuteAt(now, m);
          if (minute) minutes.push(minute);
        }
        if (minutes.length === 0) continue;
        const record = recordOf(minutes, history.firstAt);
        this.sink.put(this.collection, keyOf(history.minutes, operation, block), () => record);
      }
      this.written.set(history, { changes: history.changes, minute: newest });
    });
  }

  restore(records: readonly StoredValue[]): number {
    const now = this.clock.now();
    const historyMinutes = this.health.historyMinutes;
    const oldest = minuteOf(now) - historyMinutes * MINUTE_MS;
    let skipped = 0;
    for (const { key, value } of records) {
      const space = key.indexOf(' ');
      const operation = key.slice(space + 1);
      let read: { minutes: SparseMinute[]; firstAt: number | undefined };
      try {
        if (space < 1 || !operation || operation.length > MAX_OPERATION_CHARS) throw new BadRecord('not a key of this collection');
        read = readBlock(value, now);
        // Another slot than its block's: another writer's, or limits.history-minutes changed.
        if (keyOf(historyMinutes, operation, blockOf(read.minutes[0]!.minuteStart)) !== key) {
          this.sink.delete(this.collection, key);
          throw new BadRecord('another slot');
        }
      } catch {
        skipped++;
        continue;
      }
      const kept = read.minutes.filter((minute) => minute.minuteStart >= oldest);
      // Nothing left in the history: no history made for it.
      if (kept.length === 0) {
        this.sink.delete(this.collection, key);
        continue;
      }
      const history = this.health.restorableHistory(operation);
      // Beyond limits.max-operations: left in the store, as the operation is not tracked.
      if (!history) continue;
      for (const minute of kept) history.merge(now, minute, read.firstAt !== undefined && minuteOf(read.firstAt) === minute.minuteStart ? read.firstAt : undefined);
      if (kept.at(-1)!.minuteStart > minuteOf(now)) this.sink.delete(this.collection, key);
    }
    // What this run counted is written from its first minute on; the minutes before are stored as they are.
    this.health.forEachHistory((history) => this.written.set(history, { changes: -1, minute: this.startMinute }));
    return skipped;
  }
}

function minuteOf(time: number): number {
  return Math.floor(time / MINUTE_MS) * MINUTE_MS;
}

function blockOf(time: number): number {
  return Math.floor(time / BLOCK_MS) * BLOCK_MS;
}

/** `<slot> <operation>`: the slot of the block starting at `blockStart` in a history of `minutes` whole minutes and the current one. */
function keyOf(minutes: number, operation: string, blockStart: number): string {
  return `${(blockStart / BLOCK_MS) % blockSlots(minutes)} ${operation}`;
}

function recordOf(minutes: readonly MinuteCounts[], firstAt: number): unknown {
  const rows = minutes.map((minute) => {
    const buckets: number[] = [];
    for (let bucket = 0; bucket < HISTOGRAM_BUCKETS; bucket++) if (minute.histogram[bucket]! > 0) buckets.push(bucket, minute.histogram[bucket]!);
    return [minute.minuteStart, minute.count, minute.errors, buckets];
  });
  const first = firstAt >= blockOf(minutes[0]!.minuteStart) && firstAt < blockOf(minutes[0]!.minuteStart) + BLOCK_MS;
  return { v: VERSION, minutes: rows, ...(first && { f: firstAt }) };
}

/**
 * A block: its minutes whole minute starts in one block, ascending, errors within requests, each
 * histogram of ascending buckets holding at most the minute's requests.
 */
function readBlock(value: unknown, now: number): { minutes: SparseMinute[]; firstAt: number | undefined } {
  const record = fields(value);
  if (record.v !== VERSION) throw new BadRecord('another version');
  const rows = record.minutes;
  if (!Array.isArray(rows) || rows.length === 0 || rows.length > BLOCK_MINUTES) throw new BadRecord('not a block of minutes');
  const minutes: SparseMinute[] = [];
  for (const row of rows as unknown[]) {
    if (!Array.isArray(row) || row.length !== 4) throw new BadRecord('not a minute');
    const minuteStart = countOf(row[0], 'minute');
    const count = countOf(row[1], 'requests');
    const errors = countOf(row[2], 'errors');
    const previous = minutes.at(-1)?.minuteStart;
    if (minuteStart % MINUTE_MS !== 0 || (previous !== undefined && (minuteStart <= previous || blockOf(minuteStart) !== blockOf(previous)))) throw new BadRecord('minutes not of one block');
    if (minuteStart > now + MAX_AHEAD_MS) throw new BadRecord('from the future');
    if (count === 0 || errors > count) throw new BadRecord('errors exceed requests');
    const buckets: unknown = row[3];
    if (!Array.isArray(buckets) || buckets.length % 2 !== 0 || buckets.length > 2 * HISTOGRAM_BUCKETS) throw new BadRecord('not a histogram');
    let latencies = 0;
    for (let i = 0; i < buckets.length; i += 2) {
      const bucket = countOf(buckets[i], 'bucket');
      const n = countOf(buckets[i + 1], 'bucket count');
      if (bucket >= HISTOGRAM_BUCKETS || (i > 0 && bucket <= (buckets[i - 2] as number)) || n === 0 || n > 0xffffffff) throw new BadRecord('not a histogram');
      latencies += n;
    }
    if (latencies > count) throw new BadRecord('more latencies than requests');
    minutes.push({ minuteStart, count, errors, buckets: buckets as number[] });
  }
  const firstAt = record.f === undefined ? undefined : countOf(record.f, 'first request');
  if (firstAt !== undefined && blockOf(firstAt) !== blockOf(minutes[0]!.minuteStart)) throw new BadRecord('first request outside its block');
  return { minutes, firstAt };
}
