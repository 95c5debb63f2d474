/** Circuit breaker states from the report API and from a real opossum breaker. */
import CircuitBreaker from 'opossum';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CircuitBreakers } from '../../src/analysis/circuit-breakers.js';

afterEach(() => vi.useRealTimers());

function collect() {
  const events: { event: string; severity: string; body: Record<string, unknown> }[] = [];
  const breakers = new CircuitBreakers((event, severity, body) => events.push({ event, severity, body }));
  return { events, breakers };
}

describe('CircuitBreakers', () => {
  it('emits svc.circuit_breaker.state_change on each reported change, not on repeats', () => {
    const { events, breakers } = collect();
    breakers.register('payments-breaker', 'payments');
    breakers.report('payments-breaker', 'open', { failureCount: 7 });
    breakers.report('payments-breaker', 'open', { failureCount: 8 });
    breakers.report('payments-breaker', 'half_open');
    breakers.report('payments-breaker', 'closed', { failureCount: 0 });
    expect(events).toEqual([
      { event: 'svc.circuit_breaker.state_change', severity: 'WARN', body: { name: 'payments-breaker', previous_state: 'closed', new_state: 'open', failure_count: 7, dependency: 'payments' } },
      { event: 'svc.circuit_breaker.state_change', severity: 'WARN', body: { name: 'payments-breaker', previous_state: 'open', new_state: 'half_open', failure_count: 8, dependency: 'payments' } },
      { event: 'svc.circuit_breaker.state_change', severity: 'WARN', body: { name: 'payments-breaker', previous_state: 'half_open', new_state: 'closed', failure_count: 0, dependency: 'payments' } },
    ]);
  });

  it('follows a real opossum breaker through open, half_open and closed', async () => {
    vi.useFakeTimers();
    const { events, breakers } = collect();
    let fail = true;
    const breaker = new CircuitBreaker(
      async () => {
        if (fail) throw new Error('payments down');
        return 'ok';
      },
      { name: 'payments-breaker', resetTimeout: 5_000, errorThresholdPercentage: 50, volumeThreshold: 3 },
    );
    breakers.watchOpossum(breaker, { dependency: 'payments' });
    for (let i = 0; i < 4; i++) await breaker.fire().catch(() => undefined);
    expect(breakers.status('payments-breaker')).toMatchObject({ state: 'open', dependency: 'payments', controllable: true });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(breakers.status('payments-breaker')!.state).toBe('half_open');
    fail = false;
    await breaker.fire();
    expect(breakers.status('payments-breaker')!.state).toBe('closed');
    expect(events.map((e) => `${e.body.previous_state}->${e.body.new_state}`)).toEqual(['closed->open', 'open->half_open', 'half_open->closed']);
    expect(events[0]!.body).toMatchObject({ name: 'payments-breaker', dependency: 'payments' });
    expect(Number(events[0]!.body.failure_count)).toBeGreaterThanOrEqual(3);
    expect(events[2]!.body.failure_count).toBe(0);
    breaker.shutdown();
  });

  it('opens and closes a watched breaker on request', () => {
    const { breakers } = collect();
    const breaker = new CircuitBreaker(async () => 'ok', { name: 'b' });
    breakers.watchOpossum(breaker, { dependency: 'x' });
    expect(breakers.force('b', 'open')).toBe(true);
    expect(breaker.opened).toBe(true);
    expect(breakers.status('b')!.state).toBe('open');
    expect(breakers.force('b', 'closed')).toBe(true);
    expect(breaker.closed).toBe(true);
    expect(breakers.force('unknown', 'open')).toBe(false);
    breaker.shutdown();
  });
});
