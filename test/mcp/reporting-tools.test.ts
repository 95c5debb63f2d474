/**
 * The reporting tools (service health, SLO report, executive summary, cross-stack context)
 * against a real Engine fed with spans on a fake clock: statuses, flags, section order, numbers
 * from the engine's own state, JSON structures, the executive summary's size and argument errors.
 */
import { describe, expect, it } from 'vitest';
import { columns, isoTime, ms, multiple, percent } from '../../src/mcp/text-layout.js';
import { getCrossStackContext } from '../../src/mcp/tools/get-cross-stack-context.js';
import { getExecutiveSummary } from '../../src/mcp/tools/get-executive-summary.js';
import { getServiceHealth } from '../../src/mcp/tools/get-service-health.js';
import { getSloReport } from '../../src/mcp/tools/get-slo-report.js';
import { lineIndexes, lineWith, OPERATION_NAME_ARGUMENT, toolHarness } from './tool-harness.js';

const ORDERS = 'GET /orders';
const HEALTH = 'GET /health';
const baselines = new Map([
  [ORDERS, { latencyP50Ms: 20, latencyP99Ms: 80, errorRate: 0.01 }],
  [HEALTH, { latencyP50Ms: 2, latencyP99Ms: 10, errorRate: 0 }],
]);

/** /orders fails 20 % of 100 requests (baseline 1 %), /health is normal, ledger fails 3 of its last 10 calls. */
function degradedService() {
  const h = toolHarness({ staticBaselines: baselines });
  h.engine.sloTracker.register({ name: 'orders-availability', operationName: ORDERS, type: 'AVAILABILITY', target: 0.5 });
  for (let i = 0; i < 100; i++) {
    h.request('/orders', 20, i % 5 === 0);
    h.request('/health', 2);
    h.clock.advance(1000);
  }
  // The failures come last, so the dependency passes through degraded without reaching unhealthy.
  for (let i = 0; i < 10; i++) h.call('ledger', 5, i >= 7);
  return h;
}

describe('get_service_health', () => {
  it('declares a READ, read-only tool with a text|json format', () => {
    expect(getServiceHealth).toMatchObject({ name: 'get_service_health', permission: 'READ', required: [], annotations: { readOnlyHint: true, destructiveHint: false } });
    expect(getServiceHealth.parameters.format).toMatchObject({ type: 'string', enum: ['text', 'json'] });
  });

  it('lines the operations up in columns as wide as their widest cells, whatever the latencies format to', async () => {
    const h = toolHarness({ staticBaselines: baselines });
    h.request('/idle', 5);
    h.clock.advance(10 * 60_000);
    // The largest latency formats shorter (45ms) than a smaller one (1.1ms); a learning operation and an idle one.
    for (let i = 0; i < 30; i++) {
      h.request('/fast', 1.1, i === 0);
      h.request('/slow', 45);
    }
    for (let i = 0; i < 3; i++) h.request('/new-and-ünïcode', 7);
    const { text } = await h.callTool(getServiceHealth);
    const lines = text.split('\n');
    const start = lines.findIndex((l) => l.startsWith('OPERATIONS')) + 1;
    const operations = lines.slice(start, lines.indexOf('', start)).map((l) => l.slice(2));
    expect(operations).toHaveLength(4);
    expect(operations.join('\n')).toMatch(/learning \(3 samples\)/);
    expect(operations.join('\n')).toMatch(/GET \/idle +0 req +idle/);
    expect(operations).toEqual(
      columns(
        operations.map((line) => line.split(/ {2,}/)),
        60,
      ),
    );
  });

  it('reports HEALTHY with no ELEVATED flag on normal traffic', async () => {
    const h = toolHarness({ staticBaselines: baselines });
    for (let i = 0; i < 50; i++) h.request('/orders', 20);
    const { text } = await h.callTool(getServiceHealth);
    expect(text.split('\n')[0]).toBe(`SERVICE HEALTH: checkout | STATUS: HEALTHY | ${isoTime(h.clock.now())}`);
    expect(text).not.toContain('ELEVATED');
    expect(lineWith(text, ORDERS)).toContain('err 0.00%');
  });

  it('shows the status, the elevated operation with its reason, dependencies, SLOs and reasons, in that order', async () => {
    const h = degradedService();
    const { text, structured } = await h.callTool(getServiceHealth);
    expect(structured).toBeUndefined();
    expect(text.split('\n')[0]).toBe(`SERVICE HEALTH: checkout | STATUS: DEGRADED | ${isoTime(h.clock.now())}`);

    const [operations, dependencies, slos, reasons] = lineIndexes(text, ['OPERATIONS', 'DEPENDENCIES', 'SLOs', 'REASONS']);
    expect(operations).toBeGreaterThan(0);
    expect([operations, dependencies, slos, reasons]).toEqual([...[operations, dependencies, slos, reasons]].sort((a, b) => a! - b!));

    const orders = h.engine.health.getOperationHealth(ORDERS)!;
    expect(orders.elevated).toBe(true);
    const ordersLine = lineWith(text, ORDERS);
    expect(ordersLine).toContain(`err ${percent(orders.errorRate)}`);
    expect(ordersLine).toContain(`p50 ${ms(orders.p50)}`);
    expect(ordersLine).toContain(`p99 ${ms(orders.p99)}`);
    expect(ordersLine).toContain(`ELEVATED (${orders.elevatedReasons.join('; ')})`);
    expect(ordersLine).toMatch(/error rate 20\.0% vs baseline 1\.0%/);
    expect(lineWith(text, HEALTH)).not.toContain('ELEVATED');
    // Elevated operations are listed first.
    expect(text.indexOf(ORDERS)).toBeLessThan(text.indexOf(HEALTH));

    const ledger = h.engine.dependencyHealth.status('ledger')!;
    expect(ledger.state).toBe('degraded');
    expect(lineWith(text, 'ledger ')).toContain(`degraded  err ${percent(ledger.errorRate)}  avg ${ms(ledger.averageLatencyMs)}`);

    const slo = h.engine.sloTracker.getStatus('orders-availability')!;
    expect(slo.burnRate).toBeCloseTo(0.4, 9);
    expect(lineWith(text, 'orders-availability')).toMatch(new RegExp(`HEALTHY\\s+budget ${percent(slo.budgetRemaining)}\\s+burn 0\\.4x`));

    for (const reason of h.engine.healthSummary().reasons) expect(text.slice(text.indexOf('\nREASONS'))).toContain(reason);
  });

  it('returns the documented JSON structure as text and as structured content', async () => {
    const h = degradedService();
    const { text, structured } = await h.callTool(getServiceHealth, { format: 'json' });
    expect(JSON.parse(text)).toEqual(structured);
    const summary = h.engine.healthSummary();
    expect(structured).toMatchObject({ service: 'checkout', status: 'DEGRADED', timestamp: isoTime(h.clock.now()), reasons: summary.reasons });
    const json = structured as { operations: Record<string, unknown>[]; dependencies: Record<string, unknown>[]; slos: Record<string, unknown>[] };
    const orders = h.engine.health.getOperationHealth(ORDERS)!;
    expect(json.operations.find((o) => o.name === ORDERS)).toEqual({
      name: ORDERS,
      routeInferred: false,
      requestCount: 100,
      errorRate: 0.2,
      p50Ms: orders.p50,
      p99Ms: orders.p99,
      throughputPerMinute: orders.throughputPerMinute,
      elevated: true,
      elevatedReasons: orders.elevatedReasons,
      baseline: {
        latencyP50Ms: 20,
        latencyP99Ms: 80,
        errorRate: 0.01,
        sources: { p50: 'configured', p99: 'configured', errorRate: 'configured' },
        learnedOverMs: orders.baseline!.learnedOverMs,
        frozenSince: isoTime(orders.baseline!.frozenSince!),
        acceptAt: isoTime(orders.baseline!.acceptAt!),
      },
      baselineState: 'configured',
      samples: orders.samples,
      deviation: {
        patterns: ['error_rate_spike'],
        since: isoTime(orders.deviation!.sinceMs),
        outage: false,
        score: orders.deviation!.score,
        forming: [],
      },
      coldStart: null,
    });
    expect(json.operations.find((o) => o.name === HEALTH)).toMatchObject({ elevated: false, elevatedReasons: [] });
    expect(json.dependencies).toEqual([
      {
        name: 'ledger',
        state: 'degraded',
        errorRate: 0.3,
        averageLatencyMs: 5,
        calls: 10,
        windowMs: 60_000,
        stale: false,
        lastCallAt: isoTime(h.engine.dependencyHealth.status('ledger')!.lastCallAt),
      },
    ]);
    const slo = h.engine.sloTracker.getStatus('orders-availability')!;
    expect(json.slos).toEqual([{ name: 'orders-availability', compliance: 'HEALTHY', budgetRemaining: slo.budgetRemaining, burnRate: slo.burnRate }]);
  });

  it('reports CRITICAL when an operation fails half of its requests', async () => {
    const h = toolHarness({ staticBaselines: baselines });
    for (let i = 0; i < 20; i++) h.request('/orders', 20, i % 2 === 0);
    const { structured } = await h.callTool(getServiceHealth, { format: 'json' });
    expect(structured).toMatchObject({ status: 'CRITICAL', reasons: [`${ORDERS} failing (50.0%)`] });
  });

  it('refuses an unknown format and says what to send', async () => {
    const h = toolHarness();
    expect((await h.toolError(getServiceHealth, { format: 'yaml' })).message).toBe('argument "format" of get_service_health must be one of text, json; got "yaml" (omit it for text)');
  });
});

/** Three SLOs: a violated latency SLO (10 % over 300 ms, target 99.9 %), an at-risk availability SLO, a healthy one. */
function sloService() {
  const h = toolHarness({ staticBaselines: baselines });
  const slos = h.engine.sloTracker;
  // Windows of 100 s, the time the traffic below lasts: the budget is taken of its 1000 requests.
  const windowMs = 100_000;
  slos.register({ name: 'health-availability', operationName: HEALTH, type: 'AVAILABILITY', target: 0.9, windowMs });
  slos.register({ name: 'orders-availability', operationName: ORDERS, type: 'AVAILABILITY', target: 0.99, windowMs });
  slos.register({ name: 'orders-latency', operationName: ORDERS, type: 'LATENCY_P99', target: 0.999, latencyThresholdMs: 300, windowMs });
  for (let i = 0; i < 1000; i++) {
    // 6 failures in 1000 spend 60 % of the 1 % budget; every tenth request is slower than 300 ms.
    h.request('/orders', i % 10 === 0 ? 400 : 50, i % 200 === 1 || i === 998);
    if (i % 10 === 0) h.request('/health', 2);
    h.clock.advance(100);
  }
  return h;
}

describe('get_service_health: baselines and dependencies as they are', () => {
  it('an operation with only 3 requests and no baseline says learning (3 samples), in text and JSON', async () => {
    const h = toolHarness();
    for (let i = 0; i < 3; i++) h.request('/new', 500);
    const text = (await h.callTool(getServiceHealth)).text;
    expect(lineWith(text, 'GET /new')).toMatch(/3 req +err 0\.00% +p50 \S+ +p99 \S+ +learning \(3 samples\)$/);
    expect(text).toContain('STATUS: HEALTHY');
    const { structured } = await h.callTool(getServiceHealth, { format: 'json' });
    expect((structured as { operations: unknown[] }).operations[0]).toMatchObject({
      name: 'GET /new',
      baseline: { latencyP50Ms: null, latencyP99Ms: null, errorRate: null, sources: { p50: 'learning', p99: 'learning', errorRate: 'learning' } },
      baselineState: 'learning',
      samples: 3,
      deviation: null,
      elevated: false,
    });
  });

  it('JSON says where each figure comes from: configured latencies, an error rate still learning judges nothing', async () => {
    const h = toolHarness({ staticBaselines: new Map([['GET /unset', { latencyP50Ms: 20, latencyP99Ms: 80, errorRate: undefined }]]) });
    for (let i = 0; i < 100; i++) h.request('/unset', 20, i % 10 < 3);
    const { structured } = await h.callTool(getServiceHealth, { format: 'json' });
    expect((structured as { operations: unknown[] }).operations[0]).toMatchObject({
      elevated: false,
      baseline: { latencyP50Ms: 20, latencyP99Ms: 80, errorRate: null, sources: { p50: 'configured', p99: 'configured', errorRate: 'learning' } },
      baselineState: 'configured',
    });
    expect((await h.callTool(getServiceHealth)).text).not.toContain('ELEVATED');
  });

  it('never calls a learning operation within baseline: an empty REASONS says which are still learning, and what is judged meanwhile', async () => {
    const h = toolHarness({ staticBaselines: new Map([[HEALTH, { latencyP50Ms: 2, latencyP99Ms: 10, errorRate: 0 }]]) });
    for (const route of ['/a', '/b', '/c']) for (let i = 0; i < 3; i++) h.request(route, 5, true);
    const learning = (await h.callTool(getServiceHealth)).text;
    expect(learning).not.toContain('within baseline');
    expect(learning).toContain('REASONS\n  none, but no operation has a baseline yet (GET /a, GET /b, GET /c): until one forms, only an outage is judged for them');

    for (let i = 0; i < 5; i++) h.request('/health', 2);
    const mixed = (await h.callTool(getServiceHealth)).text;
    expect(mixed).toContain('REASONS\n  none, but 3 operations still learning a baseline (GET /a, GET /b, GET /c): until one forms, only an outage is judged for them');

    const settled = toolHarness({ staticBaselines: new Map([[HEALTH, { latencyP50Ms: 2, latencyP99Ms: 10, errorRate: 0 }]]) });
    for (let i = 0; i < 5; i++) settled.request('/health', 2);
    expect((await settled.callTool(getServiceHealth)).text).toContain('REASONS\n  none: everything within baseline');
  });

  it('a dependency without calls for a window is shown stale, since its last call, and not among the reasons', async () => {
    const h = toolHarness({ criticalityOf: () => 'required' });
    for (let i = 0; i < 20; i++) h.call('payments', 30, true);
    const lastCall = h.clock.now();
    expect((await h.callTool(getServiceHealth)).text).toMatch(/STATUS: CRITICAL[\s\S]*payments +unhealthy +err 100\.00% +avg 30ms +20 calls in 1m/);
    h.clock.advance(60_000);
    const text = (await h.callTool(getServiceHealth)).text;
    expect(text.split('\n')[0]).toContain('STATUS: HEALTHY');
    expect(lineWith(text, 'payments')).toMatch(new RegExp(`payments +unhealthy \\(stale\\) +no calls since ${isoTime(lastCall)} +0 calls in 1m$`));
    expect(text).toContain('REASONS\n  none');
    const { structured } = await h.callTool(getServiceHealth, { format: 'json' });
    expect((structured as { dependencies: unknown[] }).dependencies).toEqual([
      { name: 'payments', state: 'unhealthy', errorRate: 0, averageLatencyMs: 0, calls: 0, windowMs: 60_000, stale: true, lastCallAt: isoTime(lastCall) },
    ]);
    const summary = (await h.callTool(getExecutiveSummary)).text;
    expect(lineWith(summary, 'STATUS:')).toBe(`STATUS: HEALTHY: all 0 operations within baseline, no SLO at risk. Stale, not counted: payments last unhealthy, no calls since ${isoTime(lastCall)}.`);
  });
});

describe('get_executive_summary: baselines', () => {
  it('names operations still learning a baseline with their samples, and shows no invented baseline', async () => {
    const h = toolHarness({ staticBaselines: new Map([['GET /unset', { latencyP50Ms: 20, latencyP99Ms: 80, errorRate: undefined }]]) });
    for (let i = 0; i < 3; i++) h.request('/new', 30);
    for (let i = 0; i < 20; i++) h.request('/unset', 200, i % 10 < 3);
    const text = (await h.callTool(getExecutiveSummary)).text;
    expect(lineWith(text, 'OPERATIONS:')).toBe('OPERATIONS: 2 tracked, 23 requests in the last 5 minutes; learning a baseline: GET /new (3 samples)');
    const issue = lineWith(text, '1. GET /unset');
    expect(issue).toMatch(/^ {2}1\. GET \/unset: err 30\.00%, p50 \S+ \(baseline 20ms\), p99 \S+ \(baseline 80ms\)$/);
  });
});

describe('get_slo_report', () => {
  it("says the data is insufficient after a fresh process's first failure, and no tool makes it a verdict", async () => {
    const h = toolHarness({ staticBaselines: baselines });
    h.engine.sloTracker.register({ name: 'orders-availability', operationName: ORDERS, type: 'AVAILABILITY', target: 0.999 });
    for (let i = 0; i < 3; i++) {
      h.request('/orders', 20, i === 1);
      h.clock.advance(2000);
    }
    const report = (await h.callTool(getSloReport)).text;
    expect(report).toContain('SUMMARY: 0 healthy, 0 at risk, 0 violated');
    expect(report).toContain(`[INSUFFICIENT_DATA] orders-availability (${ORDERS}, AVAILABILITY, window 30d)`);
    expect(lineWith(report, 'Actual')).toBe('  Actual:      insufficient data (3 of 100 events), no verdict');
    // 3 requests in 6 s: 1,296,000 expected over 30 days.
    expect(lineWith(report, 'Budget')).toBe('  Budget:      100.00% remaining of 1,296,000 events expected over the window at the rate of the last 6 s');
    expect((await h.callTool(getServiceHealth, { format: 'json' })).structured).toMatchObject({ status: 'HEALTHY', slos: [{ compliance: 'INSUFFICIENT_DATA' }] });
    expect(lineWith((await h.callTool(getExecutiveSummary)).text, 'SLO BUDGET')).toBe(
      'SLO BUDGET: 0 healthy, 0 at risk, 0 violated, 1 with insufficient data; lowest 100.00% remaining (orders-availability)',
    );
  });

  it('summarises compliance and lists SLOs worst first with their numbers', async () => {
    const h = sloService();
    const { text } = await h.callTool(getSloReport);
    const lines = text.split('\n');
    expect(lines.slice(0, 4)).toEqual(['SLO REPORT: checkout', `Generated:  ${isoTime(h.clock.now())}`, 'Total SLOs: 3', 'SUMMARY: 1 healthy, 1 at risk, 1 violated']);

    const tags = lines.filter((l) => l.startsWith('['));
    expect(tags).toEqual([
      `[VIOLATED] orders-latency (${ORDERS}, LATENCY_P99, window 100s)`,
      `[AT_RISK] orders-availability (${ORDERS}, AVAILABILITY, window 100s)`,
      `[HEALTHY] health-availability (${HEALTH}, AVAILABILITY, window 100s)`,
    ]);

    const block = (name: string) => text.slice(text.indexOf(`] ${name} `)).split('\n\n')[0]!;
    const availability = h.engine.sloTracker.getStatus('orders-availability')!;
    expect(availability).toMatchObject({ totalRequests: 1000, failedRequests: 6, compliance: 'AT_RISK' });
    const a = block('orders-availability');
    expect(a).toMatch(/Target: +99\.00% available/);
    expect(a).toContain(`${percent(availability.actual)} available`);
    expect(a).toMatch(new RegExp(`Budget: +${percent(availability.budgetRemaining)} remaining`));
    expect(a).toMatch(new RegExp(`Burn: +${multiple(availability.burnRate).replace('.', '\\.')}`));
    expect(a).toMatch(/Requests: +1000/);
    expect(a).toMatch(/Failed: +6/);
    expect(a).toMatch(/Burn 1h\/5m: +0\.6x \/ 0\.6x \(fast burn: no\)/);
    // The labels come in the spec's order.
    expect(
      lineIndexes(
        a
          .split('\n')
          .map((l) => l.trim())
          .join('\n'),
        ['Target', 'Actual', 'Budget', 'Burn:', 'Requests', 'Failed', 'Burn 1h/5m', 'Burn 6h/30m'],
      ),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => i + 1));

    const latency = h.engine.sloTracker.getStatus('orders-latency')!;
    expect(latency.actual).toBeCloseTo(0.9, 9);
    const l = block('orders-latency');
    expect(l).toMatch(/Target: +p99 <= 300ms \(99\.90% of requests\)/);
    expect(l).toContain(`Actual:      ${percent(latency.actual)} under 300ms, recent p99 ${ms(h.engine.health.getOperationHealth(ORDERS)!.p99)}`);
    expect(l).toMatch(/Failed: +100/);
    expect(l).toContain('(fast burn: YES)');
    expect(l).toContain('(slow burn: YES)');
  });

  it('returns the documented JSON structure', async () => {
    const h = sloService();
    const { text, structured } = await h.callTool(getSloReport, { format: 'json' });
    expect(JSON.parse(text)).toEqual(structured);
    expect(structured).toMatchObject({ service: 'checkout', generated: isoTime(h.clock.now()), total: 3, summary: { healthy: 1, atRisk: 1, violated: 1 } });
    const slos = (structured as { slos: Record<string, unknown>[] }).slos;
    expect(slos.map((s) => s.name)).toEqual(['orders-latency', 'orders-availability', 'health-availability']);
    const latency = h.engine.sloTracker.getStatus('orders-latency')!;
    expect(slos[0]).toEqual({
      name: 'orders-latency',
      operation: ORDERS,
      type: 'LATENCY_P99',
      compliance: 'VIOLATED',
      target: 0.999,
      actual: latency.actual,
      budgetRemaining: 0,
      burnRate: latency.burnRate,
      totalRequests: 1000,
      failedRequests: 100,
      windowMs: 100_000,
      latencyThresholdMs: 300,
      burnRates: latency.burnRates,
      fastBurn: true,
      slowBurn: true,
      minEvents: 100,
      observedMs: 100_000,
      windowEvents: latency.windowEvents,
    });
    expect(slos[1]).toMatchObject({ latencyThresholdMs: null, compliance: 'AT_RISK', fastBurn: false });
  });

  it('reports no SLOs as zero counts', async () => {
    const { text } = await toolHarness().callTool(getSloReport);
    expect(text).toContain('Total SLOs: 0\nSUMMARY: 0 healthy, 0 at risk, 0 violated');
  });

  it('refuses an unknown format', async () => {
    expect((await toolHarness().toolError(getSloReport, { format: 'xml' })).message).toBe('argument "format" of get_slo_report must be one of text, json; got "xml" (omit it for text)');
  });
});

describe('get_executive_summary', () => {
  /** 50 operations, all slower than their baseline (p50 100 ms); five also fail, at different rates. */
  function fiftyElevated() {
    const route = (i: number) => `/api/v1/tenants/{tenantId}/catalog/resources-${String(i).padStart(2, '0')}/items/{itemId}`;
    const h = toolHarness({ staticBaselines: new Map(Array.from({ length: 50 }, (_, i) => [`GET ${route(i)}`, { latencyP50Ms: 100, latencyP99Ms: 250, errorRate: 0.01 }])) });
    const failures = new Map([
      [10, 9],
      [20, 7],
      [30, 5],
      [40, 3],
      [45, 2],
    ]);
    // 7 of 20 failing against a 50 % budget: 30 % of the budget left, AT_RISK.
    h.engine.sloTracker.register({ name: 'catalog-availability', operationName: `GET ${route(20)}`, type: 'AVAILABILITY', target: 0.5, windowMs: 1000, minEvents: 20 });
    for (let i = 0; i < 50; i++) {
      for (let r = 0; r < 20; r++) h.request(route(i), 400, r < (failures.get(i) ?? 0));
    }
    return { h, route };
  }

  it('stays under 400 tokens (characters / 4) with 50 elevated operations, worst first', async () => {
    const { h, route } = fiftyElevated();
    const summary = h.engine.healthSummary();
    expect(summary.operations.filter((o) => o.elevated)).toHaveLength(50);
    const { text } = await h.callTool(getExecutiveSummary);
    expect(text.length / 4).toBeLessThan(400);

    const lines = text.split('\n');
    expect(lines[0]).toBe('EXECUTIVE SUMMARY');
    expect(lines[1]).toBe(`Service: checkout | ${summary.status} | ${summary.timestamp}`);
    expect(lines[2]).toMatch(/^STATUS: DEGRADED: 50 of 50 operations elevated; 1 SLO at risk\.$/);
    expect(lines[3]).toBe('TOP ISSUES');
    const issues = lines.filter((l) => /^ {2}\d\. /.test(l));
    expect(issues).toHaveLength(5);
    for (const [i, op] of [10, 20, 30, 40, 45].entries()) expect(issues[i]).toContain(`${i + 1}. GET ${route(op).slice(0, 53)}`);
    const worst = h.engine.health.getOperationHealth(`GET ${route(10)}`)!;
    expect(issues[0]).toContain(`err ${percent(worst.errorRate)} (baseline 1.00%), p50 ${ms(worst.p50)} (baseline 100ms)`);
    expect(lines).toContain('  (45 more elevated)');
    const slo = h.engine.sloTracker.getStatus('catalog-availability')!;
    expect(lines.at(-2)).toBe(`SLO BUDGET: 0 healthy, 1 at risk, 0 violated; lowest ${percent(slo.budgetRemaining)} remaining (catalog-availability)`);
    expect(lines.at(-1)).toBe('OPERATIONS: 50 tracked, 1000 requests in the last 5 minutes');
  });

  it('says HEALTHY with no issues on normal traffic', async () => {
    const h = toolHarness({ staticBaselines: baselines });
    for (let i = 0; i < 30; i++) h.request('/orders', 20);
    const { text } = await h.callTool(getExecutiveSummary);
    expect(text).toContain('STATUS: HEALTHY: all 1 operation within baseline, no SLO at risk.\nTOP ISSUES\n  none\nSLO BUDGET: no SLOs defined\nOPERATIONS: 1 tracked, 30 requests');
  });
});

describe('get_cross_stack_context', () => {
  it('degrades gracefully without frontend telemetry and shows backend, SLO and correlation sections in order', async () => {
    const h = degradedService();
    const { text } = await h.callTool(getCrossStackContext, { operation_name: ORDERS });
    expect(text.split('\n')[0]).toBe(`CROSS-STACK CONTEXT: ${ORDERS}`);
    const indexes = lineIndexes(text, ['FRONTEND (User Experience)', 'BACKEND', 'SLO STATUS', 'CORRELATION']);
    expect(indexes.every((i, n) => i > (indexes[n - 1] ?? 0))).toBe(true);
    expect(text).toContain('No frontend telemetry connected');

    const orders = h.engine.health.getOperationHealth(ORDERS)!;
    expect(lineWith(text, 'Error rate:')).toContain(`${percent(orders.errorRate)} (baseline 1.00%, configured)`);
    expect(lineWith(text, 'P50:')).toContain(`${ms(orders.p50)} (baseline 20ms, configured)`);
    expect(lineWith(text, 'Deviation:')).toContain(`ELEVATED (${orders.elevatedReasons.join('; ')})`);
    expect(lineWith(text, 'Deviation:')).toContain('error rate 20.0% vs baseline 1.0%');
    const slo = h.engine.sloTracker.getStatus('orders-availability')!;
    expect(lineWith(text, 'orders-availability')).toMatch(new RegExp(`AVAILABILITY\\s+HEALTHY\\s+budget ${percent(slo.budgetRemaining)} remaining\\s+burn ${multiple(slo.burnRate)}`));
    expect(text.slice(text.indexOf('CORRELATION'))).toMatch(/W3C Trace Context.*traceparent/s);
  });

  it('flags a normal operation as normal and says when it has no SLO', async () => {
    const h = degradedService();
    const { text } = await h.callTool(getCrossStackContext, { operation_name: HEALTH });
    expect(lineWith(text, 'Deviation:')).toMatch(/Deviation: +normal$/);
    expect(text).toContain('SLO STATUS\n  no SLO defined for this operation');
  });

  it('refuses a missing or unknown operation and names the known ones', async () => {
    const h = degradedService();
    expect((await h.toolError(getCrossStackContext, {})).message).toBe(`missing required argument for get_cross_stack_context: ${OPERATION_NAME_ARGUMENT}; known operations: ${ORDERS}, ${HEALTH}`);
    expect((await h.toolError(getCrossStackContext, { operation_name: 'GET /nope' })).message).toMatch(/^unknown operation "GET \/nope".*; known operations: GET \/orders, GET \/health$/);
  });
});
