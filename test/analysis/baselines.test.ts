/** Rolling window statistics, snapshots, confidence and the composite baseline chain. */
import { describe, expect, it } from 'vitest';
import { CompositeBaselineProvider, DefaultBaselineProvider, StaticBaselineProvider } from '../../src/analysis/baseline.js';
import { RollingBaselineProvider } from '../../src/analysis/rolling-baseline-provider.js';
import { RollingWindow } from '../../src/analysis/rolling-window.js';
import { lognormal, seededRandom } from '../support/random.js';

function direct(values: number[]) {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const stddev = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length);
  const logs = values.map(Math.log);
  const logMean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const logStddev = Math.sqrt(logs.reduce((a, b) => a + (b - logMean) ** 2, 0) / logs.length);
  return { mean, stddev, logMean, logStddev };
}

describe('RollingWindow', () => {
  it('keeps the statistics of exactly the last `capacity` observations', () => {
    const latency = lognormal(seededRandom(1), 20, 0.5);
    const window = new RollingWindow(100);
    const all: number[] = [];
    for (let i = 0; i < 2345; i++) {
      const value = latency();
      all.push(value);
      window.add(value, i % 7 === 0);
    }
    const last = all.slice(-100);
    const expected = direct(last);
    const stats = window.stats();
    expect(stats.count).toBe(100);
    expect(stats.mean).toBeCloseTo(expected.mean, 9);
    expect(stats.stddev).toBeCloseTo(expected.stddev, 9);
    expect(stats.logMean).toBeCloseTo(expected.logMean, 9);
    expect(stats.logStddev).toBeCloseTo(expected.logStddev, 9);
    expect(stats.errorRate).toBe(last.filter((_, i) => (2245 + i) % 7 === 0).length / 100);
    const sorted = [...last].sort((a, b) => a - b);
    expect(window.percentiles(0.5, 0.99)).toEqual([sorted[49], sorted[98]]);
  });

  it('selects the same percentiles as the sorted window, for any sizes, duplicates and order of qs, and again after a change', () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (const [capacity, adds, distinct] of [
      [1000, 1500, 1_000_000],
      [1000, 700, 5],
      [10, 3, 1],
      [100, 100, 1_000_000],
    ] as const) {
      const window = new RollingWindow(capacity);
      const all: number[] = [];
      for (let i = 0; i < adds; i++) {
        const value = Math.floor(random() * distinct) / 10;
        all.push(value);
        window.add(value, false);
      }
      const kept = all.slice(-capacity).sort((a, b) => a - b);
      const rank = (q: number) => kept[Math.min(kept.length - 1, Math.max(0, Math.ceil(q * kept.length) - 1))];
      expect(window.percentiles(0.99, 0.5, 0.9), `${capacity}/${adds}/${distinct}`).toEqual([rank(0.99), rank(0.5), rank(0.9)]);
      expect(window.percentiles(0.99, 0.5, 0.9)).toEqual([rank(0.99), rank(0.5), rank(0.9)]);
      // A change is seen at the next read.
      window.add(1e9, false);
      expect(window.percentiles(1)).toEqual([1e9]);
    }
  });

  it('keeps exact percentiles while observations leave and after clear(), from below 0.01 ms to beyond 180 s', () => {
    const random = seededRandom(3);
    const qs = [0, 0.01, 0.25, 0.5, 0.9, 0.99, 1];
    for (const capacity of [1, 7, 1000]) {
      const window = new RollingWindow(capacity);
      let kept: number[] = [];
      for (let i = 0; i < 5000; i++) {
        if (random() < 0.001) {
          window.clear();
          kept = [];
        }
        // 1e-4 ms to 1e6 ms, a tenth of them equal to another.
        const value = random() < 0.1 && kept.length ? kept[Math.floor(random() * kept.length)]! : 10 ** (random() * 10 - 4);
        window.add(value, false);
        kept.push(value);
        if (kept.length > capacity) kept.shift();
        if (i % 97 === 0 || i === 4999) {
          const sorted = [...kept].sort((a, b) => a - b);
          const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
          expect(window.percentiles(...qs), `${capacity}/${i}`).toEqual(qs.map(rank));
        }
      }
    }
  });

  it('stays exact when read after every observation, as the tracked p50 and p99 step from value to value', () => {
    const random = seededRandom(11);
    for (const [capacity, distinct] of [
      [1000, 1_000_000],
      [1000, 40],
      [50, 3],
      [2, 1_000_000],
    ] as const) {
      const window = new RollingWindow(capacity);
      let kept: number[] = [];
      for (let i = 0; i < 4000; i++) {
        if (random() < 0.0005) {
          window.clear();
          kept = [];
        }
        // A burst now and then moves the ranks by many places at once; reads skip some observations.
        const burst = random() < 0.01 ? 1 + Math.floor(random() * 50) : 1;
        for (let b = 0; b < burst; b++) {
          const value = (1 + Math.floor(random() * distinct)) / (distinct > 1000 ? 1000 : 1);
          window.add(value, false);
          kept.push(value);
          if (kept.length > capacity) kept.shift();
        }
        if (random() < 0.2) continue;
        const sorted = [...kept].sort((a, b) => a - b);
        const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
        expect(window.percentiles(0.5, 0.99), `${capacity}/${distinct}/${i}`).toEqual([rank(0.5), rank(0.99)]);
        // Reads of other quantiles in between retrack the values and stay exact too.
        if (i % 500 === 0) expect(window.percentiles(0.9, 0.1, 0.5)).toEqual([rank(0.9), rank(0.1), rank(0.5)]);
      }
    }
  });

  it('starts over after clear(), and takes a log latency the caller already has', () => {
    const window = new RollingWindow(10);
    for (let i = 1; i <= 25; i++) window.add(i, true);
    window.clear();
    expect(window.stats()).toEqual({ count: 0, mean: 0, stddev: 0, logMean: 0, logStddev: 0, errorRate: 0 });
    window.add(2, false, Math.log(2));
    window.add(8, true);
    window.add(0, false);
    const stats = window.stats();
    expect(stats.count).toBe(3);
    expect(stats.mean).toBeCloseTo(10 / 3, 12);
    expect(stats.errorRate).toBeCloseTo(1 / 3, 12);
    // 0 ms is clamped to 0.001 ms before its log is taken
    expect(stats.logMean).toBeCloseTo((Math.log(2) + Math.log(8) + Math.log(0.001)) / 3, 12);
    expect(window.percentiles(0.5)).toEqual([2]);
  });
});

describe('RollingBaselineProvider', () => {
  it('has no snapshot before the minimum samples, then p50, p99, mean, stddev, error rate, count and confidence', () => {
    const provider = new RollingBaselineProvider(1000, 10);
    for (let i = 1; i <= 9; i++) provider.record('op', i, false);
    expect(provider.getSnapshot('op')).toBeUndefined();
    expect(provider.getBaseline('op')).toBeUndefined();
    provider.record('op', 10, true);
    expect(provider.getSnapshot('op')).toEqual({ p50: 5, p99: 10, mean: 5.5, stddev: Math.sqrt(8.25), errorRate: 0.1, sampleCount: 10, confidence: 'LOW' });
    expect(provider.getBaseline('op')).toEqual({ latencyP50Ms: 5, latencyP99Ms: 10, errorRate: 0.1, learned: true });
    for (let i = 0; i < 90; i++) provider.record('op', 5, false);
    expect(provider.getSnapshot('op')!.confidence).toBe('HIGH');
  });

  it('is bounded in operations and counts the overflow', () => {
    const overflowed: number[] = [];
    const provider = new RollingBaselineProvider(10, 1, 3, (capacity) => overflowed.push(capacity));
    for (const op of ['a', 'b', 'c', 'd', 'e']) provider.record(op, 1, false);
    expect(provider.operations()).toEqual(['a', 'b', 'c']);
    expect(provider.overflow).toBe(2);
    expect(overflowed).toEqual([3]);
  });
});

describe('CompositeBaselineProvider', () => {
  it('returns the first non-empty baseline: static, then rolling, then default', () => {
    const fixed = { latencyP50Ms: 10, latencyP99Ms: 50, errorRate: 0.001 };
    const fallback = { latencyP50Ms: 100, latencyP99Ms: 1000, errorRate: 0.01 };
    const rolling = new RollingBaselineProvider(100, 2);
    rolling.record('live', 30, false);
    rolling.record('live', 40, false);
    rolling.record('configured', 999, false);
    rolling.record('configured', 999, false);
    const chain = new CompositeBaselineProvider([new StaticBaselineProvider({ configured: fixed }), rolling, new DefaultBaselineProvider(fallback)]);
    expect(chain.getBaseline('configured')).toBe(fixed);
    expect(chain.getBaseline('live')).toEqual({ latencyP50Ms: 30, latencyP99Ms: 40, errorRate: 0, learned: true });
    expect(chain.getBaseline('unknown')).toBe(fallback);
  });
});
