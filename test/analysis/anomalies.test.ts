/** The spec's per-span z-score: semantics, time-based persistence, span attributes, rate-limited events, never a detection. */
import { describe, expect, it } from 'vitest';
import { AnomalyDetector } from '../../src/analysis/anomaly-detector.js';
import { RollingWindow } from '../../src/analysis/rolling-window.js';
import { engineHarness } from '../support/engine-harness.js';
import { lognormal, seededRandom } from '../support/random.js';

function windowOf(values: number[]) {
  const window = new RollingWindow(1000);
  for (const v of values) window.add(v, false);
  return window.stats();
}

describe('AnomalyDetector', () => {
  const stats = windowOf([8, 10, 12, 10, 8, 12, 10, 10, 8, 12]);

  it('z = (latency - mean) / stddev, anomalous over the threshold, score = min(1, |z| / 4)', () => {
    const detector = new AnomalyDetector({ threshold: 3 });
    const latency = 10 + 3.2 * stats.stddev;
    const z = (latency - stats.mean) / stats.stddev;
    expect(detector.check('op', latency, stats, 0)).toEqual({ zScore: z, score: Math.min(1, Math.abs(z) / 4), sustained: false });
    expect(detector.check('op', 10 + 2.9 * stats.stddev, stats, 0)).toBeUndefined();
    expect(detector.check('op', 100, stats, 0)!.score).toBe(1);
    expect(detector.check('op', 10 - 3.5 * stats.stddev, stats, 0)!.zScore).toBeLessThan(-3);
    expect(detector.check('op', 40, undefined, 0)).toBeUndefined();
  });

  it('sustained once anomalies went on without a break for the persistence window and count', () => {
    const detector = new AnomalyDetector({ threshold: 3, persistence: 3, persistenceMs: 1000 });
    // 100 anomalous spans within 200 ms (a stall's queue draining): never sustained.
    for (let i = 0; i < 100; i++) expect(detector.check('op', 40, stats, 2 * i)!.sustained).toBe(false);
    expect(detector.check('op', 10, stats, 300)).toBeUndefined();
    // One every 500 ms: the third is 1 s after the first.
    expect([0, 500, 1000].map((t) => detector.check('op', 40, stats, 10_000 + t)!.sustained)).toEqual([false, false, true]);
  });

  it('a deviation under minLatencyDeviationMs is flagged but never sustained', () => {
    const fast = windowOf([0.28, 0.3, 0.32, 0.3, 0.28, 0.32, 0.3, 0.3, 0.28, 0.32]);
    const detector = new AnomalyDetector({ threshold: 3, persistence: 1, persistenceMs: 0, minLatencyDeviationMs: 1 });
    expect(detector.check('fast', 0.9, fast, 0)).toMatchObject({ sustained: false });
    expect(detector.check('fast', 1.5, fast, 1)).toMatchObject({ sustained: true });
  });
});

describe('anomalies through the span processor', () => {
  function learned() {
    const h = engineHarness({ anomalyDetection: { eventIntervalMs: 60_000 } });
    h.clock.advance(120_000);
    const latency = lognormal(seededRandom(3), 20, 0.2);
    for (let i = 0; i < 200; i++) {
      h.request('/a', latency());
      h.clock.advance(50);
    }
    h.clock.advance(61_000);
    h.events.length = 0;
    return h;
  }

  it('writes the spec svc.anomaly.* attributes on an anomalous span, and opens no detection for it', () => {
    const h = learned();
    const detections: unknown[] = [];
    h.engine.onDetection((d) => detections.push(d));
    const attributes = h.request('/a', 400);
    expect(attributes).toMatchObject({ 'svc.anomaly.detected': true, 'svc.anomaly.score': 1 });
    expect(attributes['svc.anomaly.latency_z_score']).toBeGreaterThan(3);
    expect(h.request('/a', 20)).not.toHaveProperty('svc.anomaly.detected');
    expect(h.eventsNamed('svc.anomaly.detected')).toEqual([]);
    expect(detections).toEqual([]);
  });

  it('emits svc.anomaly.detected with the spec fields for persistent anomalies, rate-limited with suppressed_count', () => {
    const h = learned();
    const detections: unknown[] = [];
    h.engine.onDetection((d) => detections.push(d));
    const slowFor = (ms: number) => {
      for (let t = 0; t < ms; t += 250) {
        h.request('/a', 400);
        h.clock.advance(250);
      }
    };
    slowFor(1500);
    const [event] = h.eventsNamed('svc.anomaly.detected');
    expect(event!.severity).toBe('WARN');
    expect(event!.body).toMatchObject({ operation: 'GET /a', latency_ms: 400, anomaly_score: expect.any(Number) });
    expect(Object.keys(event!.body).sort()).toEqual(['anomaly_score', 'latency_ms', 'operation', 'z_score']);
    const zScoreEvents = () => h.eventsNamed('svc.anomaly.detected').filter((e) => e.body.pattern === undefined);
    expect(zScoreEvents()).toHaveLength(1);
    h.clock.advance(60_000);
    // The baseline learned the slowness meanwhile; a longer stretch, far slower, is anomalous again.
    for (let t = 0; t < 1500; t += 250) {
      h.request('/a', 20_000);
      h.clock.advance(250);
    }
    expect(zScoreEvents()).toHaveLength(2);
    expect(zScoreEvents()[1]!.body.suppressed_count).toBeGreaterThan(0);
    expect(detections).toEqual([]);
  });

  it('anomaly-detection disabled: no anomaly attributes or events', () => {
    const h = engineHarness({ anomalyDetection: { enabled: false } });
    for (let i = 0; i < 50; i++) h.request('/a', 20);
    expect(h.request('/a', 4000)).not.toHaveProperty('svc.anomaly.detected');
    expect(h.events).toEqual([]);
  });
});
