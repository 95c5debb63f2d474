/** Dependency states from client-span error rates, with hysteresis, and their events. */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { DependencyHealth } from '../../src/analysis/dependency-health.js';

function setup() {
  const clock = new FakeClock();
  const events: Record<string, unknown>[] = [];
  const recovered: string[] = [];
  const health = new DependencyHealth({ clock, emit: (name, severity, body) => events.push({ name, severity, ...body }), onRecovery: (d) => recovered.push(d) });
  const calls = (n: number, isError: boolean) => {
    for (let i = 0; i < n; i++) {
      health.record('payments', 40, isError);
      clock.advance(100);
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
    calls(10, true);
    expect(health.status('payments')!.state).toBe('unhealthy');
    expect(events).toEqual([
      { name: 'svc.dependency.state_change', severity: 'WARN', dependency: 'payments', previous_state: 'healthy', current_state: 'degraded', error_rate: 0.1 },
      expect.objectContaining({ previous_state: 'degraded', current_state: 'unhealthy' }),
    ]);
  });

  it('does not flip an outage back on one success; recovers step by step and reports it', () => {
    const { events, calls, health, recovered } = setup();
    calls(20, true);
    expect(health.status('payments')!.state).toBe('unhealthy');
    calls(1, false);
    expect(health.status('payments')!.state).toBe('unhealthy');
    calls(14, false); // 5 errors in the last 20: 25 %, not yet below half of 50 %
    expect(health.status('payments')!.state).toBe('unhealthy');
    calls(1, false);
    expect(health.status('payments')!.state).toBe('degraded');
    calls(3, false); // 1 error in 20 is 5 %, not below half of 10 %
    expect(health.status('payments')!.state).toBe('degraded');
    calls(1, false);
    expect(health.status('payments')!.state).toBe('healthy');
    expect(events.map((e) => `${e.previous_state}->${e.current_state}`)).toEqual(['healthy->unhealthy', 'unhealthy->degraded', 'degraded->healthy']);
    expect(recovered).toEqual(['payments']);
  });

  it('needs a minimum of calls and forgets calls older than the window', () => {
    const { clock, calls, health } = setup();
    calls(3, true);
    expect(health.status('payments')).toMatchObject({ state: 'healthy', errorRate: 1, calls: 3 });
    clock.advance(120_000);
    expect(health.status('payments')).toMatchObject({ calls: 0, errorRate: 0 });
  });
});
