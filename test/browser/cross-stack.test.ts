/**
 * The browser SDK in real headless Chromium, against a shop backend running under the preload
 * (fixtures/browser-app): the page loads the `<script>` build, sends its traces to svc's frontend
 * listener (another origin: CORS), calls the backend, a third-party origin and an allowed partner
 * origin; the test reads what the browser exported (the requests Chromium made), what the backend
 * exported (an OTLP receiver) and what an agent sees (get_cross_stack_context over MCP).
 * A screenshot of the page after the run is written to test-output/browser/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRONTEND, FRONTEND_ANOMALY, FRONTEND_EVENT } from '../../src/frontend/attribute-names.js';
import type { DecodedSpan } from '../../src/frontend/otlp-traces.js';
import { chromiumInstalled } from './chromium.js';
import { spanKind as kind, type Shop, startShop, until } from './shop-harness.js';

// Without Chromium a developer's run skips these; CI (which installs it) never does.
const describeInChromium = chromiumInstalled() || process.env.CI ? describe : describe.skip;

describeInChromium('the browser SDK in Chromium, linked to a backend under the preload', () => {
  let shop: Shop;
  const exportedSpan = (what: string, predicate: (span: DecodedSpan) => boolean) => shop.exportedSpan(what, predicate);

  beforeAll(async () => {
    shop = await startShop();
  }, 60_000);

  afterAll(async () => {
    await shop?.screenshot('fixture-page.png');
    await shop?.close();
  });

  it('records a page load with navigation timing, the route and its metadata, in a trace of its own', async () => {
    await shop.page.goto(`${shop.origin}/products`);
    const load = await exportedSpan('the documentLoad span', (s) => kind(s) === 'page_load');
    expect(load.name).toBe('documentLoad');
    expect(load.parentSpanId).toBe('');
    expect(load.attributes[FRONTEND.route]).toBe('/products');
    expect(load.attributes[FRONTEND.businessCriticality]).toBe('engagement');
    expect(load.attributes[FRONTEND.pageLoadP50Ms]).toBe(800);
    expect(load.attributes[FRONTEND.pageLoadMs]).toBeGreaterThan(0);
    expect(load.attributes[FRONTEND.journeyName]).toBe('purchase');
    expect(load.attributes[FRONTEND.journeyStep]).toBe(1);
    expect(typeof load.attributes[FRONTEND.session]).toBe('string');
    expect(load.events.map((e) => e.name)).toEqual(expect.arrayContaining(['fetchStart', 'domInteractive', 'loadEventEnd', FRONTEND_EVENT.journey]));
    expect(load.resource).toMatchObject({
      'service.name': 'shop-web',
      'service.version': '1.4.2',
      'deployment.environment.name': 'production',
      'svc.topology.team': 'web',
      'svc.topology.domain': 'commerce',
    });
    const started = load.events.find((e) => e.name === FRONTEND_EVENT.journey)!;
    expect(started.attributes).toMatchObject({ [FRONTEND.journeyName]: 'purchase', [FRONTEND.journeyStatus]: 'started', [FRONTEND.journeyStep]: 1 });
    expect(shop.consoleMessages.filter((m) => m.type === 'error')).toEqual([]);
  });

  it('follows a navigation through the journey: a route change span and trace per navigation, progress and completion', async () => {
    await shop.page.click('nav >> text=Cart');
    await shop.page.click('nav >> text=Checkout');
    const toCart = await exportedSpan('the route change to /cart', (s) => kind(s) === 'route_change' && s.attributes[FRONTEND.route] === '/cart');
    const toCheckout = await exportedSpan('the route change to /checkout', (s) => kind(s) === 'route_change' && s.attributes[FRONTEND.route] === '/checkout');
    expect(toCart.attributes[FRONTEND.previousRoute]).toBe('/products');
    expect(toCheckout.attributes[FRONTEND.businessCriticality]).toBe('revenue');
    expect(toCheckout.attributes[FRONTEND.runbookUrl]).toBe('https://runbooks.example.com/checkout');
    expect(toCart.parentSpanId).toBe('');
    expect(toCheckout.parentSpanId).toBe('');
    const load = shop.exported.find((s) => kind(s) === 'page_load')!;
    expect(new Set([load.traceId, toCart.traceId, toCheckout.traceId]).size).toBe(3);
    const journey = (span: DecodedSpan) => span.events.find((e) => e.name === FRONTEND_EVENT.journey)?.attributes;
    expect(journey(toCart)).toMatchObject({ [FRONTEND.journeyStatus]: 'progressed', [FRONTEND.journeyStep]: 2, [FRONTEND.journeySteps]: 3 });
    expect(journey(toCheckout)).toMatchObject({ [FRONTEND.journeyStatus]: 'completed', [FRONTEND.journeyStep]: 3, [FRONTEND.journeyBaselineCompletionRate]: 0.7 });
    expect(journey(toCheckout)![FRONTEND.journeyDurationMs]).toBeGreaterThanOrEqual(0);
  });

  it('continues a fetch in the backend: the same trace id, and the backend span’s parent is a span the browser exported', async () => {
    await shop.page.click('#load-orders');
    const call = await exportedSpan('the fetch span', (s) => kind(s) === 'api_call' && String(s.attributes['url.full']).endsWith('/api/orders'));
    const backend = await shop.receiver.waitFor(() => shop.receiver.spans.find((s) => s.kind === 2 && s.traceId === call.traceId));
    expect(backend.attributes['svc.operation.name']).toBe('GET /api/orders');
    expect(backend.parentSpanId).toBe(call.spanId);
    const click = await exportedSpan('the click that made the call', (s) => s.spanId === call.parentSpanId);
    expect(click.name).toBe('click');
    expect(click.traceId).toBe(call.traceId);
    expect(click.parentSpanId).toBe('');
    expect(click.attributes[FRONTEND.interactionTarget]).toBe('button#load-orders "Load orders"');
    expect(call.attributes[FRONTEND.route]).toBe('/checkout');
    expect(shop.apiRequests.filter((r) => r.path === '/api/orders').at(-1)!.headers.traceparent).toBe(`00-${call.traceId}-${call.spanId}-01`);
  });

  it('traces XHR calls the same way', async () => {
    await shop.page.click('#xhr-orders');
    const call = await exportedSpan('the XHR span', (s) => kind(s) === 'api_call' && String(s.attributes['url.full']).endsWith('/api/orders?via=xhr'));
    expect(call.attributes['http.response.status_code']).toBe(200);
    const backend = await shop.receiver.waitFor(() => shop.receiver.spans.find((s) => s.kind === 2 && s.traceId === call.traceId));
    expect(backend.parentSpanId).toBe(call.spanId);
    expect(shop.exported.find((s) => s.spanId === call.parentSpanId)?.name).toBe('click');
  });

  it('sends no traceparent to a third-party origin, and one to the allowed partner origin', async () => {
    await shop.page.click('#third-party');
    await shop.page.click('#partner');
    await until(() => shop.third.received.length > 0 && shop.partner.received.length > 0, 'both calls to arrive');
    expect(shop.third.received[0]!.traceparent).toBeUndefined();
    expect(shop.partner.received[0]!.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    // Both calls are traced in the browser all the same.
    await exportedSpan('the third-party call span', (s) => kind(s) === 'api_call' && String(s.attributes['url.full']).startsWith(shop.third.url));
  });

  it('reports a burst of clicks as a rage click', async () => {
    for (let i = 0; i < 4; i++) await shop.page.click('#pay', { delay: 0 });
    const rage = await exportedSpan('the rage click', (s) => s.events.some((e) => e.name === FRONTEND_EVENT.anomaly && e.attributes[FRONTEND_ANOMALY.pattern] === 'rage_click'));
    const event = rage.events.find((e) => e.name === FRONTEND_EVENT.anomaly)!;
    expect(event.attributes).toMatchObject({ [FRONTEND_ANOMALY.count]: 3, [FRONTEND_ANOMALY.threshold]: 3, [FRONTEND_ANOMALY.windowMs]: 2000 });
    expect(rage.attributes[FRONTEND.interactionTarget]).toBe('button#pay "Pay now"');
    expect(rage.attributes[FRONTEND.route]).toBe('/checkout');
  });

  it('records a JavaScript error in the trace of the click that caused it', async () => {
    await shop.page.click('#fail');
    const error = await exportedSpan('the error span', (s) => kind(s) === 'error');
    expect(error.statusCode).toBe(2);
    expect(error.events.find((e) => e.name === 'exception')?.attributes['exception.message']).toBe('checkout widget crashed');
    expect(shop.exported.find((s) => s.spanId === error.parentSpanId)?.attributes[FRONTEND.interactionTarget]).toBe('button#fail "Break something"');
  });

  it('shows the agent the frontend, the backend and their correlation in get_cross_stack_context', async () => {
    // Five page loads of /checkout, each calling the API: enough samples for P50s. A call still in
    // flight when the page unloads is not recorded, so each is exported before the next load.
    const ordersCalls = () => shop.exported.filter((s) => kind(s) === 'api_call' && String(s.attributes['url.full']).endsWith('/api/orders')).length;
    for (let i = 0; i < 5; i++) {
      await shop.page.goto(`${shop.origin}/checkout`);
      const before = ordersCalls();
      await shop.page.click('#load-orders');
      await until(
        async () => {
          await shop.flush();
          return ordersCalls() > before;
        },
        `call ${i + 1} to be exported`,
      );
    }
    const call = async (): Promise<string> => {
      await shop.flush();
      return shop.tool('get_cross_stack_context', { operation_name: 'GET /api/orders' });
    };
    let last = '';
    const text = await until(async () => {
      const t = (last = await call());
      return /Page load P50: +\d/.test(t) && /API call P50: +\d/.test(t) && /rage_click 1/.test(t) ? t : undefined;
    }, 'the cross-stack context to show the page loads, calls and the rage click').catch((error: Error) => {
      throw new Error(`${error.message}; it said:\n${last}`);
    });
    // For the person looking at the screenshot: the page, and what the agent was told about it.
    await shop.page.evaluate((answer) => {
      document.getElementById('log')!.textContent = `get_cross_stack_context GET /api/orders, as the agent read it:\n\n${answer}`;
    }, text);
    expect(text).toMatch(/^CROSS-STACK CONTEXT: GET \/api\/orders$/m);
    expect(text).toContain('App:               shop-web 1.4.2, production, team web, domain commerce');
    expect(text).toMatch(/Route: +\/checkout \(revenue\), \d+ of \d+ calls/);
    expect(text).toMatch(/Page load P50: +[\d.]+m?s \(baseline 500ms\), [5-9] page loads/);
    expect(text).toMatch(/API call P50: +[\d.]+m?s \(baseline 120ms\), \d+ calls, none failed/);
    expect(text).toContain('Journey:           purchase, step 3 of 3');
    expect(text).toMatch(/Funnel completion: insufficient data \(1 journey ended in the last 15 minutes; 5 needed\) \(baseline 70\.0%\): 1 completed, 0 abandoned/);
    expect(text).toMatch(/Anomalies: +rage_click 1/);
    expect(text).toMatch(/Affected users: +1 session of 1 on these routes/);
    expect(text).toContain('Decision:          escalation page_oncall, runbook https://runbooks.example.com/checkout, fallback page /cart, retry on failure yes');
    expect(text).toMatch(/Deviation: +\S+/);
    expect(text).toMatch(/Correlated traces: +\d+ browser traces in the last 15 minutes/);
    expect(text).toMatch(/orders-availability\s+AVAILABILITY/);
    expect(text).toMatch(/the parent of (\d+) of those server spans is a browser span svc received/);
    const [, calls, , parents] = /(\d+) browser API calls in the last 15 minutes continued in a server span of this operation \((\d+) traces\);\n {2}the parent of (\d+)/.exec(text)!;
    expect(parents).toBe(calls);
  }, 60_000);
});
