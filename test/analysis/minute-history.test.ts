/** The recent-minutes summary health reads: the same as the minutes' requests summed afresh, across turning minutes and reads at any time. */
import { describe, expect, it } from 'vitest';
import { bucketOfLog, bucketValue } from '../../src/analysis/latency-histogram.js';
import { logLatency } from '../../src/analysis/log-latency.js';
import { MinuteHistory } from '../../src/analysis/minute-history.js';
import { seededRandom } from '../support/random.js';

const MINUTE = 60_000;

/** Nearest-rank percentile of the latencies, read as the middle of its histogram bucket. */
function bucketPercentile(latencies: readonly number[], q: number): number {
  if (latencies.length === 0) return 0;
  const sorted = [...latencies].sort((a, b) => a - b);
  return bucketValue(bucketOfLog(logLatency(sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!)));
}

describe('MinuteHistory summary', () => {
  it('counts and percentiles of exactly the last `count` minutes, the current one included, read after every change', () => {
    const random = seededRandom(5);
    const history = new MinuteHistory(60);
    const requests: { minute: number; latency: number; error: boolean }[] = [];
    let now = 1_000 * MINUTE;
    for (let i = 0; i < 3000; i++) {
      // Mostly within the minute, sometimes a jump of minutes, now and then a clock that goes back (it adds to the current minute).
      const step = random();
      now += step < 0.97 ? Math.floor(random() * 2000) : step < 0.995 ? Math.floor(random() * 8 * MINUTE) : -Math.floor(random() * MINUTE);
      const latency = 10 ** (random() * 3);
      const error = random() < 0.1;
      history.add(now, latency, error);
      const current = Math.max(Math.floor(now / MINUTE), ...requests.map((r) => r.minute));
      requests.push({ minute: current, latency, error });
      for (const count of i % 50 === 0 ? [1, 5, 15] : [5]) {
        const recent = requests.filter((r) => r.minute > current - count);
        const summary = history.summary(now, count);
        const label = `request ${i}, last ${count} minutes`;
        expect(summary.count, label).toBe(recent.length);
        expect(summary.errors, label).toBe(recent.filter((r) => r.error).length);
        expect(summary.p50, label).toBe(
          bucketPercentile(
            recent.map((r) => r.latency),
            0.5,
          ),
        );
        expect(summary.p99, label).toBe(
          bucketPercentile(
            recent.map((r) => r.latency),
            0.99,
          ),
        );
      }
    }
  });

  it('drops the minutes that left when read later without traffic', () => {
    const history = new MinuteHistory(60);
    const start = 500 * MINUTE;
    for (let minute = 0; minute < 5; minute++) for (let i = 0; i < 10; i++) history.add(start + minute * MINUTE + i, 100 * (minute + 1), minute === 0);
    expect(history.summary(start + 4 * MINUTE, 5)).toMatchObject({ count: 50, errors: 10 });
    expect(history.summary(start + 5 * MINUTE, 5)).toMatchObject({ count: 40, errors: 0, p50: bucketPercentile([300], 0.5) });
    expect(history.summary(start + 9 * MINUTE, 5)).toMatchObject({ count: 0, errors: 0, p50: 0, p99: 0 });
  });

  it('counts a request without a latency (NaN) but ranks the percentiles among the latencies, within the minute and after it turns', () => {
    const history = new MinuteHistory(60);
    const start = 700 * MINUTE;
    for (let i = 0; i < 10; i++) history.add(start + i, Number.NaN, false);
    for (const latency of [5, 6, 7]) history.add(start + 100, latency, false);
    const expected = { count: 13, p50: bucketPercentile([5, 6, 7], 0.5), p99: bucketPercentile([5, 6, 7], 0.99) };
    expect(history.summary(start + 200, 5)).toMatchObject(expected);
    // Added to the sums kept since that read, within the minute.
    for (let i = 0; i < 10; i++) history.add(start + 300, Number.NaN, i === 0);
    for (const latency of [400, 500, 600]) history.add(start + 300, latency, false);
    const latencies = [5, 6, 7, 400, 500, 600];
    const after = { count: 26, errors: 1, p50: bucketPercentile(latencies, 0.5), p99: bucketPercentile(latencies, 0.99) };
    expect(history.summary(start + 400, 5)).toMatchObject(after);
    history.add(start + MINUTE, Number.NaN, false);
    expect(history.summary(start + MINUTE + 1, 5)).toMatchObject({ ...after, count: 27 });
  });
});
