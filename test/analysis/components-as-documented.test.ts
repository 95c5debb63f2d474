/**
 * The spec's programmatic components used as docs/analysis.md ("Components") shows them, imported
 * from the public API, with a fake clock as their last argument instead of the system clock.
 */
import { SpanKind } from '@opentelemetry/api';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { CompositeBaselineProvider, Engine, FakeClock, HealthAggregator, PatternMatcher, RollingBaselineProvider, SloTracker, StaticBaselineProvider, TopologyRegistry } from '../../src/api.js';

const PAY = 'POST /pay';
const ORDERS = 'GET /orders';

/** The second block of docs/analysis.md, Components: each component on its own. */
function components() {
  const clock = new FakeClock();
  const rolling = new RollingBaselineProvider(1000, 10);
  const baselines = new CompositeBaselineProvider([new StaticBaselineProvider({ [PAY]: { latencyP50Ms: 30, latencyP99Ms: 120, errorRate: 0.01 } }), rolling]);
  const slos = new SloTracker(clock);
  slos.register({ name: 'pay-availability', operationName: PAY, type: 'AVAILABILITY', target: 0.99, windowMs: 3_600_000, minEvents: 20 });
  const patterns = new PatternMatcher(1.5, 0.1, 2, { clock });
  const health = new HealthAggregator(rolling, slos, { clock });
  return { clock, rolling, baselines, slos, patterns, health };
}

type Components = ReturnType<typeof components>;

/** One finished request, fed to each component as the doc's per-request lines do. */
function request({ rolling, slos, patterns, health }: Components, operation: string, latencyMs: number, isError: boolean) {
  rolling.record(operation, latencyMs, isError);
  if (isError) slos.recordFailure(operation);
  else slos.recordSuccess(operation);
  health.recordSpan(operation, latencyMs, isError);
  return patterns.detectPatterns(operation, latencyMs, isError, rolling.getSnapshot(operation));
}

/** `seconds` of `perSecond` requests of `latencyMs`, the clock moving with them. */
function traffic(c: Components, operation: string, seconds: number, perSecond: number, latencyMs: number, isError = false) {
  const found = new Set<string>();
  for (let s = 0; s < seconds; s++) {
    for (let i = 0; i < perSecond; i++) for (const pattern of request(c, operation, latencyMs, isError)) found.add(pattern);
    c.clock.advance(1000);
  }
  return found;
}

describe('components as docs/analysis.md shows them', () => {
  it('Engine: built from a topology, static baselines, a pattern matcher, rolling baselines and an SLO tracker, fed by its span processor', () => {
    const clock = new FakeClock();
    const topology = new TopologyRegistry().setService('checkout').setTier('critical');
    topology.registerDependency({ name: 'ledger', type: 'database', criticality: 'required' });
    const staticBaselines = new Map([[PAY, { latencyP50Ms: 30, latencyP99Ms: 120, errorRate: 0.01 }]]);
    const engine = new Engine({
      clock,
      topology,
      staticBaselines,
      patternMatcher: new PatternMatcher(1.5, 0.1, 2, { clock }),
      rollingBaselines: new RollingBaselineProvider(1000, 10),
      sloTracker: new SloTracker(clock),
    });
    const tracer = new TracerProvider({ spanProcessors: [engine.createSpanProcessor()] }).getTracer('app');
    const start = clock.now();
    tracer.startSpan('POST', { kind: SpanKind.SERVER, startTime: start, attributes: { 'http.request.method': 'POST', 'http.route': '/pay' } }).end(start + 25);

    const summary = engine.healthSummary();
    expect(summary.service).toBe('checkout');
    expect(summary.operations.map((op) => [op.operation, op.requestCount])).toEqual([[PAY, 1]]);
    expect(engine.health.getOperationHealth(PAY)?.baseline).toMatchObject({ latencyP50Ms: 30, p50Source: 'configured' });
  });

  it('RollingBaselineProvider and CompositeBaselineProvider: a snapshot from the minimum samples on; the first provider with a baseline answers', () => {
    const c = components();
    traffic(c, ORDERS, 9, 1, 20);
    expect(c.rolling.getSnapshot(ORDERS)).toBeUndefined();
    expect(c.baselines.getBaseline(ORDERS)).toBeUndefined();
    traffic(c, ORDERS, 1, 1, 20);
    expect(c.rolling.getSnapshot(ORDERS)).toMatchObject({ p50: 20, p99: 20, errorRate: 0, sampleCount: 10, confidence: 'LOW' });
    expect(c.baselines.getBaseline(ORDERS)).toMatchObject({ latencyP50Ms: 20, learned: true });

    traffic(c, PAY, 10, 1, 45);
    expect(c.rolling.getBaseline(PAY)).toMatchObject({ latencyP50Ms: 45 });
    expect(c.baselines.getBaseline(PAY)).toEqual({ latencyP50Ms: 30, latencyP99Ms: 120, errorRate: 0.01 });
  });

  it('HealthAggregator: judges operations against the rolling baselines and counts the SLO tracker in the service status', () => {
    const c = components();
    traffic(c, ORDERS, 600, 1, 20);
    expect(c.health.getOperationHealth(ORDERS)).toMatchObject({ elevated: false, baseline: { latencyP50Ms: 20, p50Source: 'learned' } });
    expect(c.health.getOperationHealth(PAY)).toBeUndefined();
    expect(c.health.getHealthSummary('checkout')).toMatchObject({ service: 'checkout', status: 'HEALTHY', reasons: [] });

    // Quiet for longer than the recent minutes, then slow: the rolling p50 is still the 600 fast requests'.
    c.clock.advance(6 * 60_000);
    traffic(c, ORDERS, 20, 1, 100);
    const orders = c.health.getOperationHealth(ORDERS)!;
    expect(orders.elevated).toBe(true);
    expect(orders.elevatedReasons).toEqual([expect.stringMatching(/^p50 \d+ms vs baseline 20ms$/)]);
    expect(c.health.getHealthSummary('checkout')).toMatchObject({ status: 'DEGRADED', reasons: [expect.stringMatching(/^GET \/orders elevated: p50/)] });

    traffic(c, PAY, 30, 1, 45, true);
    c.health.recordDependencyCall('ledger', 5, false);
    const summary = c.health.getHealthSummary('checkout');
    expect(summary.status).toBe('CRITICAL');
    expect(summary.slos).toEqual([expect.objectContaining({ name: 'pay-availability', compliance: 'VIOLATED', budgetRemaining: 0 })]);
    expect(summary.reasons).toContain('SLO pay-availability violated');
    expect(summary.dependencies).toEqual([expect.objectContaining({ name: 'ledger', state: 'healthy', calls: 1 })]);
  });

  it('SloTracker: recordSuccess and recordFailure spend the budget, getStatus reads it, checkAlerts raises each tier once', () => {
    const c = components();
    // One request a second: 3,600 expected over the hour's window, 36 of them allowed to fail.
    const everySecond = (count: number, record: () => void) => {
      for (let i = 0; i < count; i++) {
        c.clock.advance(1000);
        record();
      }
    };
    everySecond(18, () => c.slos.recordSuccess(PAY));
    everySecond(1, () => c.slos.recordFailure(PAY));
    expect(c.slos.getStatus('pay-availability')).toMatchObject({ compliance: 'INSUFFICIENT_DATA', totalRequests: 19, failedRequests: 1, budgetRemaining: 1 });
    everySecond(1, () => c.slos.recordSuccess(PAY));
    expect(c.slos.getStatus('pay-availability')!.budgetRemaining).toBeCloseTo(1 - 1 / 36, 2);
    everySecond(40, () => c.slos.recordFailure(PAY));
    expect(c.slos.getStatus('pay-availability')).toMatchObject({ compliance: 'VIOLATED', budgetRemaining: 0 });
    expect(
      c.slos
        .checkAlerts()
        .map((alert) => alert.severity)
        .sort(),
    ).toEqual(['CRITICAL', 'INFO', 'WARNING']);
    expect(c.slos.checkAlerts()).toEqual([]);
    expect(c.slos.getStatus('no-such-slo')).toBeUndefined();
  });

  it('PatternMatcher: recordLatency counts requests in the window the next detectPatterns judges', () => {
    const slowWithoutDetection = (recorded: boolean) => {
      const c = components();
      expect(traffic(c, ORDERS, 60, 10, 20)).toEqual(new Set());
      for (let s = 0; s < 12; s++) {
        if (recorded) for (let i = 0; i < 10; i++) c.patterns.recordLatency(ORDERS, 100);
        c.clock.advance(1000);
      }
      return c.patterns.detectPatterns(ORDERS, 100, false, c.rolling.getSnapshot(ORDERS));
    };
    expect(slowWithoutDetection(true)).toContain('latency_degradation');
    expect(slowWithoutDetection(false)).not.toContain('latency_degradation');
  });

  it('PatternMatcher: recordDependencyError makes a failing request a cascade once two dependencies failed', () => {
    const c = components();
    traffic(c, ORDERS, 10, 1, 20);
    c.patterns.recordDependencyError('ledger');
    expect(c.patterns.detectPatterns(ORDERS, 20, true, c.rolling.getSnapshot(ORDERS))).not.toContain('cascade_failure');
    c.patterns.recordDependencyError('inventory');
    expect(c.patterns.detectPatterns(ORDERS, 20, true, c.rolling.getSnapshot(ORDERS))).toContain('cascade_failure');
  });

  it('PatternMatcher: the three numbers as named options make the same matcher (a cascade of three dependencies)', () => {
    const clock = new FakeClock();
    const cascadeAfter = (matcher: PatternMatcher) => {
      const failed: number[] = [];
      for (const [i, dependency] of ['ledger', 'inventory', 'pricing'].entries()) {
        matcher.recordDependencyError(dependency);
        if (matcher.detectPatterns(ORDERS, 20, true, undefined).includes('cascade_failure')) failed.push(i + 1);
      }
      return failed[0];
    };
    expect(cascadeAfter(new PatternMatcher(1.5, 0.1, 3, { clock }))).toBe(3);
    expect(cascadeAfter(new PatternMatcher({ latencyDegradationFactor: 1.5, errorRateSpikeThreshold: 0.1, cascadeDependencyCount: 3, clock }))).toBe(3);
    expect(cascadeAfter(new PatternMatcher({ clock }))).toBe(2);
  });
});
