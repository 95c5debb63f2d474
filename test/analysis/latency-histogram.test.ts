/** The latency histogram: percentiles of several minutes at once, and the finer scale rolling windows use. */
import { describe, expect, it } from 'vitest';
import { bucketOfLog, bucketValue, fineBucketOfLog, HISTOGRAM_BUCKETS, histogramPercentiles, newHistogram, percentileOfCounted } from '../../src/analysis/latency-histogram.js';
import { logLatency } from '../../src/analysis/log-latency.js';
import { seededRandom } from '../support/random.js';

describe('histogramPercentiles', () => {
  it('reads each q as the bucket of the nearest rank of all the histograms’ latencies together', () => {
    const random = seededRandom(5);
    for (const minutes of [0, 1, 2, 5]) {
      const histograms = Array.from({ length: minutes }, newHistogram);
      const latencies: number[] = [];
      for (const h of histograms) {
        for (let i = 0; i < 1 + Math.floor(random() * 300); i++) {
          const latency = 10 ** (random() * 9 - 3);
          latencies.push(latency);
          h[bucketOfLog(logLatency(latency))]!++;
        }
      }
      latencies.sort((a, b) => a - b);
      const qs = [0, 0.01, 0.5, 0.9, 0.99, 1];
      const expected = qs.map((q) => (latencies.length ? bucketValue(bucketOfLog(logLatency(latencies[Math.max(0, Math.ceil(q * latencies.length) - 1)]!))) : 0));
      expect(histogramPercentiles(histograms, qs), `${minutes} minutes`).toEqual(expected);
    }
  });
});

describe('percentileOfCounted', () => {
  it('reads each q as the bucket of the nearest rank, from the bottom or the top, given the total', () => {
    const random = seededRandom(9);
    for (const count of [0, 1, 2, 3, 10, 99, 100, 101, 1000]) {
      const histogram = newHistogram();
      const latencies = Array.from({ length: count }, () => 10 ** (random() * 9 - 3)).sort((a, b) => a - b);
      for (const latency of latencies) histogram[bucketOfLog(logLatency(latency))]!++;
      for (const q of [0, 0.01, 0.49, 0.5, 0.51, 0.9, 0.99, 1]) {
        const expected = count ? bucketValue(bucketOfLog(logLatency(latencies[Math.max(0, Math.ceil(q * count) - 1)]!))) : 0;
        expect(percentileOfCounted(histogram, count, q), `${count} latencies, q ${q}`).toBe(expected);
      }
    }
  });
});

describe('fineBucketOfLog', () => {
  it('splits each histogram bucket into `split` buckets, in order, from below 0.01 ms to beyond 180 s', () => {
    let previous = 0;
    for (let exponent = -4; exponent <= 7; exponent += 0.001) {
      const log = logLatency(10 ** exponent);
      const fine = fineBucketOfLog(log, 4);
      expect(Math.floor(fine / 4)).toBe(bucketOfLog(log));
      expect(fine).toBeGreaterThanOrEqual(previous);
      previous = fine;
    }
    expect(previous).toBe(HISTOGRAM_BUCKETS * 4 - 1);
    expect(fineBucketOfLog(Number.NaN, 4)).toBe(0);
  });
});
