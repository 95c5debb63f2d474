/**
 * The browser SDK's other promises, in real Chromium against the shop under the preload: invalid
 * options leave the page working and record nothing, sampling is honoured end to end, and the
 * anomalies not covered by cross-stack.test.ts (API failure cascade, slow page load, error loop,
 * journey drop-off) are reported as the backend reads them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRONTEND, FRONTEND_ANOMALY, FRONTEND_EVENT } from '../../src/frontend/attribute-names.js';
import type { DecodedSpan } from '../../src/frontend/otlp-traces.js';
import { chromiumInstalled } from './chromium.js';
import { type Shop, spanKind, startShop, until } from './shop-harness.js';

const describeInChromium = chromiumInstalled() || process.env.CI ? describe : describe.skip;

const anomalyOf = (pattern: string) => (span: DecodedSpan) => span.events.find((e) => e.name === FRONTEND_EVENT.anomaly && e.attributes[FRONTEND_ANOMALY.pattern] === pattern);

describeInChromium('the browser SDK in Chromium: options, sampling and anomalies', () => {
  let shop: Shop;

  beforeAll(async () => {
    shop = await startShop();
  }, 60_000);

  afterAll(async () => {
    await shop?.close();
  });

  const init = (options: Record<string, unknown>) => `window.svc = SvcBrowser.init(${JSON.stringify({ appName: 'lab', collectorEndpoint: shop.collector, ...options })});`;

  it('refuses malformed options with one console error naming them, records nothing, and leaves the page working', async () => {
    await shop.servePage(
      '/lab/bad',
      `window.svc = SvcBrowser.init({ appName: '', collectorEndpoint: 'nope://x', routes: { '/a': { baseline: { pageLoadP50Ms: 'fast' } } } });
       window.clicks = 0;
       addEventListener('DOMContentLoaded', () => document.getElementById('go').onclick = () => { window.clicks++; fetch('/api/orders'); });`,
    );
    const before = shop.exported.length;
    await shop.page.goto(`${shop.origin}/lab/bad`);
    await shop.page.click('#go');
    await until(() => shop.apiRequests.some((r) => r.path === '/api/orders' && r.headers.traceparent === undefined), 'the untraced call');
    expect(await shop.page.evaluate(() => [(window as unknown as { svc: unknown }).svc, (window as unknown as { clicks: number }).clicks])).toEqual([undefined, 1]);
    const errors = shop.consoleMessages.filter((m) => m.type === 'error').map((m) => m.text);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBe(
      [
        '@svc/register/browser: init() refused, nothing is recorded:',
        '  - appName must be a non-empty string; got ""',
        '  - collectorEndpoint must be an http(s) URL of an OTLP/HTTP traces endpoint, such as https://shop.example.com/otlp/v1/traces; got "nope://x"',
        '  - routes["/a"].baseline.pageLoadP50Ms must be a number above 0 to 3600000; got "fast"',
      ].join('\n'),
    );
    expect(shop.exported.length).toBe(before);
  });

  it('honours sampling: an unsampled session exports nothing and its calls are not recorded by the backend either', async () => {
    await shop.servePage('/lab/unsampled', `${init({ samplingRate: 0 })}\naddEventListener('DOMContentLoaded', () => document.getElementById('go').onclick = () => fetch('/api/orders?unsampled'));`);
    const before = shop.exported.length;
    await shop.page.goto(`${shop.origin}/lab/unsampled`);
    expect(await shop.page.evaluate(() => (window as unknown as { svc: { sampled: boolean } }).svc.sampled)).toBe(false);
    await shop.page.click('#go');
    const unsampled = await until(() => shop.apiRequests.find((r) => r.path === '/api/orders?unsampled'), 'the unsampled call');
    const [, traceId, , flags] = unsampled.headers.traceparent!.split('-');
    expect(flags).toBe('00');
    await shop.flush();

    // A sampled session next (a changed rate decides again): its call arrives, the unsampled one never did.
    await shop.servePage('/lab/sampled', `${init({ samplingRate: 1 })}\naddEventListener('DOMContentLoaded', () => document.getElementById('go').onclick = () => fetch('/api/orders?sampled'));`);
    await shop.page.goto(`${shop.origin}/lab/sampled`);
    await shop.page.click('#go');
    const sampled = await until(() => shop.apiRequests.find((r) => r.path === '/api/orders?sampled'), 'the sampled call');
    const sampledTrace = sampled.headers.traceparent!.split('-')[1];
    await shop.receiver.waitFor(() => shop.receiver.spans.some((s) => s.traceId === sampledTrace));
    await shop.exportedSpan('the sampled call', (s) => s.traceId === sampledTrace);
    expect(shop.receiver.spans.filter((s) => s.traceId === traceId)).toEqual([]);
    expect(shop.exported.slice(before).filter((s) => s.traceId === traceId || s.resource[FRONTEND.samplingRate] === 0)).toEqual([]);
  });

  it('reports an API failure cascade on the call that completes it', async () => {
    await shop.servePage(
      '/lab/cascade',
      `${init({})}\naddEventListener('DOMContentLoaded', () => document.getElementById('go').onclick = () => Promise.all([1, 2, 3].map((i) => fetch('/api/missing?' + i))));`,
    );
    await shop.page.goto(`${shop.origin}/lab/cascade`);
    await shop.page.click('#go');
    const span = await shop.exportedSpan('the cascade', (s) => spanKind(s) === 'api_call' && Boolean(anomalyOf('api_failure_cascade')(s)));
    expect(span.statusCode).toBe(2);
    expect(anomalyOf('api_failure_cascade')(span)!.attributes).toMatchObject({ [FRONTEND_ANOMALY.count]: 3, [FRONTEND_ANOMALY.threshold]: 3, [FRONTEND_ANOMALY.windowMs]: 10_000 });
  });

  it('reports a page load slower than the multiplier over its baseline P50', async () => {
    await shop.servePage('/lab/slow', init({ routes: { '/lab/slow': { baseline: { pageLoadP50Ms: 0.001 } } }, anomalyDetection: { slowPageLoadMultiplier: 1.5 } }));
    await shop.page.goto(`${shop.origin}/lab/slow`);
    const load = await shop.exportedSpan('the slow page load', (s) => spanKind(s) === 'page_load' && s.attributes[FRONTEND.route] === '/lab/slow');
    const event = anomalyOf('slow_page_load')(load);
    expect(event?.attributes[FRONTEND_ANOMALY.count]).toBe(load.attributes[FRONTEND.pageLoadMs]);
    expect(event?.attributes[FRONTEND_ANOMALY.threshold]).toBe(1.5);
  });

  it('reports an error loop after the same error repeats', async () => {
    await shop.servePage(
      '/lab/errors',
      `${init({ anomalyDetection: { errorLoopThreshold: 3 } })}\naddEventListener('DOMContentLoaded', () => document.getElementById('go').onclick = () => { for (let i = 0; i < 3; i++) setTimeout(() => { throw new Error('render failed'); }); });`,
    );
    await shop.page.goto(`${shop.origin}/lab/errors`);
    await shop.page.click('#go');
    const span = await shop.exportedSpan('the error loop', (s) => spanKind(s) === 'error' && Boolean(anomalyOf('error_loop')(s)));
    expect(anomalyOf('error_loop')(span)!.attributes[FRONTEND_ANOMALY.detail]).toBe('3 x render failed');
  });

  it('reports a journey drop-off naming the step the user left', async () => {
    const journeys = { signup: { steps: ['/lab/join', '/lab/profile', '/lab/done'] } };
    const nav = `addEventListener('DOMContentLoaded', () => document.getElementById('go').onclick = () => history.pushState({}, '', location.pathname === '/lab/join' ? '/lab/profile' : '/lab/elsewhere'));`;
    await shop.servePage('/lab/join', `${init({ journeys })}\n${nav}`);
    await shop.page.goto(`${shop.origin}/lab/join`);
    await shop.page.click('#go');
    await shop.page.click('#go');
    const left = await shop.exportedSpan('the drop-off', (s) => spanKind(s) === 'route_change' && Boolean(anomalyOf('journey_drop_off')(s)));
    expect(left.attributes[FRONTEND.route]).toBe('/lab/elsewhere');
    expect(anomalyOf('journey_drop_off')(left)!.attributes).toMatchObject({ [FRONTEND.route]: '/lab/profile', [FRONTEND_ANOMALY.count]: 2 });
    const journey = left.events.find((e) => e.name === FRONTEND_EVENT.journey)!;
    expect(journey.attributes).toMatchObject({ [FRONTEND.journeyName]: 'signup', [FRONTEND.journeyStatus]: 'abandoned', [FRONTEND.journeyStep]: 2 });
  });

  it('sends Core Web Vitals measured by Chromium when the page is hidden: LCP, CLS, INP', async () => {
    await shop.servePage(
      '/lab/vitals',
      `${init({})}
       addEventListener('DOMContentLoaded', () => {
         document.getElementById('out').textContent = 'Largest text of the page, painted first';
         // A banner that arrives late and pushes the content down, with no input near it (CLS).
         setTimeout(() => {
           const banner = document.createElement('div');
           banner.style.height = '200px';
           banner.textContent = 'banner';
           document.body.prepend(banner);
           window.shifted = true;
         }, 100);
         // A slow interaction (INP).
         document.getElementById('go').onclick = () => {
           const until = performance.now() + 120;
           while (performance.now() < until);
         };
       });`,
    );
    await shop.page.goto(`${shop.origin}/lab/vitals`);
    await shop.page.waitForFunction(() => (window as unknown as { shifted?: boolean }).shifted);
    await shop.page.click('#go');
    // Headless tabs stay visible: the page is told it was hidden, as a tab switch would.
    await shop.page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          setTimeout(() => {
            Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
            document.dispatchEvent(new Event('visibilitychange'));
            resolve();
          }, 300);
        }),
    );
    const vitals = await shop.exportedSpan('the web vitals', (s) => spanKind(s) === 'web_vitals' && s.attributes[FRONTEND.route] === '/lab/vitals');
    expect(vitals.attributes[FRONTEND.lcpMs]).toBeGreaterThan(0);
    expect(vitals.attributes[FRONTEND.inpMs]).toBeGreaterThanOrEqual(120);
    expect(vitals.attributes[FRONTEND.cls]).toBeGreaterThan(0);
  });
});
