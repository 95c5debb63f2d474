/**
 * The engine assembled by hand (no preload) behind its span processor: SLO attributes and alert
 * events by tier, dependency events from client spans, rolling baseline attributes, and the
 * service status rules.
 */
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { PatternMatcher } from '../../src/analysis/pattern-matcher.js';
import { RollingBaselineProvider } from '../../src/analysis/rolling-baseline-provider.js';
import { SloTracker } from '../../src/analysis/slo-tracker.js';
import { TopologyRegistry } from '../../src/metadata/topology-registry.js';
import { Engine } from '../../src/wiring/service-engine.js';
import { engineHarness } from '../support/engine-harness.js';

describe('Engine assembled without the preload', () => {
  it('takes a topology registry, static baselines, a pattern matcher, rolling baselines and an SLO tracker', () => {
    const clock = new FakeClock();
    const topology = new TopologyRegistry().setService('checkout').setTeam('payments').setTier('critical');
    topology.registerDependency({ name: 'ledger', type: 'database', criticality: 'required' });
    const slos = new SloTracker(clock);
    slos.register({ name: 'pay-availability', operationName: 'POST /pay', type: 'AVAILABILITY', target: 0.95, windowMs: 3_600_000, minEvents: 20 });
    const engine = new Engine({
      clock,
      topology,
      staticBaselines: new Map([['POST /pay', { latencyP50Ms: 30, latencyP99Ms: 120, errorRate: 0.01 }]]),
      patternMatcher: new PatternMatcher(2, 0.25, 2, { clock }),
      rollingBaselines: new RollingBaselineProvider(500, 5),
      sloTracker: slos,
    });
    const exporter = new InMemorySpanExporter();
    const tracer = new TracerProvider({ spanProcessors: [engine.createSpanProcessor(), new SimpleSpanProcessor({ exporter })] }).getTracer('t');
    for (let i = 0; i < 20; i++) {
      const start = clock.now();
      tracer.startSpan('POST', { kind: SpanKind.SERVER, startTime: start, attributes: { 'http.request.method': 'POST', 'http.route': '/pay' } }).end(start + 25);
      const call = tracer.startSpan('INSERT', { kind: SpanKind.CLIENT, startTime: start, attributes: { 'db.system.name': 'ledger' } });
      call.setStatus({ code: 2 });
      call.end(start + 5);
      clock.advance(1000);
    }
    const failing = tracer.startSpan('POST', { kind: SpanKind.SERVER, startTime: clock.now(), attributes: { 'http.request.method': 'POST', 'http.route': '/pay' } });
    failing.setStatus({ code: 2 });
    failing.end(clock.now() + 25);
    const servers = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);
    expect(servers[0]!.attributes).toMatchObject({ 'svc.operation.name': 'POST /pay' });
    expect(servers[0]!.attributes).not.toHaveProperty('svc.slo.name');
    // The failing request spends error budget and carries the SLO's state.
    expect(servers.at(-1)!.attributes).toMatchObject({ 'svc.slo.name': 'pay-availability', 'svc.slo.target': 0.95 });
    // 21 requests in 20 s: 3,780 expected over the hour, 5 % of them allowed to fail.
    expect(servers.at(-1)!.attributes['svc.slo.budget_remaining']).toBeCloseTo(1 - 1 / (0.05 * 21 * 180), 9);
    expect(exporter.getFinishedSpans().find((s) => s.kind === SpanKind.CLIENT)!.attributes).toMatchObject({ 'svc.dependency.name': 'ledger', 'svc.dependency.criticality': 'required' });
    const summary = engine.healthSummary();
    expect(summary.service).toBe('checkout');
    expect(summary.status).toBe('CRITICAL');
    expect(summary.reasons).toContain('dependency ledger unhealthy');
    expect(engine.health.getOperationHealth('POST /pay')).toMatchObject({ requestCount: 21, elevated: false });
  });
});

describe('SLO alerts and attributes through spans', () => {
  it('emits svc.slo.budget_alert once per tier with INFO, WARN and ERROR log severities', () => {
    const h = engineHarness();
    h.engine.sloTracker.register({ name: 'orders', operationName: 'GET /orders', type: 'AVAILABILITY', target: 0.9, windowMs: 3_600_000 });
    for (let i = 0; i < 3600; i++) {
      h.request('/orders', 10);
      h.clock.advance(1000);
    }
    // A whole window watched: the budget is 10 % of the events in it, 3,596 (its ring of 720
    // buckets of 5 s holds the last 3,595-3,600 s).
    const attributes = h.request('/orders', 10, true);
    expect(attributes).toMatchObject({ 'svc.slo.name': 'orders', 'svc.slo.target': 0.9 });
    expect(attributes['svc.slo.budget_remaining']).toBeCloseTo(1 - 1 / 359.6, 9);
    expect(attributes['svc.slo.burn_rate']).toBeCloseTo(1 / 3596 / 0.1, 9);
    for (let i = 0; i < 400; i++) h.request('/orders', 10, true);
    const alerts = h.eventsNamed('svc.slo.budget_alert');
    expect(alerts.map((a) => [a.body.severity, a.severity])).toEqual([
      ['INFO', 'INFO'],
      ['WARNING', 'WARN'],
      ['CRITICAL', 'ERROR'],
    ]);
    expect(Object.keys(alerts[0]!.body).sort()).toEqual(['budget_remaining', 'burn_rate', 'severity', 'slo_name']);
  });
});

describe('dependency state changes from client spans', () => {
  it('emits svc.dependency.state_change as errors rise and on recovery', () => {
    const h = engineHarness();
    for (let i = 0; i < 10; i++) h.call('payments', 20, true);
    h.clock.advance(60_000); // the errors age out of the window (svc.dependency-health.window)
    for (let i = 0; i < 40; i++) h.call('payments', 20, false);
    expect(h.eventsNamed('svc.dependency.state_change').map((e) => `${e.body.previous_state}->${e.body.current_state}`)).toEqual(['healthy->unhealthy', 'unhealthy->degraded', 'degraded->healthy']);
  });
});

describe('baselines.source', () => {
  it('static: spans carry no rolling baseline; rolling: spans carry the live p50, p99 and error rate', () => {
    const staticSource = engineHarness({ baselineSource: 'static' });
    const rolling = engineHarness({ baselineSource: 'rolling' });
    for (const h of [staticSource, rolling]) {
      for (let i = 1; i <= 100; i++) h.request('/r', i);
      h.clock.advance(2000);
    }
    expect(staticSource.request('/r', 50)).not.toHaveProperty('svc.baseline.source');
    expect(rolling.request('/r', 50)).toMatchObject({ 'svc.baseline.source': 'rolling', 'svc.baseline.latency_p50_ms': 50, 'svc.baseline.latency_p99_ms': 99, 'svc.baseline.error_rate': 0 });
  });

  it('decides which figure health judges by where both exist: the configured one with static, the learned one with rolling', () => {
    const configured = new Map([['GET /r', { latencyP50Ms: 7, latencyP99Ms: 70, errorRate: 0.02 }]]);
    const staticSource = engineHarness({ baselineSource: 'static', staticBaselines: configured });
    const rolling = engineHarness({ baselineSource: 'rolling', staticBaselines: configured });
    for (const h of [staticSource, rolling]) {
      h.clock.advance(30_000); // past the cold-start window, whose traffic is not learned
      // 9 ms: near the configured 7 ms, so no fault keeps the normal from learning.
      for (let i = 0; i < 300; i++) {
        h.request('/r', 9);
        h.clock.advance(100);
      }
    }
    expect(staticSource.engine.health.getOperationHealth('GET /r')!.baseline).toMatchObject({
      latencyP50Ms: 7,
      latencyP99Ms: 70,
      errorRate: 0.02,
      p50Source: 'configured',
      errorRateSource: 'configured',
    });
    expect(staticSource.engine.health.getOperationHealth('GET /r')!.baselineState).toBe('configured');
    const learned = rolling.engine.health.getOperationHealth('GET /r')!;
    expect(learned.baselineState).toBe('learned');
    expect(learned.baseline).toMatchObject({ errorRate: 0, p50Source: 'learned', p99Source: 'learned', errorRateSource: 'learned' });
    expect(learned.baseline!.latencyP50Ms).toBeGreaterThan(8);
    expect(learned.baseline!.latencyP50Ms).toBeLessThan(10);
  });
});

describe('reset baseline', () => {
  it('forgets the window the span path uses: no anomaly until min-samples new spans, then against the new latency', () => {
    const h = engineHarness();
    for (let i = 0; i < 50; i++) h.request('/r', 10 + (i % 3));
    expect(h.request('/r', 400)).toHaveProperty('svc.anomaly.detected', true);
    expect(h.engine.rollingBaselines.reset('GET /r')).toBe(true);
    for (let i = 0; i < 9; i++) expect(h.request('/r', 400 + (i % 3))).not.toHaveProperty('svc.anomaly.detected');
    h.request('/r', 401);
    expect(h.request('/r', 400)).not.toHaveProperty('svc.anomaly.detected');
    expect(h.request('/r', 10)).toHaveProperty('svc.anomaly.detected', true);
  });
});

describe('service status', () => {
  it('is DEGRADED while an operation is elevated against its baseline, with the reason', () => {
    const h = engineHarness({ staticBaselines: new Map([['GET /s', { latencyP50Ms: 20, latencyP99Ms: 50, errorRate: 0.01 }]]) });
    h.clock.advance(60_000); // past the process's warm-up
    for (let i = 0; i < 100; i++) h.request('/s', 20);
    expect(h.engine.healthSummary().status).toBe('HEALTHY');
    // 20 of 120 requests at 120 ms: the p99 (judged from 100 requests on) is over 1.5x its 50 ms.
    for (let i = 0; i < 20; i++) h.request('/s', 120);
    const summary = h.engine.healthSummary();
    expect(summary.status).toBe('DEGRADED');
    expect(summary.reasons[0]).toMatch(/^GET \/s elevated: .*p99 \d+ms vs baseline 50ms/);
  });

  it('stays HEALTHY through a warm-up: slow first requests are a cold start, not an elevated operation', () => {
    const h = engineHarness({ staticBaselines: new Map([['GET /w', { latencyP50Ms: 5, latencyP99Ms: 15, errorRate: 0.01 }]]) });
    for (let i = 0; i < 30; i++) {
      h.request('/w', i < 20 ? 250 : 5); // the first 2 s at 250 ms against a 15 ms p99
      h.clock.advance(100);
    }
    expect(h.engine.healthSummary().status).toBe('HEALTHY');
    expect(h.engine.coldStartOf('GET /w')).toMatchObject({ peakMs: 250, baselineP99Ms: 15 });
    // Past the warm-up the first requests still weigh on the 5-minute p99, which is not judged yet;
    // a p50 above baseline still is.
    h.clock.advance(60_000);
    for (let i = 0; i < 30; i++) h.request('/w', 5);
    expect(h.engine.healthSummary().status).toBe('HEALTHY');
    for (let i = 0; i < 100; i++) h.request('/w', 40);
    expect(h.engine.healthSummary().reasons[0]).toMatch(/^GET \/w elevated: p50/);
  });

  it('judges a cold start against the baseline p99 of the moment, also once the warm-up is over', () => {
    const h = engineHarness();
    for (let i = 0; i < 30; i++) {
      h.request('/c', i < 20 ? 250 : 5);
      h.clock.advance(100);
    }
    h.clock.advance(60_000); // past the warm-up
    /** Two minutes of `ms` requests at 10/s: learned once a period has ended. */
    const steady = (ms: number) => {
      for (let i = 0; i < 1200; i++) {
        h.request('/c', ms);
        h.clock.advance(100);
      }
    };
    steady(5);
    const coldStart = h.engine.coldStartOf('GET /c')!;
    expect(coldStart).toMatchObject({ peakMs: 250, durationMs: 2000 });
    expect(coldStart.baselineP99Ms).toBeGreaterThan(4);
    expect(coldStart.baselineP99Ms).toBeLessThan(6.5);
    h.engine.resetBaseline('GET /c'); // an intended change: 100 ms is the new normal
    steady(100);
    expect(h.engine.coldStartOf('GET /c'), '250 ms is no longer markedly slower than the p99').toBeUndefined();
    h.engine.resetBaseline('GET /c');
    steady(5);
    expect(h.engine.coldStartOf('GET /c')).toMatchObject({ peakMs: 250 });
  });

  it('follows a cold start while the process warms up: its slow seconds extend it until the warm-up ends', () => {
    const h = engineHarness({ staticBaselines: new Map([['GET /c', { latencyP50Ms: 5, latencyP99Ms: 5, errorRate: 0.01 }]]) });
    h.request('/c', 250);
    expect(h.engine.coldStartOf('GET /c')).toMatchObject({ durationMs: 1000 });
    for (let i = 0; i < 3; i++) {
      h.clock.advance(1000);
      h.request('/c', 250);
    }
    h.clock.advance(60_000);
    expect(h.engine.coldStartOf('GET /c')).toMatchObject({ durationMs: 4000 });
  });

  it('is CRITICAL when an operation fails half its recent requests', () => {
    const h = engineHarness();
    for (let i = 0; i < 12; i++) h.request('/f', 20, i % 2 === 0);
    expect(h.engine.healthSummary()).toMatchObject({ status: 'CRITICAL', reasons: ['GET /f failing (50.0%)'] });
  });

  it('keeps at least 60 minutes of per-minute history with p50, p99, error rate and throughput', () => {
    const h = engineHarness();
    for (let minute = 0; minute < 90; minute++) {
      for (let i = 0; i < 10; i++) h.request('/h', 10 + minute, i === 0);
      h.clock.advance(60_000);
    }
    const history = h.engine.health.historyOf('GET /h', 60);
    expect(history).toHaveLength(59);
    expect(history[0]!.count).toBe(10);
    expect(history[0]!.errorRate).toBeCloseTo(0.1, 9);
    expect(history[history.length - 1]!.p50).toBeGreaterThan(history[0]!.p50 * 1.3);
    expect(history.every((m, i) => i === 0 || m.minuteStart - history[i - 1]!.minuteStart === 60_000)).toBe(true);
  });
});
