/**
 * SLO budgets over their window (Google SRE workbook), on a fake clock over simulated hours, days
 * and weeks: budget, burn rates, insufficient data, the fast-burn page, alert crossings.
 */
import { describe, expect, it } from 'vitest';
import { AnalysisEngine } from '../../src/analysis/analysis-engine.js';
import { FakeClock } from '../../src/analysis/clock.js';
import { type SloAlert, type SloDefinition, SloTracker } from '../../src/analysis/slo-tracker.js';

const OP = 'GET /orders';
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function tracker(definition: Partial<SloDefinition> = {}) {
  const clock = new FakeClock();
  const slos = new SloTracker(clock);
  slos.register({ name: 'availability', operationName: OP, type: 'AVAILABILITY', target: 0.99, windowMs: DAY, ...definition });
  const alerts: SloAlert[] = [];
  /** `count` requests, one every `everyMs`, the clock moving after each; `bad(i)` says which fail. */
  const drive = (count: number, everyMs: number, bad: (i: number) => boolean = () => false) => {
    for (let i = 0; i < count; i++) {
      if (bad(i)) slos.recordFailure(OP);
      else slos.recordSuccess(OP);
      alerts.push(...slos.checkAlerts());
      clock.advance(everyMs);
    }
  };
  const status = () => slos.getStatus('availability')!;
  return { clock, slos, drive, alerts, status };
}

describe('SloTracker', () => {
  it('says the data is insufficient below min-events: one early failure is no verdict and fires nothing', () => {
    const { drive, alerts, status } = tracker({ target: 0.999, windowMs: 30 * DAY });
    drive(3, 100, (i) => i === 1);
    expect(status()).toMatchObject({ compliance: 'INSUFFICIENT_DATA', totalRequests: 3, failedRequests: 1, minEvents: 100, fastBurn: false, budgetRemaining: 1 });
    expect(alerts).toEqual([]);
    // Priced once the minimum is reached, at the rate observed by then: a sliver of a 30-day budget.
    drive(97, 100);
    expect(status().compliance).toBe('HEALTHY');
    expect(status().budgetRemaining).toBeGreaterThan(0.9999);
    expect(alerts).toEqual([]);
  });

  it("leaves the service's status alone after a fresh process's first failure", () => {
    const clock = new FakeClock();
    const engine = new AnalysisEngine({ clock });
    engine.sloTracker.register({ name: 'availability', operationName: OP, type: 'AVAILABILITY', target: 0.999 });
    const alerts: SloAlert[] = [];
    engine.onSloAlert((a) => alerts.push(a));
    for (let i = 0; i < 3; i++) {
      engine.observe(OP, 5, i === 0);
      clock.advance(300);
    }
    expect(engine.health.getHealthSummary('svc').status).toBe('HEALTHY');
    expect(engine.health.getHealthSummary('svc').slos[0]).toMatchObject({ compliance: 'INSUFFICIENT_DATA' });
    expect(alerts).toEqual([]);
  });

  it('takes the budget of the events expected over the window at the observed rate', () => {
    const { drive, status } = tracker({ target: 0.99, windowMs: DAY });
    drive(3600, SECOND); // an hour at 1 req/s: 86,400 expected over the day, 864 bad allowed
    drive(1, SECOND, () => true);
    const s = status();
    expect(s.windowEvents).toBeCloseTo(86_400, -1);
    expect(s.budgetRemaining).toBeCloseTo(1 - 1 / 864, 4);
    expect(s.burnRate).toBeCloseTo(1 / 3601 / 0.01, 6);
  });

  it('never refills the budget with good traffic; it comes back only as bad events age out (weeks)', () => {
    const { drive, status } = tracker({ target: 0.99, windowMs: 7 * DAY });
    drive(60 * 24, MINUTE); // a day at 1 req/min
    drive(20, MINUTE, () => true); // 20 failures of 100 allowed over the week
    const afterFailures = status().budgetRemaining;
    expect(afterFailures).toBeCloseTo(0.8, 1);
    let last = afterFailures;
    // Six more days, traffic tripling on day 3: the budget may only hold or fall.
    for (let hour = 0; hour < 6 * 24; hour++) {
      drive(hour < 48 ? 60 : 180, hour < 48 ? MINUTE : MINUTE / 3);
      const now = status().budgetRemaining;
      expect(now).toBeLessThanOrEqual(last);
      last = now;
    }
    expect(last).toBe(afterFailures);
    // The failures leave the window a week after they happened, and only then.
    drive(3 * 60 * 25, MINUTE / 3);
    expect(status().budgetRemaining).toBe(1);
    expect(status().failedRequests).toBe(0);
  });

  it('reaches the CRITICAL tier within the fast-burn time in a 100% outage (52 s for 99.9%); the service is CRITICAL sooner, as an outage', () => {
    const clock = new FakeClock();
    const engine = new AnalysisEngine({ clock });
    engine.sloTracker.register({ name: 'availability', operationName: OP, type: 'AVAILABILITY', target: 0.999 });
    const alerts: { at: number; alert: SloAlert }[] = [];
    engine.onSloAlert((alert) => alerts.push({ at: clock.now(), alert }));
    for (let s = 0; s < (6 * HOUR) / SECOND; s++) {
      engine.observe(OP, 5, false);
      clock.advance(SECOND);
    }
    expect(engine.health.getHealthSummary('svc').status).toBe('HEALTHY');
    const outage = clock.now();
    let criticalAt: number | undefined;
    for (let s = 0; s < 120; s++) {
      engine.observe(OP, 5, true);
      if (criticalAt === undefined && engine.health.getHealthSummary('svc').status === 'CRITICAL') criticalAt = clock.now();
      clock.advance(SECOND);
    }
    // At one request a second, an outage shows over a 12 s horizon (ten requests, four in each third).
    expect((criticalAt! - outage) / SECOND).toBeLessThanOrEqual(13);
    // 14.4 x 0.1 % of the last hour's 3,600 requests: the 52nd failure.
    expect(alerts.map((a) => [(a.at - outage) / SECOND, a.alert.severity, a.alert.trigger])).toEqual([[51, 'CRITICAL', 'fast_burn']]);
    expect(alerts[0]!.alert.burnRate).toBeGreaterThan(14.4);
    expect(alerts[0]!.alert.budgetRemaining).toBeGreaterThan(0.95); // the budget itself is barely touched yet
    const reasons = engine.health.getHealthSummary('svc').reasons;
    expect(reasons).toContain('SLO availability fast burn');
    expect(reasons.some((r) => r.startsWith(`${OP} outage: most requests failing since`))).toBe(true);
  });

  it('pages a fresh process with a 100% outage as soon as it has min-events (10 s at 10 req/s)', () => {
    const { drive, alerts } = tracker({ target: 0.999, windowMs: 30 * DAY });
    drive(100, 100, () => true);
    expect(alerts.map((a) => [a.severity, a.trigger])).toEqual([['CRITICAL', 'fast_burn']]);
  });

  it('alerts once per crossing of 50, 25 and 10 percent, and re-arms when the failures age out', () => {
    const { drive, alerts, status } = tracker({ target: 0.99, windowMs: DAY });
    drive(3600, SECOND);
    // 2 % errors: burn 2, no fast or slow burn; half the budget goes in 6 hours.
    drive(12 * 3600, SECOND, (i) => i % 50 === 0);
    expect(alerts.map((a) => [a.severity, a.trigger, a.threshold])).toEqual([
      ['INFO', 'budget', 0.5],
      ['WARNING', 'budget', 0.25],
      ['CRITICAL', 'budget', 0.1],
    ]);
    expect(status().compliance).toBe('AT_RISK');
    drive(3 * 3600, SECOND, (i) => i % 50 === 0);
    expect(status()).toMatchObject({ compliance: 'VIOLATED', budgetRemaining: 0 });
    expect(alerts).toHaveLength(3);
    alerts.length = 0;
    drive(DAY / SECOND, SECOND); // a clean day: every failure leaves the window
    expect(status()).toMatchObject({ compliance: 'HEALTHY', budgetRemaining: 1 });
    expect(alerts).toEqual([]);
    drive(6 * 3600, SECOND, (i) => i % 50 === 0);
    expect(alerts.map((a) => a.severity)).toEqual(['INFO']);
  });

  it('raises WARNING on a slow burn (6h and 30m above 6x)', () => {
    const { drive, alerts, status } = tracker({ target: 0.99, windowMs: 30 * DAY });
    drive(DAY / SECOND, SECOND);
    // 8 % errors: burn 8, slow but not fast; the 6 h rate passes 6 after 4.5 hours.
    drive(6 * 3600, SECOND, (i) => i % 25 < 2);
    expect(alerts.map((a) => [a.severity, a.trigger])).toEqual([['WARNING', 'slow_burn']]);
    expect(status()).toMatchObject({ slowBurn: true, fastBurn: false, compliance: 'AT_RISK' });
  });

  it('computes the multiwindow burn rates', () => {
    const { drive, status } = tracker({ target: 0.99, windowMs: DAY });
    drive(6 * 60 * 10, 6 * SECOND); // 6 hours at 10 req/min
    drive(5 * 10, 6 * SECOND, (i) => i % 5 === 0); // 5 minutes failing 20 %
    const s = status();
    // The rings count whole buckets (5 s for 5 m, 1 min for 1 h): within one bucket of exact.
    expect(s.burnRates.fiveMinutes).toBeGreaterThan(18);
    expect(s.burnRates.fiveMinutes).toBeLessThanOrEqual(20);
    expect(s.burnRates.oneHour).toBeCloseTo(10 / 600 / 0.01, 0);
    expect(s.fastBurn).toBe(false);
  });

  it('goes back to insufficient data when traffic stops for a window', () => {
    const { drive, clock, status, alerts } = tracker({ target: 0.99, windowMs: DAY });
    drive(3600, SECOND);
    clock.advance(DAY);
    expect(status()).toMatchObject({ compliance: 'INSUFFICIENT_DATA', totalRequests: 0 });
    drive(5, SECOND, () => true);
    expect(alerts).toEqual([]);
  });

  it('judges LATENCY_P99 by the threshold and AVAILABILITY by the error flag', () => {
    const { slos, clock } = tracker();
    slos.register({ name: 'latency', operationName: OP, type: 'LATENCY_P99', target: 0.9, latencyThresholdMs: 200, windowMs: DAY });
    for (let i = 0; i < 100; i++) {
      slos.record(OP, i < 5 ? 500 : 50, false);
      clock.advance(SECOND);
    }
    expect(slos.getStatus('availability')!.failedRequests).toBe(0);
    expect(slos.getStatus('latency')).toMatchObject({ failedRequests: 5, actual: 0.95, compliance: 'HEALTHY' });
  });

  it('prices the failure that brings the window to min-events once, with the ones that waited', () => {
    const { drive, slos, status } = tracker({ minEvents: 10 });
    drive(9, SECOND, (i) => i === 2);
    drive(1, SECOND, () => true);
    const [window] = slos.snapshot('availability')!.rings;
    // [bucket, events, bad events, budget spent, bad events priced]
    expect(window!.map((row) => [row[1], row[2], row[4]])).toEqual([[10, 2, 2]]);
    // Priced when the 10th came, 9 s in: 10 events in 9 s are 96,000 a day, 1 % of them allowed.
    expect(status().budgetRemaining).toBeCloseTo(1 - 2 / 960, 10);
  });

  it('rejects definitions it cannot evaluate, saying why', () => {
    const { slos } = tracker();
    expect(() => slos.register({ name: 'x', operationName: 'a', type: 'AVAILABILITY', target: 99.9 })).toThrow(/target must be a fraction/);
    expect(() => slos.register({ name: 'y', operationName: 'a', type: 'LATENCY_P99', target: 0.99 })).toThrow(/needs a latency threshold/);
    expect(() => slos.register({ name: 'z', operationName: 'a', type: 'AVAILABILITY', target: 0.99, minEvents: 0 })).toThrow(/minEvents/);
  });
});
