/** SLO budgets, burn rates, compliance and alert crossings, on a fake clock. */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { SloTracker } from '../../src/analysis/slo-tracker.js';

function tracker() {
  const clock = new FakeClock();
  const slos = new SloTracker(clock);
  slos.register({ name: 'availability', operationName: 'GET /orders', type: 'AVAILABILITY', target: 0.99, windowMs: 24 * 3_600_000 });
  slos.register({ name: 'latency', operationName: 'GET /orders', type: 'LATENCY_P99', target: 0.9, latencyThresholdMs: 200, windowMs: 24 * 3_600_000 });
  return { clock, slos };
}

describe('SloTracker', () => {
  it('computes actual, budget remaining and burn rate (1.0 = budget spent by the end of the window)', () => {
    const { slos } = tracker();
    for (let i = 0; i < 995; i++) slos.recordSuccess('GET /orders');
    for (let i = 0; i < 5; i++) slos.recordFailure('GET /orders');
    const status = slos.getStatus('availability')!;
    expect(status.actual).toBeCloseTo(0.995, 10);
    expect(status.budgetRemaining).toBeCloseTo(0.5, 10); // 5 of the 10 allowed failures
    expect(status.burnRate).toBeCloseTo(0.5, 10);
    expect(status).toMatchObject({ totalRequests: 1000, failedRequests: 5, compliance: 'AT_RISK', target: 0.99 });
  });

  it('judges LATENCY_P99 by the threshold and AVAILABILITY by the error flag', () => {
    const { slos } = tracker();
    for (let i = 0; i < 100; i++) slos.record('GET /orders', i < 5 ? 500 : 50, false);
    expect(slos.getStatus('availability')!.failedRequests).toBe(0);
    expect(slos.getStatus('latency')).toMatchObject({ failedRequests: 5, actual: 0.95, budgetRemaining: 0.5 });
  });

  it('alerts once per crossing of 50, 25 and 10 percent, and re-arms on recovery', () => {
    const { clock, slos } = tracker();
    for (let i = 0; i < 995; i++) slos.recordSuccess('GET /orders');
    expect(slos.checkAlerts()).toEqual([]);
    for (let i = 0; i < 5; i++) slos.recordFailure('GET /orders'); // 5 of 1000: half the budget
    const [info] = slos.checkAlerts();
    expect(info).toEqual({ sloName: 'availability', severity: 'INFO', threshold: 0.5, budgetRemaining: 0.5, burnRate: 0.5 });
    for (let i = 0; i < 3; i++) slos.recordFailure('GET /orders'); // 8 of 1003
    expect(slos.checkAlerts().map((a) => a.severity)).toEqual(['WARNING']);
    for (let i = 0; i < 2; i++) slos.recordFailure('GET /orders'); // 10 of 1005
    expect(slos.checkAlerts().map((a) => a.severity)).toEqual(['CRITICAL']);
    slos.recordFailure('GET /orders');
    expect(slos.checkAlerts()).toEqual([]);
    // The window moves on: the failures expire, the budget recovers, and the tiers re-arm.
    clock.advance(25 * 3_600_000);
    for (let i = 0; i < 1000; i++) slos.recordSuccess('GET /orders');
    expect(slos.checkAlerts()).toEqual([]);
    expect(slos.getStatus('availability')!.budgetRemaining).toBe(1);
    for (let i = 0; i < 6; i++) slos.recordFailure('GET /orders');
    expect(slos.checkAlerts().map((a) => a.severity)).toEqual(['INFO']);
  });

  it('re-arms the tiers when failures leave the window with no new traffic', () => {
    const { clock, slos } = tracker();
    const availabilityAlerts = () => slos.checkAlerts().filter((a) => a.sloName === 'availability').map((a) => a.severity);
    for (let i = 0; i < 100; i++) slos.recordFailure('GET /orders');
    expect(availabilityAlerts()).toEqual(['INFO', 'WARNING', 'CRITICAL']);
    clock.advance(25 * 3_600_000);
    expect(slos.getStatus('availability')!.totalRequests).toBe(0); // a read moves the window first
    expect(slos.checkAlerts()).toEqual([]);
    slos.recordFailure('GET /orders');
    expect(availabilityAlerts()).toEqual(['INFO', 'WARNING', 'CRITICAL']);
  });

  it('reports VIOLATED when the budget is spent and HEALTHY with budget left', () => {
    const { slos } = tracker();
    for (let i = 0; i < 100; i++) slos.recordSuccess('GET /orders');
    expect(slos.getStatus('availability')!.compliance).toBe('HEALTHY');
    for (let i = 0; i < 5; i++) slos.recordFailure('GET /orders');
    expect(slos.getStatus('availability')).toMatchObject({ compliance: 'VIOLATED', budgetRemaining: 0 });
  });

  it('computes the multiwindow burn rates and flags a fast burn', () => {
    const { clock, slos } = tracker();
    // 6 hours of clean traffic, then 5 minutes failing 20 %.
    for (let minute = 0; minute < 360; minute++) {
      for (let i = 0; i < 10; i++) slos.recordSuccess('GET /orders');
      clock.advance(60_000);
    }
    for (let minute = 0; minute < 5; minute++) {
      for (let i = 0; i < 8; i++) slos.recordSuccess('GET /orders');
      for (let i = 0; i < 2; i++) slos.recordFailure('GET /orders');
      clock.advance(60_000);
    }
    clock.advance(-1);
    const status = slos.getStatus('availability')!;
    expect(status.burnRates.fiveMinutes).toBeCloseTo(20, 5);
    expect(status.burnRates.oneHour).toBeCloseTo(10 / 600 / 0.01, 5);
    expect(status.fastBurn).toBe(false);
    for (let i = 0; i < 150; i++) slos.recordFailure('GET /orders');
    expect(slos.getStatus('availability')!.fastBurn).toBe(true);
  });

  it('rejects definitions it cannot evaluate, saying why', () => {
    const { slos } = tracker();
    expect(() => slos.register({ name: 'x', operationName: 'a', type: 'AVAILABILITY', target: 99.9 })).toThrow(/target must be a fraction/);
    expect(() => slos.register({ name: 'y', operationName: 'a', type: 'LATENCY_P99', target: 0.99 })).toThrow(/needs a latency threshold/);
  });
});
