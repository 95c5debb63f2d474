/** Dependency states from the client-span error rate over a time window, with hysteresis, staleness and their events. */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { DependencyHealth } from '../../src/analysis/dependency-health.js';

function setup(options: { windowMs?: number; minCalls?: number } = {}) {
  const clock = new FakeClock();
  const events: Record<string, unknown>[] = [];
  const recovered: string[] = [];
  const health = new DependencyHealth({ clock, ...options, emit: (name, severity, body) => events.push({ name, severity, ...body }), onRecovery: (d) => recovered.push(d) });
  /** `n` calls, `gapMs` apart (100 ms: 10 calls/s). */
  const calls = (n: number, isError: boolean, gapMs = 100) => {
    for (let i = 0; i < n; i++) {
      health.record('payments', 40, isError);
      clock.advance(gapMs);
    }
  };
  return { clock, events, recovered, health, calls };
}

describe('DependencyHealth', () => {
  it('moves healthy -> degraded -> unhealthy as errors rise, with a WARN event each time', () => {
    const { events, calls, health } = setup();
    calls(18, false);
    calls(2, true);
    expect(health.status('payments')!.state).toBe('degraded');
    calls(20, true);
    expect(health.status('payments')!.state).toBe('unhealthy');
    expect(events).toEqual([
      { name: 'svc.dependency.state_change', severity: 'WARN', dependency: 'payments', previous_state: 'healthy', current_state: 'degraded', error_rate: 0.1 },
      expect.objectContaining({ previous_state: 'degraded', current_state: 'unhealthy' }),
    ]);
  });

  it('measures the calls of the window, not a count: at 1000 calls/s, 20 failures in a second of 60 s of traffic stay healthy', () => {
    const { calls, health } = setup();
    calls(59_000, false, 1);
    calls(20, true, 1);
    calls(980, false, 1);
    // 20 of about 54,000-60,000 calls in the window: far below 10 % (a 20-call window said 100 %).
    expect(health.status('payments')).toMatchObject({ state: 'healthy', stale: false });
    expect(health.status('payments')!.calls).toBeGreaterThanOrEqual(54_000);
    expect(health.status('payments')!.calls).toBeLessThanOrEqual(60_000);
  });

  it('counts calls as the calls in the window: 3 calls say 3, and none once the window passed', () => {
    const { clock, calls, health } = setup();
    calls(3, true);
    expect(health.status('payments')).toMatchObject({ state: 'healthy', errorRate: 1, calls: 3, stale: false });
    clock.advance(60_000);
    expect(health.status('payments')).toMatchObject({ calls: 0, errorRate: 0, stale: true });
  });

  it('does not flip an outage back on one success; recovers step by step as the errors age out, and reports it', () => {
    const { events, calls, health, recovered } = setup();
    calls(20, true); // 2 s of failures
    expect(health.status('payments')!.state).toBe('unhealthy');
    calls(1, false);
    expect(health.status('payments')!.state).toBe('unhealthy');
    calls(30, false); // 20 errors in 51 calls: 39 %, not yet below half of 50 %
    expect(health.status('payments')!.state).toBe('unhealthy');
    calls(40, false); // 20 in 91: 22 %
    expect(health.status('payments')!.state).toBe('degraded');
    calls(300, false); // 20 in 391: 5.1 %, not below half of 10 %
    expect(health.status('payments')!.state).toBe('degraded');
    calls(100, false); // 20 in 491: 4.1 %
    expect(health.status('payments')!.state).toBe('healthy');
    expect(events.map((e) => `${e.previous_state}->${e.current_state}`)).toEqual(['healthy->unhealthy', 'unhealthy->degraded', 'degraded->healthy']);
    expect(recovered).toEqual(['payments']);
  });

  it('needs the minimum of calls within the window to change state', () => {
    const { calls, health } = setup({ minCalls: 5 });
    calls(4, true, 20_000); // one failure every 20 s: never 5 within 60 s
    expect(health.status('payments')!.state).toBe('healthy');
    calls(5, true, 1000);
    expect(health.status('payments')!.state).toBe('unhealthy');
  });

  it('calls stop (breaker open, fallback on): after a window without calls the last state is stale, with its last call time', () => {
    const { clock, calls, health } = setup();
    calls(20, true);
    const lastCall = clock.now() - 100;
    expect(health.status('payments')).toMatchObject({ state: 'unhealthy', stale: false, calls: 20 });
    clock.advance(30_000);
    expect(health.status('payments')).toMatchObject({ state: 'unhealthy', stale: false });
    clock.advance(30_000);
    expect(health.status('payments')).toMatchObject({ state: 'unhealthy', stale: true, calls: 0, lastCallAt: lastCall });
  });

  it('a recovery after a stale outage is still an event with the spec fields', () => {
    const { clock, calls, events, health, recovered } = setup();
    calls(20, true);
    clock.advance(10 * 60_000);
    expect(health.status('payments')!.stale).toBe(true);
    calls(5, false); // the breaker's probes succeed
    calls(1, false);
    expect(health.status('payments')).toMatchObject({ state: 'healthy', stale: false });
    expect(events.slice(1)).toEqual([
      { name: 'svc.dependency.state_change', severity: 'WARN', dependency: 'payments', previous_state: 'unhealthy', current_state: 'degraded', error_rate: 0 },
      { name: 'svc.dependency.state_change', severity: 'WARN', dependency: 'payments', previous_state: 'degraded', current_state: 'healthy', error_rate: 0 },
    ]);
    expect(recovered).toEqual(['payments']);
  });

  it('honours a configured window', () => {
    const { clock, calls, health } = setup({ windowMs: 5000 });
    calls(10, true);
    clock.advance(5000);
    expect(health.status('payments')).toMatchObject({ state: 'unhealthy', stale: true, calls: 0 });
  });
});
