/**
 * Health verdicts rest only on baselines that exist (configured figures one by one, else the learned
 * normal, no default baseline; rule 9 only where -1 is given) and on dependency states that are
 * current (stale ones are shown, not counted). Fake clock throughout.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { loadConfig } from '../../src/config/load-config.js';
import { ServiceMetadata } from '../../src/metadata/service-metadata.js';
import { Engine } from '../../src/wiring/service-engine.js';
import { newRegistry } from '../support/registry.js';
import { tempDir } from '../support/temp-dir.js';

const YAML = `operations:
  GET /unset:
    expected-latency-p50: 20ms
  GET /watched:
    expected-latency-p50: 20ms
    expected-latency-p99: 80ms
    expected-error-rate: 0.01
  GET /unjudged:
    expected-error-rate: -1
`;

function engineFrom(yaml: string) {
  const { config } = loadConfig({ cwd: tempDir({ 'svc.yml': yaml }), args: [], env: {} });
  const clock = new FakeClock();
  return { engine: Engine.fromConfig(config, new ServiceMetadata(config, newRegistry()), { clock }), clock };
}

/** `seconds` at 10 req/s of 20 ms requests, `errorShare` of them failing, for each operation. */
function traffic(engine: Engine, clock: FakeClock, operations: readonly string[], seconds: number, errorShare: number): void {
  for (let i = 0; i < seconds * 10; i++) {
    for (const op of operations) engine.observe(op, 20, i % 100 < errorShare * 100);
    clock.advance(100);
  }
}

describe('baselines figure by figure', () => {
  it('each configured figure stands alone and the rest is learned; errors are judged against the learned rate unless -1 is given', () => {
    const { engine, clock } = engineFrom(YAML);
    const operations = ['GET /unset', 'GET /watched', 'GET /unjudged'];
    clock.advance(30_000); // past the cold-start window, whose traffic is not learned
    traffic(engine, clock, operations, 60, 0.02);
    const unset = engine.health.getOperationHealth('GET /unset')!.baseline!;
    expect(unset).toMatchObject({ latencyP50Ms: 20, p50Source: 'configured', p99Source: 'learned', errorRateSource: 'learned' });
    expect(unset.errorRate).toBeCloseTo(0.02, 2);
    expect(unset.describe(unset.errorRateSource)).toMatch(/^learned over \d+ s$/);
    expect(engine.health.getOperationHealth('GET /watched')!.baseline).toMatchObject({ latencyP50Ms: 20, latencyP99Ms: 80, errorRate: 0.01, errorRateSource: 'configured' });
    expect(engine.health.getOperationHealth('GET /unjudged')!.baseline).toMatchObject({ errorRate: undefined, errorRateSource: 'unjudged' });

    traffic(engine, clock, operations, 60, 0.3);
    const health = (op: string) => engine.health.getOperationHealth(op)!;
    expect(health('GET /unset').elevated).toBe(true);
    expect(health('GET /unset').elevatedReasons.join('; ')).toMatch(/error_rate_spike since|error rate 16\.0% vs baseline 2\.0%/);
    expect(health('GET /watched').elevatedReasons).toContain('error rate 16.0% vs baseline 1.0%');
    expect(health('GET /unjudged')).toMatchObject({ elevated: false, elevatedReasons: [] });
    // The learned rate did not learn the spike.
    expect(health('GET /unset').baseline!.errorRate).toBeCloseTo(0.02, 2);
  });

  it('an operation with neither a configured nor a learned baseline is learning, never ELEVATED, until its normal forms', () => {
    const { engine, clock } = engineFrom('');
    // The warm-up (patterns.warm-up, 10 s) is not learned; then a normal forms once a 10 s period of it has ended.
    for (let i = 0; i < 10; i++) {
      engine.observe('GET /new', 900, false);
      clock.advance(1000);
    }
    expect(engine.health.getOperationHealth('GET /new')).toMatchObject({ baselineState: 'learning', samples: 0, elevated: false });
    expect(engine.health.getOperationHealth('GET /new')!.baseline!.describe('learning')).toBe('learning (0 samples)');
    for (let i = 0; i < 5; i++) {
      engine.observe('GET /new', 900, false);
      clock.advance(1000);
    }
    expect(engine.health.getOperationHealth('GET /new')).toMatchObject({ baselineState: 'learning', samples: 5 });
    for (let i = 0; i < 12; i++) {
      engine.observe('GET /new', 900, false);
      clock.advance(1000);
    }
    const learned = engine.health.getOperationHealth('GET /new')!;
    expect(learned).toMatchObject({ baselineState: 'learned', elevated: false });
    expect(learned.samples).toBeGreaterThanOrEqual(10);
    expect(learned.baseline!.latencyP50Ms).toBeGreaterThan(800);
    expect(learned.baseline!.latencyP50Ms).toBeLessThan(1000);
    expect(engine.healthSummary().status).toBe('HEALTHY');
  });
});

describe('stale dependencies', () => {
  function failingRequired() {
    const clock = new FakeClock();
    const engine = new Engine({ clock, criticalityOf: () => 'required' });
    for (let i = 0; i < 20; i++) {
      engine.observeDependency('payments', 30, true);
      clock.advance(100);
    }
    return { engine, clock };
  }

  it('calls stop for a window: the last state is stale with its last call, and the service is no longer CRITICAL because of it', () => {
    const { engine, clock } = failingRequired();
    const lastCall = clock.now() - 100;
    expect(engine.healthSummary()).toMatchObject({ status: 'CRITICAL', reasons: ['dependency payments unhealthy'] });
    clock.advance(30_000);
    expect(engine.healthSummary().status).toBe('CRITICAL'); // the window still holds the failures
    clock.advance(30_000);
    const summary = engine.healthSummary();
    expect(summary).toMatchObject({ status: 'HEALTHY', reasons: [] });
    expect(summary.dependencies).toEqual([{ name: 'payments', state: 'unhealthy', errorRate: 0, averageLatencyMs: 0, calls: 0, stale: true, lastCallAt: lastCall }]);
  });

  it('an open breaker still says DEGRADED while the stale dependency says nothing', () => {
    const { engine, clock } = failingRequired();
    engine.circuitBreakers.report('payments-breaker', 'open', { failureCount: 20, dependency: 'payments' });
    clock.advance(60_000);
    expect(engine.healthSummary()).toMatchObject({ status: 'DEGRADED', reasons: ['circuit breaker payments-breaker open'] });
  });

  it('calls that resume count again: still failing is CRITICAL again at once', () => {
    const { engine, clock } = failingRequired();
    clock.advance(60_000);
    expect(engine.healthSummary().status).toBe('HEALTHY');
    engine.observeDependency('payments', 30, true);
    expect(engine.healthSummary()).toMatchObject({ status: 'CRITICAL', dependencies: [expect.objectContaining({ stale: false, calls: 1, state: 'unhealthy' })] });
  });
});

describe("a fleet's figures", () => {
  it('make the service DEGRADED at least for each outlier replica, one reason each, and HEALTHY without one', () => {
    const { engine, clock } = engineFrom('');
    traffic(engine, clock, ['GET /orders'], 30, 0);
    const fleet = (outlierReasons: string[]) => ({ operations: ['GET /orders'], recentOf: () => undefined, slos: [], outlierReasons });
    expect(engine.healthSummary(fleet([])).status).toBe('HEALTHY');
    const summary = engine.healthSummary(fleet(['replica pod-b is an outlier: GET /orders error rate 40.0% vs 0.0% on the other replicas (50 vs 100 requests)']));
    expect(summary.status).toBe('DEGRADED');
    expect(summary.reasons).toEqual(['replica pod-b is an outlier: GET /orders error rate 40.0% vs 0.0% on the other replicas (50 vs 100 requests)']);
  });
});
