/**
 * Per-minute history of one operation for the last `minutes` whole minutes and the current one: request count, errors and
 * a latency histogram per minute, in a time ring (src/analysis/time-ring.ts). Trend analysis reads
 * it; health reads its last few minutes. A minute without traffic allocates nothing.
 *
 * The last few minutes' histograms are also kept summed (the minutes health reads), with their
 * requests, errors and ranked latencies, added to as requests arrive while the minute stays the
 * same and rebuilt by the first read of a new minute: a read of the recent minutes walks one
 * histogram, not one per minute, and counts nothing.
 *
 * Each minute knows how much of it was observed: from the history's first request (or the
 * minute's start) to the minute's end (or now), so readers can weigh a partial first or current
 * minute by that fraction.
 */
import { bucketOfLog, HISTOGRAM_BUCKETS, histogramPercentile, newHistogram, percentileOfCounted } from './latency-histogram.js';
import { logLatency } from './log-latency.js';
import { TimeRing } from './time-ring.js';

const MINUTE_MS = 60_000;
const COUNT = 0;
const ERRORS = 1;

export interface MinuteStats {
  /** Start of the minute, epoch ms. */
  readonly minuteStart: number;
  /** The part of the minute observed: after the first request, up to now. */
  readonly observedMs: number;
  readonly count: number;
  readonly errors: number;
  readonly errorRate: number;
  readonly p50: number;
  readonly p99: number;
}

/** Requests, errors and latency percentiles over some minutes. */
export interface MinuteSummary {
  readonly count: number;
  readonly errors: number;
  readonly errorRate: number;
  readonly p50: number;
  readonly p99: number;
}

/** The summary of minutes without a request. */
export const NO_REQUESTS: MinuteSummary = Object.freeze({ count: 0, errors: 0, errorRate: 0, p50: 0, p99: 0 });

/** One minute's requests, errors and latency histogram (src/analysis/latency-histogram.ts). */
export interface MinuteCounts {
  readonly minuteStart: number;
  readonly count: number;
  readonly errors: number;
  readonly histogram: Uint32Array;
}

/** A minute's counts with its histogram as (bucket, count) pairs of the buckets holding any. */
export interface SparseMinute {
  readonly minuteStart: number;
  readonly count: number;
  readonly errors: number;
  readonly buckets: readonly number[];
}

export class MinuteHistory {
  private readonly ring: TimeRing;
  private readonly histograms: (Uint32Array | undefined)[];
  /** Time of the first request, epoch ms (NaN before it). */
  firstAt = Number.NaN;
  // A boolean checked per span: a double field is a heap box, one more cache line to read.
  private started = false;
  /** Counts requests added, so a summary read twice within a minute without traffic is computed once. */
  private writes = 0;
  private summaryOf: CachedSummary | undefined;
  /** The histograms of the last `recentMinutes` minutes summed, while the ring's newest minute is `recentBucket`. */
  private readonly recentSum = newHistogram();
  // -1, not NaN: a whole number stays a small integer in the field, read per span without a heap box.
  private recentBucket = -1;
  private recentMinutes = 0;
  private recentRequests = 0;
  private recentErrors = 0;
  /** The latencies `recentSum` ranks: a NaN latency counts as a request but has no bucket. */
  private recentLatencies = 0;

  /** Keeps `minutes` whole minutes and the current one. */
  constructor(readonly minutes: number) {
    this.histograms = new Array<Uint32Array | undefined>(minutes + 1).fill(undefined);
    this.ring = new TimeRing(MINUTE_MS, minutes + 1, 2, (slot) => this.histograms[slot]?.fill(0));
  }

  /** `log` is `logLatency(latencyMs)`, for callers that have it already. */
  add(now: number, latencyMs: number, isError: boolean, log = logLatency(latencyMs)): void {
    if (!this.started) {
      this.started = true;
      this.firstAt = now;
    }
    this.writes++;
    const slot = this.ring.add(now, COUNT);
    if (isError) this.ring.addTo(slot, ERRORS);
    const bucket = bucketOfLog(log);
    (this.histograms[slot] ??= newHistogram())[bucket]!++;
    if (this.ring.newestBucket === this.recentBucket) {
      this.recentRequests++;
      if (isError) this.recentErrors++;
      if (Number.isNaN(bucket)) return;
      this.recentSum[bucket]!++;
      this.recentLatencies++;
    }
  }

  /**
   * Adds a minute counted elsewhere (a previous run's, read back from the state store) to the
   * minute it started in: one that left the history is dropped (returns false), one ahead of now
   * counts in the current minute. `firstAt`, the first request's time when it was in that minute,
   * moves the history's first request earlier (else the minute's start does).
   */
  merge(now: number, minute: SparseMinute, firstAt = minute.minuteStart): boolean {
    const slot = this.ring.addAt(now, Math.floor(minute.minuteStart / MINUTE_MS), COUNT, minute.count);
    if (slot < 0) return false;
    this.ring.addTo(slot, ERRORS, minute.errors);
    const histogram = (this.histograms[slot] ??= newHistogram());
    const { buckets } = minute;
    for (let i = 0; i < buckets.length; i += 2) histogram[buckets[i]!]! += buckets[i + 1]!;
    const first = Math.min(firstAt, now);
    if (!this.started || first < this.firstAt) {
      this.started = true;
      this.firstAt = first;
    }
    this.writes++;
    // The recent minutes are summed afresh at the next read.
    this.recentBucket = -1;
    return true;
  }

  /** The minutes of the last `count` minutes (oldest first) that saw traffic. */
  private recent(now: number, count: number): { start: number; slot: number }[] {
    return this.ring.buckets(now, count).filter((b) => this.ring.get(b.slot, COUNT) > 0);
  }

  /** The part of the minute starting at `start` observed by `now`. */
  observedMs(start: number, now: number): number {
    const from = Number.isNaN(this.firstAt) ? start : Math.max(start, this.firstAt);
    return Math.max(0, Math.min(start + MINUTE_MS, now) - from);
  }

  /** Totals over the last `count` minutes; the same until a request is added or the minute turns. */
  summary(now: number, count: number): MinuteSummary {
    const minute = Math.floor(now / MINUTE_MS);
    const cached = this.summaryOf;
    if (cached && cached.writes === this.writes && cached.minute === minute && cached.count === count) return cached.value;
    const value = this.computeSummary(now, count);
    this.summaryOf = new CachedSummary(this.writes, minute, count, value);
    return value;
  }

  /** Totals and percentiles of the last `count` minutes, from their sums (rebuilt once a minute). */
  private computeSummary(now: number, count: number): MinuteSummary {
    const minutes = Math.min(count, this.ring.size);
    if (!(minutes > 0)) return NO_REQUESTS;
    const newest = this.ring.slotAt(now);
    if (this.ring.newestBucket !== this.recentBucket || minutes !== this.recentMinutes) this.sumRecent(newest, minutes);
    const requests = this.recentRequests;
    const errors = this.recentErrors;
    const p50 = percentileOfCounted(this.recentSum, this.recentLatencies, 0.5);
    const p99 = percentileOfCounted(this.recentSum, this.recentLatencies, 0.99);
    return new RecentSummary(requests, errors, p50, p99);
  }

  /** Sums the `minutes` minutes up to the one in `newest` afresh. */
  private sumRecent(newest: number, minutes: number): void {
    const sum = this.recentSum.fill(0);
    let requests = 0;
    let errors = 0;
    for (let back = minutes - 1; back >= 0; back--) {
      const slot = (newest - back + this.ring.size) % this.ring.size;
      const n = this.ring.get(slot, COUNT);
      if (n === 0) continue;
      requests += n;
      errors += this.ring.get(slot, ERRORS);
      const histogram = this.histograms[slot]!;
      for (let i = 0; i < HISTOGRAM_BUCKETS; i++) sum[i]! += histogram[i]!;
    }
    let latencies = 0;
    for (let i = 0; i < HISTOGRAM_BUCKETS; i++) latencies += sum[i]!;
    this.recentBucket = this.ring.newestBucket;
    this.recentMinutes = minutes;
    this.recentRequests = requests;
    this.recentErrors = errors;
    this.recentLatencies = latencies;
  }

  /**
   * Each minute with traffic of the last `count` minutes (oldest first) with its counts and its
   * histogram, not copied (read it before the next request): what a replica publishes to its fleet.
   */
  minuteCounts(now: number, count: number): MinuteCounts[] {
    return this.recent(now, count).map(({ start, slot }) => ({ minuteStart: start, count: this.ring.get(slot, COUNT), errors: this.ring.get(slot, ERRORS), histogram: this.histograms[slot]! }));
  }

  /** Start of the newest minute kept (-Infinity before the first request). */
  get newestMinute(): number {
    return this.ring.newestBucket * MINUTE_MS;
  }

  /** Requests added so far: while it is unchanged and the minute has not turned, every minute reads as before. */
  get changes(): number {
    return this.writes;
  }

  /**
   * The minute starting at `start` when it is still kept and saw traffic, its histogram not copied
   * (read it before the next request). Read against the newest minute kept, so a reader holding
   * an earlier `now` never gets another minute's counts: a minute gone from the ring reads as none.
   */
  minuteAt(now: number, start: number): MinuteCounts | undefined {
    const newest = this.ring.buckets(now, 1)[0]!;
    const back = Math.round((newest.start - start) / MINUTE_MS);
    if (!(back >= 0 && back <= this.minutes) || start % MINUTE_MS !== 0) return undefined;
    const slot = (newest.slot - back + this.ring.size) % this.ring.size;
    const count = this.ring.get(slot, COUNT);
    return count > 0 ? { minuteStart: start, count, errors: this.ring.get(slot, ERRORS), histogram: this.histograms[slot]! } : undefined;
  }

  /** One entry per minute with traffic over the last `count` minutes (the current one included), oldest first. */
  series(now: number, count: number): MinuteStats[] {
    return this.recent(now, count).map(({ start, slot }) => {
      const requests = this.ring.get(slot, COUNT);
      const errors = this.ring.get(slot, ERRORS);
      const histogram = [this.histograms[slot]!];
      return {
        minuteStart: start,
        observedMs: this.observedMs(start, now),
        count: requests,
        errors,
        errorRate: errors / requests,
        p50: histogramPercentile(histogram, 0.5),
        p99: histogramPercentile(histogram, 0.99),
      };
    });
  }
}

// Classes, not object literals, for the reason OperationHealth (health-aggregator.ts) gives:
// a busy health read makes both for every operation.

class CachedSummary {
  constructor(
    readonly writes: number,
    readonly minute: number,
    readonly count: number,
    readonly value: MinuteSummary,
  ) {}
}

class RecentSummary implements MinuteSummary {
  readonly errorRate: number;

  constructor(
    readonly count: number,
    readonly errors: number,
    readonly p50: number,
    readonly p99: number,
  ) {
    this.errorRate = count ? errors / count : 0;
  }
}
