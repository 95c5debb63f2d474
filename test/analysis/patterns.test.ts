/**
 * Each of the six incident patterns, driven by synthetic spans through the engine's span
 * processor: one case that must fire it and one that must not.
 */
import { describe, expect, it } from 'vitest';
import { engineHarness } from '../support/engine-harness.js';
import { lognormal, seededRandom } from '../support/random.js';

const ROUTE = '/orders/:id';

/** `count` requests `gapMs` apart with lognormal latency around `medianMs`, erroring at `errorRate`. */
function traffic(h: ReturnType<typeof engineHarness>, count: number, medianMs: number, options: { errorRate?: number; gapMs?: number; seed?: number; route?: string } = {}) {
  const random = seededRandom(options.seed ?? 7);
  const latency = lognormal(random, medianMs, 0.25);
  for (let i = 0; i < count; i++) {
    h.request(options.route ?? ROUTE, latency(), random() < (options.errorRate ?? 0));
    h.clock.advance(options.gapMs ?? 100);
  }
}

/** A harness past the cold-start window, with a learned baseline of ~20 ms. */
function warm() {
  const h = engineHarness();
  h.clock.advance(120_000);
  traffic(h, 300, 20, { errorRate: 0.005 });
  h.events.length = 0;
  return h;
}

describe('latency_degradation', () => {
  it('fires when latency stays at 3x the baseline p50', () => {
    const h = warm();
    traffic(h, 30, 60, { seed: 2 });
    expect(h.patternsSeen()).toContain('latency_degradation');
  });
  it('does not fire for a 10% slowdown', () => {
    const h = warm();
    traffic(h, 30, 22, { seed: 2 });
    expect(h.patternsSeen()).not.toContain('latency_degradation');
  });
  it('takes a sub-millisecond operation slowing by less than 1 ms for jitter, and by more for a degradation', () => {
    const h = engineHarness();
    h.clock.advance(120_000);
    traffic(h, 300, 0.3);
    traffic(h, 30, 0.9, { seed: 2 });
    expect(h.patternsSeen()).not.toContain('latency_degradation');
    traffic(h, 30, 3, { seed: 2 });
    expect(h.patternsSeen()).toContain('latency_degradation');
  });
});

describe('error_rate_spike', () => {
  it('fires when half the requests suddenly fail', () => {
    const h = warm();
    traffic(h, 20, 20, { errorRate: 0.5, seed: 3 });
    expect(h.patternsSeen()).toContain('error_rate_spike');
    const event = h.eventsNamed('svc.anomaly.detected').find((e) => e.body.pattern === 'error_rate_spike')!;
    expect(event.severity).toBe('WARN');
    expect(event.body).toMatchObject({ operation: `GET ${ROUTE}`, pattern_description: expect.stringContaining('error rate') });
  });
  it('does not fire at 5% errors over a 0.5% baseline', () => {
    const h = warm();
    traffic(h, 20, 20, { errorRate: 0.05, seed: 3 });
    expect(h.patternsSeen()).not.toContain('error_rate_spike');
  });
});

describe('cascade_failure', () => {
  it('fires on a failing request while two dependencies failed within the window', () => {
    const h = warm();
    h.call('payments', 30, true);
    h.call('inventory', 30, true);
    h.request(ROUTE, 25, true);
    expect(h.patternsSeen()).toContain('cascade_failure');
  });
  it('does not fire with one failing dependency, or with failures older than the window', () => {
    const h = warm();
    h.call('payments', 30, true);
    h.request(ROUTE, 25, true);
    h.call('inventory', 30, true);
    h.clock.advance(120_000);
    h.request(ROUTE, 25, true);
    expect(h.patternsSeen()).not.toContain('cascade_failure');
  });
});

describe('memory_leak', () => {
  function heapRising(h: ReturnType<typeof engineHarness>, bytesPerMinute: number, noise = 0) {
    const random = seededRandom(11);
    for (let i = 0; i < 12; i++) {
      h.engine.patternMatcher.recordHeapSample(200e6 + (i * bytesPerMinute) / 6 + (random() - 0.5) * noise);
      h.clock.advance(10_000);
    }
  }
  it('fires when the heap grows steadily and the operation slows down', () => {
    const h = warm();
    heapRising(h, 8 * 1024 * 1024);
    traffic(h, 20, 30, { seed: 4 });
    expect(h.patternsSeen()).toContain('memory_leak');
  });
  it('does not fire for a heap that only saws up and down with GC, nor for growth without slowdown', () => {
    const h = warm();
    for (let i = 0; i < 12; i++) {
      h.engine.patternMatcher.recordHeapSample(i % 2 === 0 ? 200e6 : 260e6);
      h.clock.advance(10_000);
    }
    traffic(h, 20, 30, { seed: 4 });
    const grown = warm();
    heapRising(grown, 8 * 1024 * 1024);
    traffic(grown, 20, 20, { seed: 4 });
    expect(h.patternsSeen()).not.toContain('memory_leak');
    expect(grown.patternsSeen()).not.toContain('memory_leak');
  });
});

describe('thundering_herd', () => {
  /** Steady 2 requests/s, a dependency outage, and its recovery. */
  function outageAndRecovery(h: ReturnType<typeof engineHarness>) {
    traffic(h, 120, 20, { gapMs: 500, seed: 5 });
    for (let i = 0; i < 10; i++) h.call('payments', 20, true);
    h.clock.advance(60_000); // the errors age out of the dependency's window
    for (let i = 0; i < 20; i++) h.call('payments', 20, false);
    expect(h.eventsNamed('svc.dependency.state_change').at(-1)?.body.current_state).toBe('healthy');
  }
  it('fires when requests spike right after a recovery', () => {
    const h = warm();
    outageAndRecovery(h);
    traffic(h, 40, 20, { gapMs: 100, seed: 6 });
    expect(h.patternsSeen()).toContain('thundering_herd');
  });
  it('does not fire for steady traffic after a recovery, nor for a spike long after it', () => {
    const h = warm();
    outageAndRecovery(h);
    traffic(h, 40, 20, { gapMs: 500, seed: 6 });
    h.clock.advance(120_000);
    traffic(h, 40, 20, { gapMs: 100, seed: 6 });
    expect(h.patternsSeen()).not.toContain('thundering_herd');
  });
});

describe('cold_start', () => {
  it('fires when the first requests of a fresh process are slow', () => {
    const h = engineHarness();
    h.request(ROUTE, 1800);
    expect(h.patternsSeen()).toContain('cold_start');
  });
  it('does not fire for fast first requests, nor for slow first requests after the start window', () => {
    const fast = engineHarness();
    traffic(fast, 5, 20);
    const late = engineHarness();
    late.clock.advance(120_000);
    late.request(ROUTE, 1800);
    expect(fast.patternsSeen()).not.toContain('cold_start');
    expect(late.patternsSeen()).not.toContain('cold_start');
  });
  it('uses the static p50 when the operation has one', () => {
    const h = engineHarness({ staticBaselines: new Map([[`GET ${ROUTE}`, { latencyP50Ms: 10, latencyP99Ms: 50, errorRate: 0 }]]) });
    h.request(ROUTE, 40);
    expect(h.patternsSeen()).toContain('cold_start');
  });
});

describe('rule 9: expected-error-rate -1', () => {
  it('turns off error-rate spike detection for that operation only', async () => {
    const { Engine } = await import('../../src/service-engine.js');
    const { FakeClock } = await import('../../src/analysis/clock.js');
    const { loadConfig } = await import('../../src/config/load-config.js');
    const { ServiceMetadata } = await import('../../src/metadata/service-metadata.js');
    const { newRegistry } = await import('../support/registry.js');
    const { tempDir } = await import('../support/temp-dir.js');
    const { config } = loadConfig({ cwd: tempDir({ 'svc.yml': 'operations:\n  GET /watched:\n    expected-error-rate: 0.01\n  GET /unwatched:\n    expected-error-rate: -1\n' }), args: [], env: {} });
    const clock = new FakeClock().advance(120_000);
    const patterns: string[] = [];
    const engine = Engine.fromConfig(config, new ServiceMetadata(config, newRegistry()), { clock });
    engine.onDetection((d) => patterns.push(...d.patterns.map((p) => `${d.operation}:${p}`)));
    for (const op of ['GET /watched', 'GET /unwatched']) {
      for (let i = 0; i < 40; i++) {
        engine.observe(op, 20, i >= 20 && i % 2 === 0);
        clock.advance(100);
      }
    }
    expect(patterns).toContain('GET /watched:error_rate_spike');
    expect(patterns).not.toContain('GET /unwatched:error_rate_spike');
  });
});
