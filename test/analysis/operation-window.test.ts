/** The pattern detectors' time-bucketed window: buckets advanced by the clock, verdicts per closed bucket, the own-past reference. */
import { describe, expect, it } from 'vitest';
import { OperationWindow } from '../../src/analysis/patterns/operation-window.js';

const rules = { bucketMs: 5000, buckets: 6, minSamples: 10, referenceMs: 30 * 60_000, learnFromMs: 0 };
const thresholds = { degradationFactor: 2, slowFactor: 1.2, minLatencyDeviationMs: 1, errorRateExcess: 0.25 };

/** One request per `gapMs` from `fromMs` for `ms`, at `latencyMs`. */
function feed(window: OperationWindow, fromMs: number, ms: number, gapMs: number, latencyMs: number, isError = false, p50Ms = 20): number {
  let t = fromMs;
  for (; t < fromMs + ms; t += gapMs) if (window.add(t, Math.log(latencyMs), isError)) window.judge({ p50Ms, errorRate: 0 }, thresholds);
  return t;
}

describe('OperationWindow', () => {
  it('is degraded only once all but one of its six closed buckets are elevated', () => {
    const window = new OperationWindow(rules);
    let t = feed(window, 0, 60_000, 100, 20);
    expect(window.degraded).toBe(false);
    t = feed(window, t, 20_000, 100, 60);
    expect(window.degraded).toBe(false);
    t = feed(window, t, 10_000, 100, 60);
    expect(window.degraded).toBe(true);
    expect(window.slow).toBe(true);
    feed(window, t, 30_000, 100, 20);
    expect(window.degraded).toBe(false);
  });

  it('needs min-samples requests in the window, whatever the rate', () => {
    const sparse = new OperationWindow(rules);
    feed(sparse, 0, 120_000, 5000, 80); // one request per bucket: 6 in the window
    expect(sparse.degraded).toBe(false);
    const dense = new OperationWindow(rules);
    feed(dense, 0, 120_000, 2500, 80); // two per bucket: 12
    expect(dense.degraded).toBe(true);
  });

  it('clears buckets an idle gap skipped over', () => {
    const window = new OperationWindow(rules);
    const t = feed(window, 0, 40_000, 100, 60);
    expect(window.degraded).toBe(true);
    feed(window, t + 3_600_000, 1000, 100, 60);
    expect(window.degraded).toBe(false);
  });

  it("learns a reference from buckets that left the window, never from the window's own", () => {
    const window = new OperationWindow(rules);
    let t = feed(window, 0, 35_000, 100, 20);
    expect(window.referenceP50Ms()).toBeUndefined();
    t = feed(window, t, 30_000, 100, 20);
    expect(window.referenceP50Ms()).toBeCloseTo(20, 6);
    feed(window, t, 30_000, 100, 60, true);
    expect(window.referenceP50Ms()).toBeLessThan(21);
    expect(window.referenceErrorRate()).toBeLessThan(0.01);
  });
});
