/**
 * The long memory of normal: learned over hours, never from a fault while it lasts, accepted as
 * the new normal only after `accept-after` (or a reset), kept as a record a restart brings back,
 * and steady through a day's swing in traffic. Fake clock and seeded traffic throughout.
 */
import { describe, expect, it } from 'vitest';
import { AnalysisEngine } from '../../src/analysis/analysis-engine.js';
import { FakeClock } from '../../src/analysis/clock.js';
import { readNormalRecord } from '../../src/analysis/normal-memory.js';
import { lognormal, seededRandom } from '../support/random.js';

const OP = 'GET /orders/{id}';
const HOUR = 3_600_000;

function setup(options: { acceptAfterMs?: number; seed?: number } = {}) {
  const clock = new FakeClock();
  const engine = new AnalysisEngine({ clock, acceptAfterMs: options.acceptAfterMs });
  const latency = lognormal(seededRandom(options.seed ?? 3), 1, 0.3);
  const detections: { at: number; patterns: readonly string[] }[] = [];
  engine.onDetection((d) => detections.push({ at: d.timestamp, patterns: d.patterns }));
  /** `seconds` at `rate` req/s of `medianMs` requests (a function of the time), `errorShare` failing. */
  const drive = (seconds: number, rate: number, medianMs: number | ((now: number) => number), errorShare = 0) => {
    const random = seededRandom(Math.round(seconds * rate));
    for (let i = 0; i < seconds * rate; i++) {
      const median = typeof medianMs === 'number' ? medianMs : medianMs(clock.now());
      engine.observe(OP, median * latency(), random() < errorShare);
      clock.advance(1000 / rate);
    }
  };
  return { clock, engine, detections, drive, health: () => engine.health.getOperationHealth(OP)! };
}

describe('the learned normal', () => {
  it('does not learn a fault that lasts: three minutes into a 25x slowdown the tools report it as at its start, until accept-after', () => {
    const { clock, engine, drive, health } = setup();
    drive(30, 10, 2); // warm-up: not learned
    drive(3600, 10, 2);
    const before = health().baseline!;
    expect(before.p50Source).toBe('learned');
    expect(before.latencyP50Ms).toBeGreaterThan(1.8);
    expect(before.latencyP50Ms).toBeLessThan(2.2);

    const faultAt = clock.now();
    drive(15, 10, 50);
    const early = engine.deviationNow(OP)!;
    expect(early.patterns).toContain('latency_degradation');
    const earlyScore = early.score;
    drive(165, 10, 50);
    const later = health();
    expect(later.elevated).toBe(true);
    expect(later.deviation!.patterns).toContain('latency_degradation');
    expect(later.deviation!.score).toBeGreaterThanOrEqual(earlyScore);
    expect(later.baseline!.latencyP50Ms).toBeCloseTo(before.latencyP50Ms!, 1);
    expect(later.baseline!.frozenSince).toBeGreaterThanOrEqual(faultAt - 10_000);
    expect(later.baseline!.acceptAt).toBe(later.baseline!.frozenSince! + 2 * HOUR);

    drive(2 * 3600, 10, 50); // the new level lasted accept-after: it is normal now
    const accepted = health();
    expect(accepted.baseline!.latencyP50Ms).toBeGreaterThan(40);
    expect(accepted.deviation).toBeUndefined();
    expect(accepted.baseline!.frozenSince).toBeUndefined();
  });

  it('counts only time the fault was seen: a fault, no traffic for hours, then healthy traffic keeps the normal', () => {
    const { clock, drive, health } = setup();
    drive(30 + 1800, 10, 2, 0.01);
    drive(600, 10, 2, 0.6);
    clock.advance(3 * HOUR); // traffic stops during the fault
    drive(120, 10, 2, 0.01);
    expect(health().baseline!.errorRate).toBeLessThan(0.05);
  });

  it('never accepts an outage as normal: three hours of most requests failing is still an outage', () => {
    const { engine, drive, health } = setup();
    drive(30 + 600, 10, 2, 0.005);
    drive(3 * 3600, 10, 2, 0.97);
    expect(engine.deviationNow(OP)?.outage).toBe(true);
    expect(health().baseline!.errorRate).toBeLessThan(0.05);
    expect(engine.healthSummary().status).toBe('CRITICAL');
  });

  it('a fault that ends just before accept-after is not accepted by its settling', () => {
    const { drive, health } = setup({ acceptAfterMs: 30 * 60_000 });
    drive(30 + 600, 10, 2);
    drive(29 * 60, 10, 20);
    drive(600, 10, 2);
    expect(health().baseline!.latencyP50Ms).toBeLessThan(2.5);
    expect(health().deviation).toBeUndefined();
  });

  it('keeps its figures through 8,000 requests a second and a latency that is not a number', () => {
    const { engine, drive, health } = setup();
    drive(30 + 60, 8000, 2);
    engine.observe(OP, Number.NaN, false);
    drive(60, 10, 2);
    const baseline = health().baseline!;
    expect(baseline.latencyP99Ms).toBeLessThan(10);
    expect(Number.isFinite(engine.normals.referenceOf(engine.normals.normalOf(OP))!.sigmaLog)).toBe(true);
  }, 30_000);

  it('a reset makes the current level normal at once', () => {
    const { engine, drive, health } = setup();
    drive(30 + 600, 10, 2);
    drive(60, 10, 20);
    expect(health().deviation?.patterns).toContain('latency_degradation');
    expect(engine.resetBaseline(OP)).toBe(true);
    expect(health().baselineState).toBe('learning');
    drive(300, 10, 20);
    expect(health().deviation).toBeUndefined();
    expect(health().baseline!.latencyP50Ms).toBeGreaterThan(15);
  });

  it('learns the error rate, floored: errors at the learned rate open nothing, a rise does', () => {
    const { clock, drive, detections } = setup();
    drive(30 + 1200, 10, 5, 0.03);
    expect(detections).toEqual([]);
    const spikeAt = clock.now();
    drive(60, 10, 5, 0.3);
    const first = detections.find((d) => d.patterns.includes('error_rate_spike'));
    expect(first).toBeDefined();
    expect(first!.at - spikeAt).toBeLessThanOrEqual(15_000);
  });

  it("keeps a day's swing in traffic and load quiet over two simulated days", () => {
    const { clock, drive, detections } = setup({ seed: 11 });
    const start = clock.now();
    const phase = (now: number) => Math.sin((2 * Math.PI * (now - start)) / (24 * HOUR));
    // One hour at a time: 1 to 9 req/s over the day, latency up to 1.3x at the peak.
    for (let hour = 0; hour < 48; hour++) drive(3600, Math.round(5 + 4 * phase(clock.now())), (now) => 4 * (1.15 + 0.15 * phase(now)));
    expect(detections).toEqual([]);
  }, 60_000);

  it('comes back from its record after a restart: a release slow from its first request is judged against the previous normal', () => {
    const first = setup();
    first.drive(30 + 1800, 10, 2);
    const records = first.engine.normals.takeChanged();
    expect(records.map((r) => r.key)).toEqual([OP]);
    const stored = JSON.parse(JSON.stringify(records[0]!.value));
    expect(JSON.stringify(stored).length).toBeLessThan(2048);

    const next = setup();
    next.clock.set(first.clock.now() + 60_000);
    const restarted = new AnalysisEngine({ clock: next.clock });
    const detections: number[] = [];
    restarted.onDetection((d) => d.patterns.includes('latency_degradation') && detections.push(d.timestamp));
    expect(restarted.normals.restore([{ key: OP, value: stored }])).toBe(0);
    const start = next.clock.now();
    for (let i = 0; i < 600; i++) {
      restarted.observe(OP, 10 + (i % 5), false);
      next.clock.advance(100);
    }
    expect(detections.length).toBeGreaterThan(0);
    expect(detections[0]! - start, 'not in the warm-up (patterns.warm-up, 10 s)').toBeGreaterThanOrEqual(10_000);
    expect(detections[0]! - start).toBeLessThanOrEqual(15_000);
    expect(restarted.health.getOperationHealth(OP)!.baseline!.latencyP50Ms).toBeLessThan(2.5);
  });

  it('a process stopped within its first two minutes still leaves its normal: the record holds the periods waiting their probation', () => {
    const first = setup();
    first.drive(60, 100, 2);
    const [record] = first.engine.normals.takeChanged();
    const restarted = new AnalysisEngine({ clock: first.clock });
    expect(restarted.normals.restore([{ key: OP, value: JSON.parse(JSON.stringify(record!.value)) }])).toBe(0);
    const baseline = restarted.baselinesOf(OP).baseline!;
    expect(baseline.p50Source).toBe('learned');
    expect(baseline.latencyP50Ms).toBeGreaterThan(1.8);
    expect(baseline.latencyP50Ms).toBeLessThan(2.2);
  });

  it('skips a record of another version, of the wrong shape, or with numbers that are not finite', () => {
    const { engine, drive } = setup();
    drive(30 + 600, 10, 2);
    const good = JSON.parse(JSON.stringify(engine.normals.takeChanged()[0]!.value));
    expect(readNormalRecord(good)).toBeDefined();
    expect(readNormalRecord({ ...good, v: 2 })).toBeUndefined();
    expect(readNormalRecord({ ...good, learned: good.learned.slice(1) })).toBeUndefined();
    expect(readNormalRecord({ ...good, learned: [Number.NaN, ...good.learned.slice(1)] })).toBeUndefined();
    expect(readNormalRecord({ ...good, learnedAt: -1 })).toBeUndefined();
    expect(readNormalRecord('not a record')).toBeUndefined();
    expect(
      engine.normals.restore([
        { key: OP, value: { ...good, v: 2 } },
        { key: OP, value: null },
      ]),
    ).toBe(2);
  });
});
