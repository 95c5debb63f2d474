/**
 * get_cross_stack_context with browser telemetry: real browser-shaped spans through the OTLP
 * decoder, backend server spans continuing their traces through svc's span processors, a fake
 * clock for the 15-minute window.
 */
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { ResolvedConfig } from '../../src/config/resolved-config.js';
import { FrontendTelemetry } from '../../src/frontend/frontend-telemetry.js';
import { decodeJsonTraces } from '../../src/frontend/otlp-traces.js';
import type { ToolContext } from '../../src/mcp/tool-definition.js';
import type { ToolServices } from '../../src/mcp/tool-services.js';
import { getCrossStackContext } from '../../src/mcp/tools/get-cross-stack-context.js';
import { ServiceMetadata } from '../../src/metadata/service-metadata.js';
import { engineHarness } from '../support/engine-harness.js';
import { newRegistry } from '../support/registry.js';
import { anomaly, apiCall, browserSpans, journeyEnd, json, pageLoad, remoteParentOf, type SpanSpec } from './browser-spans.js';

const ORDERS = 'GET /api/orders';

function harness(options: { frontend?: boolean; maxRecords?: number } = {}) {
  const h = engineHarness({ serviceName: 'orders' });
  h.clock.advance(60_000);
  const telemetry = options.frontend === false ? undefined : new FrontendTelemetry({ clock: h.clock, maxRecords: options.maxRecords ?? 1000, maxRoutes: 100, maxSessions: 1000 });
  const tracer = new TracerProvider({ spanProcessors: [h.engine.createSpanProcessor(), ...(telemetry ? [telemetry.spanProcessor] : [])] }).getTracer('backend');
  const context: ToolContext = {
    caller: { agentName: 't', role: 'observer', permissions: new Set(['READ']), credential: 'token:t', tokenAgent: 't' },
    services: { analysis: h.engine, metadata: new ServiceMetadata(new ResolvedConfig([]), newRegistry()), frontend: telemetry } as Partial<ToolServices> as ToolServices,
  };
  /** The browser sends spans; for API calls, the backend serves `route` in a server span continuing the call's trace. */
  function browser(specs: SpanSpec[], backendRoute = '/api/orders'): ReadableSpan[] {
    const spans = browserSpans(specs);
    for (const span of spans) {
      if (span.kind !== SpanKind.CLIENT) continue;
      const start = h.clock.now();
      tracer
        .startSpan(`GET ${backendRoute}`, { kind: SpanKind.SERVER, startTime: start, attributes: { 'http.request.method': 'GET', 'http.route': backendRoute } }, remoteParentOf(span))
        .end(start + 20);
    }
    telemetry?.ingest(decodeJsonTraces(Buffer.from(json(spans)).toString('utf8'), { maxSpans: 1000 }));
    return spans;
  }
  async function tool(operation = ORDERS): Promise<string> {
    return (await getCrossStackContext.handler({ operation_name: operation }, context)).text;
  }
  return { ...h, telemetry, browser, tool };
}

function section(text: string, title: string): string {
  const start = text.indexOf(`\n${title}\n`);
  const end = text.indexOf('\n\n', start + 1);
  return text.slice(start + 1, end === -1 ? undefined : end);
}

describe('get_cross_stack_context with browser telemetry', () => {
  it('shows route, page load and API call P50s with baselines, journey step, funnel, anomalies and affected users', async () => {
    const h = harness();
    const sessions = ['a', 'b', 'c', 'd', 'e', 'f'];
    h.browser(sessions.map((s, i) => pageLoad(s, 1000 + i * 100)));
    h.browser(sessions.map((s, i) => apiCall(s, 100 + i * 20, { error: i < 2 })));
    h.browser([anomaly('a', 'rage_click'), anomaly('c', 'rage_click'), anomaly('c', 'api_failure_cascade')]);
    h.browser([
      journeyEnd('a', 'completed', 3, 50_000),
      journeyEnd('b', 'completed', 3, 70_000),
      journeyEnd('d', 'completed', 3, 60_000),
      journeyEnd('e', 'abandoned', 2, 0),
      journeyEnd('f', 'abandoned', 2, 0),
      journeyEnd('c', 'abandoned', 1, 0),
    ]);

    const text = await h.tool();
    expect(section(text, 'FRONTEND (User Experience)')).toBe(
      [
        'FRONTEND (User Experience)',
        '  App:               shop-web 1.4.2, production, team web, domain commerce',
        '  Route:             /checkout (revenue), 6 of 6 calls',
        '  Page load P50:     1.25s (baseline 800ms), 6 page loads',
        '  API call P50:      150ms (baseline 120ms), 6 calls, 2 failed (33.3%)',
        '  Journey:           purchase, step 3 of 3',
        '  Funnel completion: 50.0% (baseline 70.0%): 3 completed, 3 abandoned (2 at step 2, 1 at step 1); avg duration 60.00s (baseline 60.00s)',
        '  Anomalies:         rage_click 2, api_failure_cascade 1',
        '  Affected users:    3 sessions of 6 on these routes in the last 15 minutes (an anomaly or a failed call to this operation)',
        '  Decision:          escalation page_oncall, runbook https://runbooks.example.com/checkout',
      ].join('\n'),
    );
    expect(section(text, 'BACKEND')).toContain('Correlated traces: 6 browser traces in the last 15 minutes');
    expect(section(text, 'CORRELATION')).toContain('6 browser API calls in the last 15 minutes continued in a server span of this operation (6 traces);');
    expect(section(text, 'CORRELATION')).toContain('the parent of 6 of those server spans is a browser span svc received.');
  });

  it('says "insufficient data" below 5 samples instead of a P50 or a completion rate', async () => {
    const h = harness();
    h.browser([pageLoad('a', 4000), pageLoad('b', 3000), apiCall('a', 90), journeyEnd('a', 'completed', 3, 1000)]);
    const frontend = section(await h.tool(), 'FRONTEND (User Experience)');
    expect(frontend).toContain('Page load P50:     insufficient data (2 page loads in the last 15 minutes; 5 needed) (baseline 800ms)');
    expect(frontend).toContain('API call P50:      insufficient data (1 call in the last 15 minutes; 5 needed) (baseline 120ms)');
    expect(frontend).toContain('Funnel completion: insufficient data (1 journey ended in the last 15 minutes; 5 needed) (baseline 70.0%): 1 completed, 0 abandoned');
    expect(frontend).toContain('Anomalies:         none in the last 15 minutes');
    expect(frontend).toContain('Affected users:    0 sessions of 2 on these routes');
  });

  it('counts only the last 15 minutes', async () => {
    const h = harness();
    h.browser(['a', 'b', 'c', 'd', 'e'].map((s) => apiCall(s, 100)));
    h.clock.advance(10 * 60_000);
    h.browser([apiCall('f', 300)]);
    expect(await h.tool()).toContain('Route:             /checkout (revenue), 6 of 6 calls');
    h.clock.advance(6 * 60_000);
    const text = await h.tool();
    expect(text).toContain('Route:             /checkout (revenue), 1 of 1 call');
    expect(text).toContain('Correlated traces: 1 browser trace in the last 15 minutes');
  });

  it('links a call to the operation its trace reached, not to every operation of the service', async () => {
    const h = harness();
    h.browser([apiCall('a', 100)], '/api/stock');
    h.browser([apiCall('b', 100)], '/api/orders');
    expect(await h.tool('GET /api/stock')).toContain('Route:             /checkout (revenue), 1 of 1 call');
    expect(h.telemetry!.linkedOperations()).toEqual([
      { operation: 'GET /api/stock', calls: 1 },
      { operation: ORDERS, calls: 1 },
    ]);
  });

  it('degrades: disabled, enabled with nothing received, and connected without calls to this operation', async () => {
    const disabled = harness({ frontend: false });
    disabled.browser([apiCall('a', 100)]);
    const off = await disabled.tool();
    expect(section(off, 'FRONTEND (User Experience)')).toContain('No frontend telemetry connected: svc.frontend.enabled is false');
    expect(off).toContain('Correlated traces: none (no frontend telemetry connected)');

    const waiting = harness();
    waiting.telemetry!.listeningAt = 'http://127.0.0.1:7071/v1/traces';
    // The operation must exist on the backend for the tool to answer about it.
    waiting.request('/api/orders', 20);
    expect(await waiting.tool()).toContain('No frontend telemetry received yet: the listener at http://127.0.0.1:7071/v1/traces has had no browser spans,');

    const elsewhere = harness();
    elsewhere.browser([apiCall('a', 100)], '/api/stock');
    elsewhere.request('/api/orders', 20);
    const other = await elsewhere.tool();
    expect(section(other, 'FRONTEND (User Experience)')).toBe(
      [
        'FRONTEND (User Experience)',
        '  Browser telemetry is connected (1 span in the last 15 minutes from shop-web),',
        '  but no browser API call reached GET /api/orders in the last 15 minutes.',
        '  Operations browsers called: GET /api/stock (1).',
      ].join('\n'),
    );
    expect(section(other, 'CORRELATION')).toContain('No browser trace reached GET /api/orders in the last 15 minutes, so none are linked.');
  });

  it('keeps at most max-records of each kind', async () => {
    const h = harness({ maxRecords: 10 });
    h.browser(Array.from({ length: 30 }, (_, i) => apiCall(`s${i}`, 100)));
    expect(await h.tool()).toContain('Route:             /checkout (revenue), 10 of 10 calls');
  });
});
