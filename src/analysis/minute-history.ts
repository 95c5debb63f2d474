/**
 * Per-minute history of one operation for the last `minutes` whole minutes and the current one: request count, errors and
 * a latency histogram per minute, in a time ring (src/analysis/time-ring.ts). Trend analysis reads
 * it; health reads its last few minutes. A minute without traffic allocates nothing.
 *
 * Each minute knows how much of it was observed: from the history's first request (or the
 * minute's start) to the minute's end (or now), so readers can weigh a partial first or current
 * minute by that fraction.
 */
import { bucketOfLog, HISTOGRAM_BUCKETS, histogramPercentile, histogramPercentiles, newHistogram } from './latency-histogram.js';
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

/** The sum `computeSummary` reads: summaries are computed one at a time, so one buffer serves. */
const summed = newHistogram();
const ONE_SUM: readonly Uint32Array[] = [summed];
const QUANTILES: readonly number[] = [0.5, 0.99];

export class MinuteHistory {
  private readonly ring: TimeRing;
  private readonly histograms: (Uint32Array | undefined)[];
  /** Time of the first request, epoch ms (NaN before it). */
  firstAt = Number.NaN;
  // A boolean checked per span: a double field is a heap box, one more cache line to read.
  private started = false;
  /** Counts requests added, so a summary read twice within a minute without traffic is computed once. */
  private writes = 0;
  private summaryOf: { writes: number; minute: number; count: number; value: MinuteSummary } | undefined;
  /**
   * The whole minutes of the last summary, summed: requests only ever go to the current minute (a
   * clock that goes back adds to it too), so these change only when the minute turns.
   */
  private past: { minute: number; count: number; requests: number; errors: number; readonly histogram: Uint32Array } | undefined;

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
    (this.histograms[slot] ??= newHistogram())[bucketOfLog(log)]!++;
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
    this.summaryOf = { writes: this.writes, minute, count, value };
    return value;
  }

  /** The whole minutes summed once per minute, then the current one added (a read per tool call and operation: no arrays of minutes). */
  private computeSummary(now: number, count: number): MinuteSummary {
    const minutes = Math.min(count, this.ring.size);
    if (minutes <= 0) return { count: 0, errors: 0, errorRate: 0, p50: 0, p99: 0 };
    const past = this.pastMinutes(now, minutes - 1);
    const current = this.ring.slotBefore(now, 0);
    const currentRequests = this.ring.get(current, COUNT);
    const requests = past.requests + currentRequests;
    const errors = past.errors + this.ring.get(current, ERRORS);
    summed.set(past.histogram);
    if (currentRequests > 0) {
      const histogram = this.histograms[current]!;
      for (let i = 0; i < HISTOGRAM_BUCKETS; i++) summed[i]! += histogram[i]!;
    }
    const [p50, p99] = histogramPercentiles(ONE_SUM, QUANTILES) as [number, number];
    return { count: requests, errors, errorRate: requests ? errors / requests : 0, p50, p99 };
  }

  /** The `count` whole minutes before the current one, summed; recomputed when the minute turns or `count` changes. */
  private pastMinutes(now: number, count: number): NonNullable<MinuteHistory['past']> {
    const minute = this.ring.currentBucket(now);
    const kept = this.past;
    if (kept && kept.minute === minute && kept.count === count) return kept;
    const past = kept ?? { minute, count, requests: 0, errors: 0, histogram: newHistogram() };
    past.minute = minute;
    past.count = count;
    past.requests = past.errors = 0;
    past.histogram.fill(0);
    for (let back = count; back >= 1; back--) {
      const slot = this.ring.slotBefore(now, back);
      const n = this.ring.get(slot, COUNT);
      if (n === 0) continue;
      past.requests += n;
      past.errors += this.ring.get(slot, ERRORS);
      const histogram = this.histograms[slot]!;
      for (let i = 0; i < HISTOGRAM_BUCKETS; i++) past.histogram[i]! += histogram[i]!;
    }
    this.past = past;
    return past;
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
