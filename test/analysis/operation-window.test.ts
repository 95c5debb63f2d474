/** The pattern detectors' window: one-second buckets advanced by the clock, verdicts over a ladder of horizons judged in thirds. */
import { describe, expect, it } from 'vitest';
import { OperationWindow, type WindowReference } from '../../src/analysis/patterns/operation-window.js';

const rules = { bucketMs: 1000, horizons: [3, 6, 12, 24, 48, 96], minSamples: 10 };
const thresholds = { degradationFactor: 1.5, slowFactor: 1.2, minLatencyDeviationMs: 1, errorRateExcess: 0.1, errorRateFloor: 0.01, outageErrorRate: 0.5, minSurprise: 21 };
/** Normal: p50 20 ms, 5 % of requests slower than 30 ms, 1 % errors. */
const reference: WindowReference = { p50Ms: 20, slowShare: 0.05, meanLog: Math.log(20), sigmaLog: 0.3, errorRate: 0.01 };

/** One request per `gapMs` from `fromMs` for `ms`, at `latencyMs`; judges every horizon at each closed bucket. Returns the next time. */
function feed(window: OperationWindow, fromMs: number, ms: number, gapMs: number, latencyMs: number, isError = false): number {
  window.slowAboveMs = thresholds.degradationFactor * (reference.p50Ms ?? 0);
  let t = fromMs;
  for (; t < fromMs + ms; t += gapMs) if (window.add(t, Math.log(latencyMs), latencyMs, isError)) judge(window);
  return t;
}

/** Sets each verdict from the shortest horizon that shows it, as the matcher does. */
function judge(window: OperationWindow): void {
  window.prepare();
  const shortest = { degraded: 0, slow: 0, failing: 0, outage: 0 };
  for (const buckets of [...rules.horizons].reverse()) {
    const v = window.judgeHorizon(buckets, reference, thresholds, false);
    for (const kind of ['degraded', 'slow', 'failing', 'outage'] as const) if (v[kind]) shortest[kind] = buckets;
  }
  window.degraded.set(shortest.degraded > 0, 0, shortest.degraded * 1000);
  window.failing.set(shortest.failing > 0, 0, shortest.failing * 1000);
  window.outage.set(shortest.outage > 0, 0, shortest.outage * 1000);
}

describe('OperationWindow', () => {
  it('is degraded once every third of a horizon is slow, at the shortest horizon the traffic allows', () => {
    const window = new OperationWindow(rules);
    let t = feed(window, 0, 60_000, 100, 20);
    expect(window.degraded.holds).toBe(false);
    t = feed(window, t, 2_000, 100, 60);
    expect(window.degraded.holds, 'two slow seconds are not three thirds').toBe(false);
    t = feed(window, t, 2_000, 100, 60);
    expect(window.degraded.holds).toBe(true);
    expect(window.degraded.horizonMs).toBe(3000);
    feed(window, t, 5_000, 100, 20);
    expect(window.degraded.holds).toBe(false);
  });

  it('needs min-samples requests in a horizon: one a second takes a 12 s horizon', () => {
    const window = new OperationWindow(rules);
    let t = feed(window, 0, 30_000, 1000, 20);
    t = feed(window, t, 7_000, 1000, 80);
    expect(window.degraded.holds, '7 slow requests: too few for a 6 s horizon, too few slow for a 12 s one').toBe(false);
    feed(window, t, 6_000, 1000, 80);
    expect(window.degraded.holds).toBe(true);
    expect(window.degraded.horizonMs).toBe(12_000);
  });

  it('a stall that slows one second of requests makes no verdict, however many requests it held', () => {
    const window = new OperationWindow(rules);
    let t = feed(window, 0, 30_000, 1, 20);
    t = feed(window, t, 1000, 1, 250);
    feed(window, t, 30_000, 1, 20);
    expect(window.degraded.holds).toBe(false);
    expect(window.deviatedAtMs).toBe(Number.NEGATIVE_INFINITY);
  });

  it('an error spike above normal in every third is failing; most requests failing is an outage', () => {
    const window = new OperationWindow(rules);
    let t = 0;
    for (let i = 0; i < 600; i++) t = feed(window, t, 100, 100, 20, i % 5 === 0); // 20 % errors
    expect(window.failing.holds).toBe(true);
    expect(window.outage.holds).toBe(false);
    t = feed(window, t, 4_000, 100, 20, true);
    expect(window.outage.holds).toBe(true);
  });

  it('clears buckets an idle gap skipped over', () => {
    const window = new OperationWindow(rules);
    const t = feed(window, 0, 40_000, 100, 60);
    expect(window.degraded.holds).toBe(true);
    feed(window, t + 3_600_000, 2000, 100, 60);
    expect(window.degraded.holds).toBe(false);
  });
});
