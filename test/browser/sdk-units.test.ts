/**
 * The browser SDK's DOM-free parts, run in Node: option validation and defaults, the collector
 * endpoint, route matching, journeys (with their storage), the anomaly detectors with explicit
 * times, and the interaction context manager with an explicit clock.
 */
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { BurstDetector, isFailedCall, isSlowPageLoad } from '../../src/browser/anomaly-detectors.js';
import { InteractionContextManager } from '../../src/browser/interaction-context.js';
import { JOURNEY_TIMEOUT_MS, JourneyTracker, type KeyValueStorage } from '../../src/browser/journey-tracker.js';
import { ANOMALY_DEFAULTS, resolveCollectorEndpoint, resolveOptions } from '../../src/browser/options.js';
import { RouteMatcher } from '../../src/browser/route-matcher.js';

const PAGE = 'https://shop.example.com/cart';

describe('init() options', () => {
  it('takes every option of the spec with its defaults', () => {
    const result = resolveOptions({ appName: 'shop-web', collectorEndpoint: 'https://collect.example.com' }, PAGE);
    expect(result).toEqual({
      ok: true,
      warnings: [],
      options: {
        appName: 'shop-web',
        appVersion: undefined,
        environment: undefined,
        collectorEndpoint: 'https://collect.example.com/v1/traces',
        team: undefined,
        domain: undefined,
        routes: [],
        journeys: [],
        anomalyDetection: {
          rageClickThreshold: 3,
          rageClickWindowMs: 2000,
          apiFailureCascadeThreshold: 3,
          apiFailureCascadeWindowMs: 10_000,
          slowPageLoadMultiplier: 2.0,
          errorLoopThreshold: 5,
          errorLoopWindowMs: 30_000,
        },
        propagateTraceHeaderOrigins: [],
        samplingRate: 1,
      },
    });
    expect(ANOMALY_DEFAULTS).toEqual((result as { options: { anomalyDetection: unknown } }).options.anomalyDetection);
  });

  it('keeps every option given', () => {
    const result = resolveOptions(
      {
        appName: 'shop-web',
        appVersion: '1.4.2',
        environment: 'staging',
        collectorEndpoint: '/otlp/v1/traces',
        team: 'web',
        domain: 'commerce',
        routes: {
          '/checkout': {
            businessCriticality: 'revenue',
            baseline: { pageLoadP50Ms: 800, pageLoadP99Ms: 2000, apiCallP50Ms: 120, interactionErrorRate: 0.02 },
            decision: { escalationLevel: 'page_oncall', runbookUrl: 'https://r', fallbackPage: '/cart', retryOnFailure: true },
          },
        },
        journeys: { purchase: { steps: ['/cart', '/checkout'], baseline: { completionRate: 0.7, avgDurationS: 90 } } },
        anomalyDetection: {
          rageClickThreshold: 4,
          rageClickWindowMs: 1000,
          apiFailureCascadeThreshold: 2,
          apiFailureCascadeWindowMs: 5000,
          slowPageLoadMultiplier: 3,
          errorLoopThreshold: 3,
          errorLoopWindowMs: 10_000,
        },
        propagateTraceHeaderOrigins: ['https://API.example.com:443/'],
        samplingRate: 0.25,
      },
      PAGE,
    );
    expect(result.ok).toBe(true);
    const { options } = result as Extract<typeof result, { ok: true }>;
    expect(options.collectorEndpoint).toBe('https://shop.example.com/otlp/v1/traces');
    expect(options.routes[0]).toEqual({
      pattern: '/checkout',
      businessCriticality: 'revenue',
      baseline: { pageLoadP50Ms: 800, pageLoadP99Ms: 2000, apiCallP50Ms: 120, interactionErrorRate: 0.02 },
      decision: { escalationLevel: 'page_oncall', runbookUrl: 'https://r', fallbackPage: '/cart', retryOnFailure: true },
    });
    expect(options.journeys).toEqual([{ name: 'purchase', steps: ['/cart', '/checkout'], completionRate: 0.7, avgDurationS: 90 }]);
    expect(options.anomalyDetection.rageClickThreshold).toBe(4);
    expect(options.propagateTraceHeaderOrigins).toEqual(['https://api.example.com']);
    expect(options.samplingRate).toBe(0.25);
    expect(options.environment).toBe('staging');
  });

  it('names every missing or malformed option at once', () => {
    const result = resolveOptions(
      {
        collectorEndpoint: 'ftp://nope',
        environment: 'prod',
        routes: { checkout: { businessCriticality: 'money', baseline: { pageLoadP50Ms: -1, interactionErrorRate: 2 }, decision: { retryOnFailure: 'yes' } } },
        journeys: { purchase: { steps: [] }, twice: { steps: ['/a', '/a'] } },
        anomalyDetection: { rageClickThreshold: 1.5, errorLoopWindowMs: 0 },
        propagateTraceHeaderOrigins: ['https://api.example.com/v1'],
        samplingRate: 2,
      },
      PAGE,
    );
    expect(result.ok).toBe(false);
    expect([...(result as { errors: readonly string[] }).errors].sort()).toEqual(
      [
        'appName is required',
        'collectorEndpoint must be an http(s) URL of an OTLP/HTTP traces endpoint, such as https://shop.example.com/otlp/v1/traces; got "ftp://nope"',
        'routes["checkout"]: a route pattern starts with / (such as /orders/:id)',
        'routes["checkout"].decision.retryOnFailure must be true or false; got "yes"',
        'routes["checkout"].businessCriticality must be one of revenue, engagement, internal; got "money"',
        'routes["checkout"].baseline.pageLoadP50Ms must be a number above 0 to 3600000; got number -1',
        'routes["checkout"].baseline.interactionErrorRate must be a number from 0 to 1; got number 2',
        'journeys["purchase"].steps is required: an ordered array of route patterns such as ["/cart", "/checkout"]; got an array',
        'journeys["twice"].steps names a route twice; each step is a distinct route',
        'anomalyDetection.errorLoopWindowMs must be a number above 0 to 3600000; got number 0',
        'anomalyDetection.rageClickThreshold must be an integer from 2 to 1000; got number 1.5',
        'propagateTraceHeaderOrigins[0] must be an origin such as https://api.example.com (scheme, host, port; no path); got "https://api.example.com/v1"',
        'environment must be one of production, staging, development; got "prod"',
        'samplingRate must be a number from 0 to 1; got number 2',
      ].sort(),
    );
    expect(resolveOptions(undefined)).toEqual({ ok: false, errors: ['options must be an object with appName and collectorEndpoint; got undefined'] });
  });

  it('warns of unknown options and ignores them', () => {
    const result = resolveOptions({ appName: 'a', collectorEndpoint: 'https://c/v1/traces', sampleRate: 0.5, routes: { '/a': { baseline: { pageLoadP50: 3 } } } }, PAGE);
    expect(result).toMatchObject({
      ok: true,
      warnings: [
        'sampleRate is not an option, ignored',
        'routes["/a"].baseline.pageLoadP50 is not an option, ignored (options here: pageLoadP50Ms, pageLoadP99Ms, apiCallP50Ms, interactionErrorRate)',
      ],
    });
  });

  it('treats collectorEndpoint like OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: as given, /v1/traces added to a bare URL', () => {
    expect(resolveCollectorEndpoint('https://c.example.com', PAGE)).toBe('https://c.example.com/v1/traces');
    expect(resolveCollectorEndpoint('https://c.example.com/', PAGE)).toBe('https://c.example.com/v1/traces');
    expect(resolveCollectorEndpoint('https://c.example.com/otlp/v1/traces', PAGE)).toBe('https://c.example.com/otlp/v1/traces');
    expect(resolveCollectorEndpoint('https://c.example.com/custom', PAGE)).toBe('https://c.example.com/custom');
    expect(resolveCollectorEndpoint('/otlp/v1/traces', PAGE)).toBe('https://shop.example.com/otlp/v1/traces');
    expect(resolveCollectorEndpoint('javascript:alert(1)', PAGE)).toBeUndefined();
    expect(resolveCollectorEndpoint('/relative', undefined)).toBeUndefined();
  });
});

describe('routes', () => {
  const matcher = new RouteMatcher(['/orders/:id', '/orders/new', '/docs/*', '/cart', '/']);

  it('matches the most specific configured pattern', () => {
    expect(matcher.route('/orders/42')).toBe('/orders/:id');
    expect(matcher.route('/orders/new')).toBe('/orders/new');
    expect(matcher.route('/docs/a/b')).toBe('/docs/*');
    expect(matcher.route('/cart/')).toBe('/cart');
    expect(matcher.route('/')).toBe('/');
  });

  it('turns an unmatched path into a route with ids replaced, so routes stay few', () => {
    expect(matcher.route('/invoice/8812')).toBe('/invoice/:id');
    expect(matcher.route('/u/3f2a9c1e-8b7d-4c6e-9f0a-1b2c3d4e5f60/settings')).toBe('/u/:id/settings');
    expect(matcher.route('/p/ab12cd34ef56ab78')).toBe('/p/:id');
    expect(matcher.route('/shoes/sku-a1b2c3')).toBe('/shoes/:id');
    expect(matcher.route('/about/team')).toBe('/about/team');
    expect(matcher.route(`/${'x'.repeat(500)}`)).toHaveLength(128);
  });
});

function memory(): KeyValueStorage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v), removeItem: (k) => void map.delete(k) };
}

describe('journeys', () => {
  const purchase = { name: 'purchase', steps: ['/products', '/cart', '/checkout'], completionRate: 0.7 };
  const signup = { name: 'signup', steps: ['/join', '/welcome'] };
  const summary = (events: ReturnType<JourneyTracker['enter']>) => events.map((e) => `${e.journey.name} ${e.status} ${e.step} ${e.durationMs}`);

  it('starts, progresses, completes, and survives a page load through its storage', () => {
    const storage = memory();
    expect(summary(new JourneyTracker([purchase], storage).enter('/products', 0))).toEqual(['purchase started 1 0']);
    // A full page load: a new tracker on the same storage.
    const tracker = new JourneyTracker([purchase], storage);
    expect(summary(tracker.enter('/cart', 1000))).toEqual(['purchase progressed 2 1000']);
    expect(summary(tracker.enter('/products', 2000))).toEqual([]);
    expect(summary(tracker.enter('/checkout', 5000))).toEqual(['purchase completed 3 5000']);
    expect(storage.map.size).toBe(0);
    expect(summary(tracker.enter('/checkout', 6000))).toEqual([]);
  });

  it('is abandoned at the furthest step on a route outside it, or after 30 minutes, and another may start', () => {
    const tracker = new JourneyTracker([purchase, signup], memory());
    tracker.enter('/products', 0);
    tracker.enter('/cart', 100);
    expect(summary(tracker.enter('/join', 300))).toEqual(['purchase abandoned 2 300', 'signup started 1 0']);
    expect(summary(tracker.enter('/welcome', 400))).toEqual(['signup completed 2 100']);
    tracker.enter('/products', 1000);
    expect(summary(tracker.enter('/cart', 1000 + JOURNEY_TIMEOUT_MS + 1))).toEqual(['purchase abandoned 1 0']);
  });

  it('counts skipping ahead as progress, and names the journey step of a route', () => {
    const tracker = new JourneyTracker([purchase], memory());
    tracker.enter('/products', 0);
    expect(summary(tracker.enter('/checkout', 10))).toEqual(['purchase completed 3 10']);
    expect(tracker.stepOf('/cart')).toEqual({ journey: purchase, step: 2 });
    expect(tracker.stepOf('/about')).toBeUndefined();
  });

  it('ignores unreadable stored state', () => {
    const storage = memory();
    storage.setItem('svc.journey', '{"name": 5}');
    expect(summary(new JourneyTracker([purchase], storage).enter('/cart', 0))).toEqual([]);
    storage.setItem('svc.journey', 'not json');
    expect(summary(new JourneyTracker([purchase], storage).enter('/products', 0))).toEqual(['purchase started 1 0']);
  });
});

describe('anomaly detectors', () => {
  it('fire once when a burst reaches the threshold within the window, then count afresh', () => {
    const rage = new BurstDetector(3, 2000);
    expect([0, 100, 200, 300, 400, 500, 600].map((t) => rage.record('button#pay', t))).toEqual([0, 0, 3, 0, 0, 3, 0]);
    const slow = new BurstDetector(3, 2000);
    expect([0, 1500, 3000, 4500].map((t) => slow.record('button#pay', t))).toEqual([0, 0, 0, 0]);
    const mixed = new BurstDetector(3, 2000);
    expect([mixed.record('a', 0), mixed.record('b', 1), mixed.record('a', 2), mixed.record('a', 3)]).toEqual([0, 0, 0, 3]);
  });

  it('bounds the keys it tracks', () => {
    const detector = new BurstDetector(2, 1000);
    for (let i = 0; i < 1000; i++) detector.record(`k${i}`, i);
    expect(detector.record('k999', 1000)).toBe(2);
    expect(detector.record('k0', 1000)).toBe(0);
  });

  it('judges slow page loads only against a baseline, and failed calls by status', () => {
    expect(isSlowPageLoad(1601, 800, 2)).toBe(true);
    expect(isSlowPageLoad(1600, 800, 2)).toBe(false);
    expect(isSlowPageLoad(99_999, undefined, 2)).toBe(false);
    expect([0, undefined, 200, 302, 404, 503].map(isFailedCall)).toEqual([true, true, false, false, true, true]);
  });
});

describe('the interaction context manager', () => {
  it('answers with the interaction outside with() scopes while it lasts, and with the scope inside them', () => {
    let now = 0;
    const manager = new InteractionContextManager(() => now);
    const click = trace.setSpanContext(ROOT_CONTEXT, { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 });
    expect(manager.active()).toBe(ROOT_CONTEXT);
    manager.startInteraction(click, 1000);
    expect(manager.active()).toBe(click);
    // A document load's explicit root context is not replaced by the interaction.
    expect(manager.with(ROOT_CONTEXT, () => manager.active())).toBe(ROOT_CONTEXT);
    expect(manager.bind(ROOT_CONTEXT, () => manager.active())()).toBe(ROOT_CONTEXT);
    now = 999;
    expect(manager.active()).toBe(click);
    now = 1000;
    expect(manager.active()).toBe(ROOT_CONTEXT);
    expect(manager.interactionContext()).toBeUndefined();
  });
});
