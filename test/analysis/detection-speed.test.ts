/**
 * Detection as fast as the evidence allows, with nothing configured: the time to detect shrinks
 * with the size of the change and the traffic (the targets), while the quiet cases stay
 * quiet. Fake clock, seeded lognormal traffic, ten minutes of normal traffic before each change.
 */
import { describe, expect, it } from 'vitest';
import { AnalysisEngine } from '../../src/analysis/analysis-engine.js';
import { FakeClock } from '../../src/analysis/clock.js';
import type { IncidentPattern } from '../../src/analysis/pattern-matcher.js';
import { lognormal, seededRandom } from '../support/random.js';

const OP = 'GET /orders/{id}';

interface Change {
  readonly rate: number;
  readonly factor?: number;
  readonly errorRate?: number;
  readonly sigma?: number;
}

/** Seconds from the change to the first detection naming `pattern` (and whether it was an outage), or undefined within 5 minutes. */
function detect({ rate, factor = 1, errorRate = 0, sigma = 0.3 }: Change, pattern: IncidentPattern) {
  const clock = new FakeClock();
  const engine = new AnalysisEngine({ clock });
  const found: { at: number; outage: boolean }[] = [];
  engine.onDetection((d) => d.patterns.includes(pattern) && found.push({ at: d.timestamp, outage: d.outage }));
  const random = seededRandom(rate * 7 + factor);
  const latency = lognormal(random, 2, sigma);
  const gapMs = 1000 / rate;
  for (let t = 0; t < 600_000; t += gapMs) {
    engine.observe(OP, latency(), random() < 0.005);
    clock.advance(gapMs);
  }
  expect(found, 'nothing before the change').toEqual([]);
  const changeAt = clock.now();
  for (let t = 0; t < 300_000 && !found.length; t += gapMs) {
    engine.observe(OP, latency() * factor, random() < Math.max(errorRate, 0.005));
    clock.advance(gapMs);
  }
  return found.length ? { seconds: (found[0]!.at - changeAt) / 1000, outage: found[0]!.outage } : undefined;
}

describe('time to detect, nothing configured', () => {
  for (const rate of [50, 100, 1000]) {
    it(`${rate} req/s: a 5x latency shift is latency_degradation within 10 s`, () => {
      expect(detect({ rate, factor: 5 }, 'latency_degradation')!.seconds).toBeLessThanOrEqual(10);
    });
    it(`${rate} req/s: a 20-point error-rate jump is error_rate_spike within 10 s`, () => {
      expect(detect({ rate, errorRate: 0.2 }, 'error_rate_spike')!.seconds).toBeLessThanOrEqual(10);
    });
  }
  it('10 req/s: a 2x latency shift within 60 s, also with a heavy tail', () => {
    expect(detect({ rate: 10, factor: 2 }, 'latency_degradation')!.seconds).toBeLessThanOrEqual(60);
    expect(detect({ rate: 10, factor: 2, sigma: 0.8 }, 'latency_degradation')!.seconds).toBeLessThanOrEqual(60);
  });
  it('1 req/s: a 2x latency shift within 2 minutes', () => {
    expect(detect({ rate: 1, factor: 2 }, 'latency_degradation')!.seconds).toBeLessThanOrEqual(120);
  });
  for (const rate of [20, 100, 1000]) {
    it(`${rate} req/s: every request failing is an outage within 5 s`, () => {
      const outage = detect({ rate, errorRate: 1 }, 'error_rate_spike')!;
      expect(outage.seconds).toBeLessThanOrEqual(5);
      expect(outage.outage).toBe(true);
    });
  }
  it('a bigger change is found no later than a smaller one at the same rate', () => {
    const seconds = [1.5, 2, 5, 25].map((factor) => detect({ rate: 1, factor }, 'latency_degradation')?.seconds ?? Number.POSITIVE_INFINITY);
    expect(seconds).toEqual([...seconds].sort((a, b) => b - a));
  });
});
