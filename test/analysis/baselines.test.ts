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

/** The reference: the last `capacity` latencies sorted, NaN first (a NaN latency is in bucket 0, below every other). */
class SortedWindow {
  private readonly kept: number[] = [];
  private readonly numbers: number[] = [];
  private nans = 0;

  constructor(readonly capacity: number) {}

  get count(): number {
    return this.kept.length;
  }

  add(value: number): void {
    if (this.kept.length === this.capacity) {
      const old = this.kept.shift()!;
      if (Number.isNaN(old)) this.nans--;
      else this.numbers.splice(this.lowerBound(old), 1);
    }
    this.kept.push(value);
    if (Number.isNaN(value)) this.nans++;
    else this.numbers.splice(this.lowerBound(value), 0, value);
  }

  clear(): void {
    this.kept.length = this.numbers.length = this.nans = 0;
  }

  /** The nearest-rank percentile q, 0 when empty. */
  at(q: number): number {
    return this.kept.length ? this.atRank(this.rankOf(q)) : 0;
  }

  /** Whether the rank of q moved by one place off the latencies equal to `last`, the value read before. */
  movedByOne(last: number, q: number): boolean {
    if (Number.isNaN(last) || !this.kept.length) return false;
    const rank = this.rankOf(q);
    return this.atRank(rank) !== last && (this.atRank(rank - 1) === last || this.atRank(rank + 1) === last);
  }

  private rankOf(q: number): number {
    return Math.min(this.kept.length - 1, Math.max(0, Math.ceil(q * this.kept.length) - 1));
  }

  private atRank(rank: number): number {
    return rank < this.nans ? Number.NaN : this.numbers[rank - this.nans]!;
  }

  private lowerBound(value: number): number {
    let lo = 0;
    let hi = this.numbers.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.numbers[mid]! < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
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

  it('reads what sorting the window gives after every add, as the ranks of p50 and p99 walk by one place (seeded)', () => {
    const random = seededRandom(23);
    const lognormalLatency = lognormal(random, 20, 0.5);
    const sources: Record<string, () => number> = {
      lognormal: lognormalLatency,
      'three values': () => [5, 12, 30][Math.floor(random() * 3)]!,
      'forty values': () => 5 + Math.floor(random() * 40),
      // Every latency in one bucket: a step that scans reads the whole window.
      'one bucket': () => 20 + random() / 10,
      'with NaN': () => (random() < 0.03 ? Number.NaN : random() < 0.3 ? 7 : lognormalLatency()),
      // NaN latencies are never tracked: often the p50 here.
      'half NaN': () => (random() < 0.5 ? Number.NaN : 5 + Math.floor(random() * 10)),
    };
    // Capacity, latencies, and how many reads at least find the rank moved by one place off the value read before.
    for (const [capacity, source, minSteps] of [
      [1000, 'lognormal', 1000],
      [1000, 'three values', 5],
      [1000, 'one bucket', 1000],
      [200, 'forty values', 200],
      [200, 'with NaN', 1000],
      [30, 'three values', 100],
      [20, 'half NaN', 200],
      [7, 'with NaN', 1000],
      [2, 'forty values', 500],
      [1, 'lognormal', 0],
    ] as const) {
      const draw = sources[source]!;
      const window = new RollingWindow(capacity);
      const sorted = new SortedWindow(capacity);
      let steps = 0;
      let previous = { p50: Number.NaN, p99: Number.NaN };
      for (let segment = 0; segment < 30; segment++) {
        // Each segment pushes the rank of p50 or p99: latencies alternately below and above it, or a run on one side, or as drawn.
        const target = random() < 0.5 ? 0.5 : 0.99;
        const pattern = Math.floor(random() * 3);
        const run = 1 + Math.floor(random() * 20);
        if (random() < 0.02) {
          window.clear();
          sorted.clear();
        }
        for (let i = 0; i < 100; i++) {
          const pushDown = pattern === 0 ? i % 2 === 0 : Math.floor(i / run) % 2 === 0;
          let value = draw();
          for (let tries = 0; pattern < 2 && tries < 20 && sorted.count > 0 && (pushDown ? !(value < sorted.at(target)) : !(value > sorted.at(target))); tries++) value = draw();
          window.add(value, false);
          sorted.add(value);
          const expected = { p50: sorted.at(0.5), p99: sorted.at(0.99) };
          const label = `${capacity}/${source}/${segment}/${i}`;
          if (i % 10 === 9) {
            // A third percentile is not tracked, and reading it leaves the tracked ones as they were.
            const q = random();
            expect(window.percentiles(0.5, 0.99, q), label).toEqual([expected.p50, expected.p99, sorted.at(q)]);
          } else {
            expect(window.percentile(0.5, 0), label).toBe(expected.p50);
            expect(window.percentile(0.99, 1), label).toBe(expected.p99);
          }
          if (sorted.movedByOne(previous.p50, 0.5) || sorted.movedByOne(previous.p99, 0.99)) steps++;
          previous = expected;
        }
      }
      expect(steps, `${capacity}/${source}`).toBeGreaterThanOrEqual(minSteps);
    }
  });

  it('steps to a neighbour only while it is in the window, and never adopts a latency beyond a neighbour it does not know', () => {
    const window = new RollingWindow(5);
    for (const value of [4, 1, 2, 3, 5]) window.add(value, false);
    // Rank 2 of 1 2 3 4 5: 3, with 2 below it and 4 above it.
    expect(window.percentile(0.5, 0)).toBe(3);
    // 4 leaves, so the value above 3 is unknown; 9 enters beyond it, 8 too while 1 leaves: 2 3 5 8 9.
    window.add(9, false);
    expect(window.percentile(0.5, 0)).toBe(3);
    window.add(8, false);
    expect(window.percentile(0.5, 0)).toBe(5);
    // Ties: 2 2 3 5 5 read 3, with 2 twice below it and 5 twice above it.
    const ties = new RollingWindow(5);
    for (const value of [5, 2, 3, 5, 2]) ties.add(value, false);
    expect(ties.percentile(0.5, 0)).toBe(3);
    // A 5 leaves (one stays above), 1 enters: 1 2 2 3 5, a step down to the 2s.
    ties.add(1, false);
    expect(ties.percentile(0.5, 0)).toBe(2);
    // A 2 leaves (one stays), 7 enters: 1 2 3 5 7, a step up to 3.
    ties.add(7, false);
    expect(ties.percentile(0.5, 0)).toBe(3);
    // 3 leaves, 6 enters beyond the unknown value above it: 1 2 5 6 7.
    ties.add(6, false);
    expect(ties.percentile(0.5, 0)).toBe(5);
    // 5 leaves, 0 enters: 0 1 2 6 7, a step down from a value no longer in the window.
    ties.add(0, false);
    expect(ties.percentile(0.5, 0)).toBe(2);
    // The last 2 leaves as another enters, then 1 leaves and 9 enters: 0 2 6 7 9.
    ties.add(2, false);
    expect(ties.percentile(0.5, 0)).toBe(2);
    ties.add(9, false);
    expect(ties.percentile(0.5, 0)).toBe(6);
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
