/** The probable cause: candidates, ranking by what a change touches and then by timing, and the reason given. */
import { describe, expect, it } from 'vitest';
import { ChangeTracker } from '../../src/analysis/change-tracker.js';
import { FakeClock } from '../../src/analysis/clock.js';
import { CAUSE_DEFAULTS, rankedCause, timing } from '../../src/incidents/incident-cause.js';

const MINUTE = 60_000;
const OPERATION = 'POST /orders';

function setup() {
  const clock = new FakeClock();
  const changes = new ChangeTracker(clock);
  const start = clock.now() + 40 * MINUTE;
  const at = (offsetMs: number) => start + offsetMs;
  const cause = () => rankedCause(changes, { operation: OPERATION, startedAt: start }, { ...CAUSE_DEFAULTS, dependencies: () => ['payments', 'inventory'] });
  return { changes, at, cause };
}

describe('rankedCause', () => {
  it('prefers a recent deployment over an old one, and says how long before the episode it was', () => {
    const { changes, at, cause } = setup();
    changes.record('deployment', 'version 1.0.0', {}, at(-25 * MINUTE));
    changes.record('deployment', 'version 1.1.0', {}, at(-4 * MINUTE - 5_000));
    expect(cause()).toMatchObject({ change: { description: 'version 1.1.0' }, reason: '4m 5s before the episode began; a deployment replaces the code of every operation' });
  });

  it('prefers a change touching the operation over a closer one touching another operation', () => {
    const { changes, at, cause } = setup();
    changes.record('config_change', 'limit raised', {}, at(-10 * MINUTE), { operation: OPERATION });
    changes.record('config_change', 'cache size', {}, at(-5_000), { operation: 'GET /catalog' });
    expect(cause()).toMatchObject({ change: { description: 'limit raised' }, reason: '10m before the episode began; touches POST /orders' });
  });

  it('prefers a dependency turning unhealthy just before the spike over a configuration change long before', () => {
    const { changes, at, cause } = setup();
    changes.record('config_change', 'feature flag new-pricing on', {}, at(-25 * MINUTE));
    changes.record('dependency_state', 'dependency payments healthy -> unhealthy', { state: 'unhealthy' }, at(-3_000), { dependency: 'payments' });
    expect(cause()).toMatchObject({ change: { kind: 'dependency_state' }, reason: '3s before the episode began; payments is a dependency the service calls; the fault began with it' });
  });

  it('blames the change a dependency failed right after: the dependency failure is its effect', () => {
    const { changes, at, cause } = setup();
    changes.record('config_change', 'feature flag new-pricing on', {}, at(-40_000));
    changes.record('dependency_state', 'dependency payments healthy -> degraded', { state: 'degraded' }, at(-35_000), { dependency: 'payments' });
    changes.record('circuit_breaker', 'circuit breaker payments-breaker (payments) closed -> open', { state: 'open', breaker: 'payments-breaker' }, at(-2_000), { dependency: 'payments' });
    expect(cause()).toMatchObject({
      change: { description: 'feature flag new-pricing on' },
      reason: '40s before the episode began; a configuration change of the whole process; payments failed 5s after it',
    });
  });

  it('does not blame the process start for a dependency that fails later on its own', () => {
    const { changes, at, cause } = setup();
    changes.record('deployment', 'unversioned start', {}, at(-60_000));
    changes.record('dependency_state', 'dependency payments healthy -> unhealthy', { state: 'unhealthy' }, at(-20_000), { dependency: 'payments' });
    expect(cause()).toMatchObject({ change: { kind: 'dependency_state' }, reason: '20s before the episode began; payments is a dependency the service calls' });
  });

  it('ranks a configuration change at the onset over the deployment that started the process before it', () => {
    const { changes, at, cause } = setup();
    changes.record('deployment', 'version 3.0.0', {}, at(-70_000));
    changes.record('config_change', 'feature flag bulk_discounts enabled', {}, at(-25_000));
    expect(cause()?.change.description).toBe('feature flag bulk_discounts enabled');
  });

  it('a process-wide configuration change ranks over a change to a dependency the service does not call', () => {
    const { changes, at, cause } = setup();
    changes.record('config_change', 'log level debug', {}, at(-20 * MINUTE));
    changes.record('circuit_breaker', 'circuit breaker legacy (legacy) closed -> open', { state: 'open', breaker: 'legacy' }, at(-1_000), { dependency: 'legacy' });
    expect(cause()?.change.description).toBe('log level debug');
  });

  it('takes a dependency failure reported shortly after the episode began, but no other change after it', () => {
    const { changes, at, cause } = setup();
    changes.record('deployment', 'version 2.0.0', {}, at(5_000));
    expect(cause()).toBeUndefined();
    changes.record('dependency_state', 'dependency inventory healthy -> degraded', { state: 'degraded' }, at(12_000), { dependency: 'inventory' });
    expect(cause()?.reason).toBe('12s after the episode began; inventory is a dependency the service calls');
    changes.record('dependency_state', 'dependency payments degraded -> unhealthy', { state: 'unhealthy' }, at(CAUSE_DEFAULTS.lateMs + 1_000), { dependency: 'payments' });
    expect(cause()?.change.description).toBe('dependency inventory healthy -> degraded');
  });

  it('never names a remediation, a breaker an action moved, a recovery, or a change outside the window', () => {
    const { changes, at, cause } = setup();
    changes.record('deployment', 'version 3.0.0', {}, at(-CAUSE_DEFAULTS.windowMs - 1_000));
    changes.record('remediation', 'enable_fallback:POST /orders by ops-bot (operator): errors', { action: 'enable_fallback:POST /orders' }, at(-2_000), { operation: OPERATION });
    changes.record('circuit_breaker', 'circuit breaker payments-cb (payments) closed -> open', { state: 'open', breaker: 'payments-cb' }, at(-1_500), { dependency: 'payments' });
    changes.record('remediation', 'open_circuit_breaker:payments-cb by ops-bot (operator): shed load', { action: 'open_circuit_breaker:payments-cb' }, at(-1_500), { dependency: 'payments' });
    changes.record('dependency_state', 'dependency inventory unhealthy -> healthy', { state: 'healthy' }, at(-1_000), { dependency: 'inventory' });
    expect(cause()).toBeUndefined();
    // 1.3 s after the action: the breaker opening again by itself is a candidate.
    changes.record('circuit_breaker', 'circuit breaker payments-cb (payments) half_open -> open', { state: 'open', breaker: 'payments-cb' }, at(-200), { dependency: 'payments' });
    expect(cause()?.change.timestamp).toBe(at(-200));
  });

  it('clears a change followed by 20 s of normal traffic before the fault, and says how the fault followed the one it names', () => {
    const { changes, at } = setup();
    const causeWith = (normalSince: number | null) => rankedCause(changes, { operation: OPERATION, startedAt: at(0), normalSince }, { ...CAUSE_DEFAULTS, dependencies: () => ['payments'] });
    changes.record('deployment', 'process start', {}, at(-90_000));
    // Normal traffic from the start on: the start is no cause of a fault a minute and a half later.
    expect(causeWith(at(-90_000))).toBeUndefined();
    // Faulty from the start (nothing normal before the episode): the start is the cause, and the reason says so.
    expect(causeWith(null)?.reason).toBe('1m 30s before the episode began; a deployment replaces the code of every operation; the fault began soon after it, no normal traffic between');
    // 15 s of normal traffic is not a stretch that clears it; 20 s is.
    expect(causeWith(at(-15_000))?.reason).toMatch(/the fault began soon after it, 15s of normal traffic between$/);
    expect(causeWith(at(-20_000))).toBeUndefined();
    changes.record('config_change', 'feature flag bulk_discounts enabled', {}, at(-2_000));
    expect(causeWith(at(-90_000))?.reason).toBe('2s before the episode began; a configuration change of the whole process; the fault began with it');
  });

  it('says timing in seconds, minutes and hours', () => {
    expect(timing(-400)).toBe('as the episode began');
    expect(timing(-59_000)).toBe('59s before the episode began');
    expect(timing(-3 * MINUTE)).toBe('3m before the episode began');
    expect(timing(-(2 * 60 + 5) * MINUTE)).toBe('2h 5m before the episode began');
    expect(timing(7_000)).toBe('7s after the episode began');
  });
});
