/**
 * Operations' minute histories across restarts (docs/state.md, "Analysis state"): one record per
 * operation and minute with traffic in the `minute-history` collection. A checkpoint puts the
 * minutes of operations that had requests since the previous one, from the newest minute it wrote
 * then: two records an operation at most at a 30 s interval, never the whole hour again.
 *
 * Key: `<slot> <operation>`, the slot being the minute's number modulo the history's minutes + 1,
 * as in the time ring: a minute overwrites the one an hour before it, so an operation has at most
 * `limits.history-minutes` + 1 records. Operation names over MAX_OPERATION_CHARS are not kept.
 *
 * Record, version 1: { v: 1, m: minute start, n: requests, e: errors, h: [bucket, count, ...]
 * (the latency histogram's buckets that hold any, ascending), f: the history's first request when
 * it was in that minute }. At most MAX_MINUTE_RECORD_BYTES.
 *
 * Restoring adds each minute to this run's (MinuteHistory.merge). A minute that left the history
 * is deleted from the store; one ahead of this clock (by at most MAX_AHEAD_MS) counts in the
 * current minute and its record is deleted, so it is never read back twice. A record in another
 * slot than its minute's (limits.history-minutes changed, another writer) is skipped and deleted.
 */
import { type CheckpointedState, MAX_AHEAD_MS, type StoredValue } from '../checkpointed-state.js';
import { BadRecord, countOf, fields, list } from '../record-fields.js';
import { NO_SINK, type StateSink } from '../state-sink.js';
import type { Clock } from './clock.js';
import type { HealthAggregator } from './health-aggregator.js';
import { HISTOGRAM_BUCKETS, newHistogram } from './latency-histogram.js';
import type { MinuteCounts, MinuteHistory } from './minute-history.js';

export const MINUTE_HISTORY_COLLECTION = 'minute-history';
const VERSION = 1;
const MINUTE_MS = 60_000;
/** Longer operation names are not kept across restarts (as in a fleet's summary). */
export const MAX_OPERATION_CHARS = 1024;
/** The most one minute's record takes as JSON: every bucket of the histogram at the largest counts. */
export const MAX_MINUTE_RECORD_BYTES = 1536;

interface Written {
  readonly changes: number;
  /** The newest minute written: it may have had more requests since. */
  readonly minute: number;
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
      let newest = last?.minute ?? 0;
      for (const minute of history.minuteCounts(now, history.minutes + 1)) {
        if (minute.minuteStart < newest) continue;
        newest = minute.minuteStart;
        this.put(history, operation, minute);
      }
      this.written.set(history, { changes: history.changes, minute: newest });
    });
  }

  private put(history: MinuteHistory, operation: string, minute: MinuteCounts): void {
    const record = recordOf(minute, history.firstAt);
    this.sink.put(this.collection, keyOf(history.minutes, operation, minute.minuteStart), () => record);
  }

  restore(records: readonly StoredValue[]): number {
    const now = this.clock.now();
    const minutes = this.health.historyMinutes;
    let skipped = 0;
    for (const { key, value } of records) {
      const space = key.indexOf(' ');
      const operation = key.slice(space + 1);
      let read: { minute: MinuteCounts; firstAt: number | undefined };
      try {
        if (space < 1 || !operation || operation.length > MAX_OPERATION_CHARS) throw new BadRecord('not a key of this collection');
        read = readMinute(value, now);
      } catch {
        skipped++;
        continue;
      }
      const { minuteStart } = read.minute;
      // Another slot than its minute's: another writer's, or limits.history-minutes changed.
      if (keyOf(minutes, operation, minuteStart) !== key) {
        skipped++;
        this.sink.delete(this.collection, key);
        continue;
      }
      // Left the history: nothing to restore, and no history made for it.
      if (minuteStart <= minuteOf(now) - (minutes + 1) * MINUTE_MS) {
        this.sink.delete(this.collection, key);
        continue;
      }
      const history = this.health.restorableHistory(operation);
      // Beyond limits.max-operations: left in the store, as the operation is not tracked.
      if (!history) continue;
      const ahead = minuteStart > minuteOf(now);
      if (!history.merge(now, read.minute, read.firstAt) || ahead) this.sink.delete(this.collection, key);
    }
    // What this run counted is written from its first minute on; the minutes before are stored as they are.
    this.health.forEachHistory((history) => this.written.set(history, { changes: -1, minute: this.startMinute }));
    return skipped;
  }
}

function minuteOf(time: number): number {
  return Math.floor(time / MINUTE_MS) * MINUTE_MS;
}

/** `<slot> <operation>`: the slot of the minute in a history of `minutes` whole minutes and the current one. */
function keyOf(minutes: number, operation: string, minuteStart: number): string {
  return `${(minuteStart / MINUTE_MS) % (minutes + 1)} ${operation}`;
}

function recordOf(minute: MinuteCounts, firstAt: number): unknown {
  const h: number[] = [];
  for (let bucket = 0; bucket < HISTOGRAM_BUCKETS; bucket++) if (minute.histogram[bucket]! > 0) h.push(bucket, minute.histogram[bucket]!);
  const first = firstAt >= minute.minuteStart && firstAt < minute.minuteStart + MINUTE_MS;
  return { v: VERSION, m: minute.minuteStart, n: minute.count, e: minute.errors, h, ...(first && { f: firstAt }) };
}

/** A minute: its start whole minutes, errors within requests, a histogram of ascending buckets holding at most the requests. */
function readMinute(value: unknown, now: number): { minute: MinuteCounts; firstAt: number | undefined } {
  const record = fields(value);
  if (record.v !== VERSION) throw new BadRecord('another version');
  const minuteStart = countOf(record.m, 'minute');
  if (minuteStart % MINUTE_MS !== 0) throw new BadRecord('not a minute start');
  if (minuteStart > now + MAX_AHEAD_MS) throw new BadRecord('from the future');
  const count = countOf(record.n, 'requests');
  const errors = countOf(record.e, 'errors');
  if (count === 0 || errors > count) throw new BadRecord('errors exceed requests');
  const pairs = list(record, 'h', 2 * HISTOGRAM_BUCKETS + 1);
  if (pairs.length % 2 !== 0 || pairs.length > 2 * HISTOGRAM_BUCKETS) throw new BadRecord('not a histogram');
  const histogram = newHistogram();
  let latencies = 0;
  for (let i = 0; i < pairs.length; i += 2) {
    const bucket = countOf(pairs[i], 'bucket');
    const n = countOf(pairs[i + 1], 'bucket count');
    if (bucket >= HISTOGRAM_BUCKETS || (i > 0 && bucket <= (pairs[i - 2] as number)) || n === 0 || n > 0xffffffff) throw new BadRecord('not a histogram');
    histogram[bucket] = n;
    latencies += n;
  }
  if (latencies > count) throw new BadRecord('more latencies than requests');
  const firstAt = record.f === undefined ? undefined : countOf(record.f, 'first request');
  if (firstAt !== undefined && (firstAt < minuteStart || firstAt >= minuteStart + MINUTE_MS)) throw new BadRecord('first request outside its minute');
  return { minute: { minuteStart, count, errors, histogram }, firstAt };
}
