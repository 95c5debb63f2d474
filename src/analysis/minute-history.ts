/**
 * Per-minute history of one operation for the last `minutes` minutes: request count, errors and
 * a latency histogram per minute, in a ring. Trend analysis reads it; health reads its last few
 * minutes. A minute without traffic allocates nothing.
 */
import { bucketOfLog, histogramPercentile, newHistogram } from './latency-histogram.js';
import { logLatency } from './log-latency.js';

const MINUTE_MS = 60_000;

export interface MinuteStats {
  /** Start of the minute, epoch ms. */
  readonly minuteStart: number;
  readonly count: number;
  readonly errors: number;
  readonly errorRate: number;
  readonly p50: number;
  readonly p99: number;
}

// Small integers only: a double field would live in a separate heap box, one more cache line per span.
interface Minute {
  /** Minutes since the epoch (-1: never used). */
  index: number;
  count: number;
  errors: number;
  histogram: Uint32Array | undefined;
}

export class MinuteHistory {
  private readonly ring: Minute[];

  constructor(readonly minutes: number) {
    this.ring = Array.from({ length: minutes }, () => ({ index: -1, count: 0, errors: 0, histogram: undefined }));
  }

  /** `log` is `logLatency(latencyMs)`, for callers that have it already. */
  add(now: number, latencyMs: number, isError: boolean, log = logLatency(latencyMs)): void {
    const index = Math.floor(now / MINUTE_MS);
    const slot = this.ring[index % this.minutes]!;
    if (slot.index !== index) {
      slot.index = index;
      slot.count = slot.errors = 0;
      slot.histogram?.fill(0);
    }
    slot.count++;
    if (isError) slot.errors++;
    (slot.histogram ??= newHistogram())[bucketOfLog(log)]!++;
  }

  /** The minutes of the last `count` minutes (oldest first) that saw traffic. */
  private recent(now: number, count: number): Minute[] {
    const current = Math.floor(now / MINUTE_MS);
    const oldest = current - (Math.min(count, this.minutes) - 1);
    return this.ring.filter((m) => m.index >= oldest && m.index <= current && m.count > 0).sort((a, b) => a.index - b.index);
  }

  /** Totals over the last `count` minutes. */
  summary(now: number, count: number): { count: number; errors: number; errorRate: number; p50: number; p99: number } {
    const minutes = this.recent(now, count);
    let requests = 0;
    let errors = 0;
    for (const m of minutes) {
      requests += m.count;
      errors += m.errors;
    }
    const histograms = minutes.map((m) => m.histogram!);
    return {
      count: requests,
      errors,
      errorRate: requests ? errors / requests : 0,
      p50: histogramPercentile(histograms, 0.5),
      p99: histogramPercentile(histograms, 0.99),
    };
  }

  /** One entry per minute with traffic over the last `count` minutes, oldest first. */
  series(now: number, count: number): MinuteStats[] {
    return this.recent(now, count).map((m) => ({
      minuteStart: m.index * MINUTE_MS,
      count: m.count,
      errors: m.errors,
      errorRate: m.errors / m.count,
      p50: histogramPercentile([m.histogram!], 0.5),
      p99: histogramPercentile([m.histogram!], 0.99),
    }));
  }
}
