/** z-score anomalies in both modes: semantics, persistence, span attributes, rate-limited events. */
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

  it('zscore mode: z = (latency - mean) / stddev, score = min(1, |z| / 4), every anomaly sustained', () => {
    const detector = new AnomalyDetector({ mode: 'zscore', threshold: 3 });
    const z = (10 + 3.2 * stats.stddev - stats.mean) / stats.stddev;
    expect(detector.check('op', 10 + 3.2 * stats.stddev, stats)).toEqual({ zScore: z, score: Math.min(1, Math.abs(z) / 4), sustained: true });
    expect(detector.check('op', 10 + 2.9 * stats.stddev, stats)).toBeUndefined();
    expect(detector.check('op', 100, stats)!.score).toBe(1);
    expect(detector.check('op', 10 - 3.5 * stats.stddev, stats)!.zScore).toBeLessThan(-3);
  });

  it('robust mode: z on log latency, sustained only after `persistence` consecutive anomalies', () => {
    const detector = new AnomalyDetector({ mode: 'robust', threshold: 3, persistence: 3 });
    expect(detector.check('op', 40, stats)!.sustained).toBe(false);
    expect(detector.check('op', 40, stats)!.sustained).toBe(false);
    expect(detector.check('op', 10, stats)).toBeUndefined();
    expect(detector.check('op', 40, stats)!.sustained).toBe(false);
    expect(detector.check('op', 40, stats)!.sustained).toBe(false);
    const third = detector.check('op', 40, stats)!;
    expect(third.sustained).toBe(true);
    expect(third.zScore).toBeCloseTo((Math.log(40) - stats.logMean) / stats.logStddev, 12);
    expect(detector.check('op', 40, undefined)).toBeUndefined();
  });

  it('robust mode: a deviation under minLatencyDeviationMs is flagged but never sustained', () => {
    const fast = windowOf([0.28, 0.3, 0.32, 0.3, 0.28, 0.32, 0.3, 0.3, 0.28, 0.32]);
    const detector = new AnomalyDetector({ mode: 'robust', threshold: 3, persistence: 3, minLatencyDeviationMs: 1 });
    const jitter = [1, 2, 3, 4].map(() => detector.check('fast', 0.9, fast)!);
    expect(jitter.every((a) => a.zScore > 3 && !a.sustained)).toBe(true);
    const slow = [1, 2, 3].map(() => detector.check('fast', 1.5, fast)!);
    expect(slow.map((a) => a.sustained)).toEqual([false, false, true]);
  });
});

describe('anomalies through the span processor', () => {
  function learned(mode: 'robust' | 'zscore') {
    const h = engineHarness({ anomalyDetection: { mode, eventIntervalMs: 60_000 } });
    h.clock.advance(120_000);
    const latency = lognormal(seededRandom(3), 20, 0.2);
    for (let i = 0; i < 200; i++) {
      h.request('/a', latency());
      h.clock.advance(50);
    }
    // Past the event interval, so detections while learning do not rate-limit the test's own.
    h.clock.advance(61_000);
    h.events.length = 0;
    return h;
  }

  it('writes svc.anomaly.* on the anomalous span and emits svc.anomaly.detected with the spec fields', () => {
    const h = learned('zscore');
    const attributes = h.request('/a', 400);
    expect(attributes).toMatchObject({ 'svc.anomaly.detected': true, 'svc.anomaly.score': 1 });
    expect(attributes['svc.anomaly.latency_z_score']).toBeGreaterThan(3);
    const [event] = h.eventsNamed('svc.anomaly.detected');
    expect(event!.severity).toBe('WARN');
    expect(event!.body).toMatchObject({ operation: 'GET /a', latency_ms: 400, anomaly_score: 1, z_score: attributes['svc.anomaly.latency_z_score'] });
    // suppressed_count appears when earlier detections of this kind were rate-limited
    expect(Object.keys(event!.body).filter((k) => k !== 'suppressed_count').sort()).toEqual(['anomaly_score', 'latency_ms', 'operation', 'z_score']);
    expect(h.request('/a', 20)).not.toHaveProperty('svc.anomaly.detected');
  });

  it('rate-limits events per operation and pattern, counting what it suppressed', () => {
    const h = learned('zscore');
    // Isolated spikes, so only the z-score fires (no latency_degradation over the recent window).
    for (let i = 0; i < 5; i++) {
      h.request('/a', 400);
      for (let j = 0; j < 8; j++) h.request('/a', 20);
      h.clock.advance(1000);
    }
    const zScoreEvents = () => h.eventsNamed('svc.anomaly.detected').filter((e) => e.body.pattern === undefined);
    expect(zScoreEvents()).toHaveLength(1);
    h.clock.advance(60_000);
    h.request('/a', 400);
    expect(h.patternsSeen()).toEqual([]);
    expect(zScoreEvents()).toHaveLength(2);
    expect(zScoreEvents()[1]!.body.suppressed_count).toBe(4);
  });

  it('robust mode flags a single outlier on its span but emits no event for it', () => {
    const h = learned('robust');
    expect(h.request('/a', 400)['svc.anomaly.detected']).toBe(true);
    h.request('/a', 20);
    expect(h.eventsNamed('svc.anomaly.detected')).toEqual([]);
    h.request('/a', 400);
    h.request('/a', 400);
    h.request('/a', 400);
    expect(h.eventsNamed('svc.anomaly.detected').filter((e) => e.body.pattern === undefined)).toHaveLength(1);
  });

  it('anomaly-detection disabled: no anomaly attributes or events', () => {
    const h = engineHarness({ anomalyDetection: { enabled: false } });
    for (let i = 0; i < 50; i++) h.request('/a', 20);
    expect(h.request('/a', 4000)).not.toHaveProperty('svc.anomaly.detected');
    expect(h.events).toEqual([]);
  });
});
