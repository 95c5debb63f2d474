/**
 * Health verdicts rest only on baselines that exist (rule 9, no default baseline) and on
 * dependency states that are current (stale ones are shown, not counted). Fake clock throughout.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { loadConfig } from '../../src/config/load-config.js';
import { ServiceMetadata } from '../../src/metadata/service-metadata.js';
import { Engine } from '../../src/service-engine.js';
import { newRegistry } from '../support/registry.js';
import { tempDir } from '../support/temp-dir.js';

const YAML = `operations:
  GET /unset:
    expected-latency-p50: 20ms
    expected-latency-p99: 80ms
  GET /watched:
    expected-latency-p50: 20ms
    expected-latency-p99: 80ms
    expected-error-rate: 0.01
`;

function engineFrom(yaml: string) {
  const { config } = loadConfig({ cwd: tempDir({ 'svc.yml': yaml }), args: [], env: {} });
  const clock = new FakeClock();
  return { engine: Engine.fromConfig(config, new ServiceMetadata(config, newRegistry()), { clock }), clock };
}

describe('no invented baselines', () => {
  it('rule 9: an unset expected error rate with 30 % errors is not ELEVATED for errors; a set one is', () => {
    const { engine, clock } = engineFrom(YAML);
    for (const op of ['GET /unset', 'GET /watched']) {
      for (let i = 0; i < 100; i++) {
        engine.observe(op, 20, i % 10 < 3);
        clock.advance(100);
      }
    }
    const unset = engine.health.getOperationHealth('GET /unset')!;
    expect(unset).toMatchObject({ errorRate: 0.3, elevated: false, elevatedReasons: [], baselineState: 'configured', expectedErrorRate: undefined, learnedErrorRate: 0.3 });
    expect(unset.baseline).toEqual({ latencyP50Ms: 20, latencyP99Ms: 80, errorRate: undefined });
    const watched = engine.health.getOperationHealth('GET /watched')!;
    expect(watched).toMatchObject({ elevated: true, elevatedReasons: ['error rate 30.0% vs baseline 1.0%'], expectedErrorRate: 0.01 });
  });

  it('an operation with neither a configured nor a learned baseline is learning (3 samples), never ELEVATED, until its rolling baseline forms', () => {
    const { engine, clock } = engineFrom('');
    for (let i = 0; i < 3; i++) {
      engine.observe('GET /new', 900, false); // 9x the old default p50 of 100 ms
      clock.advance(100);
    }
    expect(engine.health.getOperationHealth('GET /new')).toMatchObject({ baseline: undefined, baselineState: 'learning', samples: 3, elevated: false });
    expect(engine.baselines.getBaseline('GET /new')).toBeUndefined();
    for (let i = 0; i < 7; i++) engine.observe('GET /new', 900, false);
    const learned = engine.health.getOperationHealth('GET /new')!;
    expect(learned).toMatchObject({ baselineState: 'learned', samples: 10, elevated: false });
    expect(learned.baseline).toMatchObject({ latencyP50Ms: 900, learned: true });
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
