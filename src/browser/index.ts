/**
 * `@svc/register/browser`: one `init()` call makes a web page report what its users experience
 * (page loads with navigation timing and Core Web Vitals, SPA route changes, fetch and XHR calls,
 * clicks and form submits, JavaScript errors, journeys and frontend anomalies) as OpenTelemetry
 * traces to svc's frontend listener, linked to the backend's spans by W3C Trace Context.
 *
 * Built on the OpenTelemetry JS 3.x browser line: `@opentelemetry/sdk-trace`'s TracerProvider and
 * BatchSpanProcessor, `instrumentation-fetch`, `instrumentation-document-load` and
 * `exporter-trace-otlp-http`. XHR, clicks, submits, route changes, vitals, journeys and anomalies
 * are svc's own (the OpenTelemetry packages for them are still on 2.x).
 *
 * - Each interaction or navigation starts its own trace (a click, a submit, a route change, the
 *   page load); calls made within a second of it are its children, and the parent span is
 *   exported too.
 * - `traceparent` goes only to the page's own origin and `propagateTraceHeaderOrigins`.
 * - `samplingRate` is decided once per session and honoured: an unsampled session sends nothing,
 *   and its calls carry an unsampled traceparent, so the backend does not record them either.
 * - Invalid options: one console error naming every problem, and the page runs on untouched.
 *
 * @example
 * import { init } from '@svc/register/browser';
 * init({
 *   appName: 'shop-web',
 *   collectorEndpoint: '/otlp/v1/traces',
 *   routes: { '/checkout': { businessCriticality: 'revenue', baseline: { pageLoadP50Ms: 800 } } },
 *   journeys: { purchase: { steps: ['/products', '/cart', '/checkout'], baseline: { completionRate: 0.7 } } },
 * });
 */
import { type Attributes, type Context, context, propagation, ROOT_CONTEXT, type Span, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { DocumentLoadInstrumentation } from '@opentelemetry/instrumentation-document-load';
import { FetchInstrumentation } from '@opentelemetry/instrumentation-fetch';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type Sampler, SamplingDecision, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { FRONTEND, FRONTEND_ANOMALY, FRONTEND_EVENT, type FrontendAnomalyPattern, type FrontendSpanKind } from '../frontend/attribute-names.js';
import { BurstDetector, isFailedCall, isSlowPageLoad } from './anomaly-detectors.js';
import { InteractionContextManager } from './interaction-context.js';
import { type JourneyEvent, JourneyTracker, type KeyValueStorage } from './journey-tracker.js';
import { type BrowserOptions, type ResolvedOptions, type ResolvedRoute, resolveOptions } from './options.js';
import { RouteMatcher } from './route-matcher.js';
import { WebVitals } from './web-vitals.js';
import { instrumentXhr } from './xhr-instrumentation.js';

export type { AnomalyDetectionOptions, BrowserOptions, BusinessCriticality, Environment, JourneyOptions, RouteOptions } from './options.js';
export { ANOMALY_DEFAULTS } from './options.js';

/** What `init()` returns. */
export interface SvcBrowser {
  /** This tab's session (sessionStorage): the unit of sampling and of "affected users". */
  readonly sessionId: string;
  /** Whether this session's telemetry is sent (samplingRate). */
  readonly sampled: boolean;
  /** The route the page is on. */
  readonly route: string;
  /** Sends what is buffered now. */
  forceFlush(): Promise<void>;
  /** Stops recording, restores fetch and XHR, and flushes. */
  shutdown(): Promise<void>;
}

/** Calls started this long after an interaction or navigation are its children. */
export const INTERACTION_WINDOW_MS = 1000;
/** An interaction span ends at the latest this long after it started, even with calls pending. */
const MAX_INTERACTION_MS = 30_000;
const SESSION_KEY = 'svc.session';
const LOG_PREFIX = '@svc/register/browser:';

let running: SvcBrowser | undefined;

function memoryStorage(): KeyValueStorage {
  const map = new Map<string, string>();
  return { getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v), removeItem: (k) => void map.delete(k) };
}

function sessionStorageOrMemory(): KeyValueStorage {
  try {
    const storage = window.sessionStorage;
    storage.setItem('svc.probe', '1');
    storage.removeItem('svc.probe');
    return storage;
  } catch {
    return memoryStorage();
  }
}

function randomHex(bytes: number): string {
  const values = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(values, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** This tab's session: an id and a sampling decision, kept for its lifetime; a changed rate decides again. */
function sessionOf(storage: KeyValueStorage, samplingRate: number): { id: string; sampled: boolean } {
  try {
    const saved = JSON.parse(storage.getItem(SESSION_KEY) ?? 'null') as { id?: unknown; sampled?: unknown; rate?: unknown } | null;
    if (saved && typeof saved.id === 'string' && typeof saved.sampled === 'boolean' && saved.rate === samplingRate) return { id: saved.id, sampled: saved.sampled };
  } catch {
    // unreadable: a new session
  }
  const session = { id: randomHex(16), sampled: Math.random() < samplingRate };
  try {
    storage.setItem(SESSION_KEY, JSON.stringify({ ...session, rate: samplingRate }));
  } catch {
    // storage full or blocked: the session lasts this page
  }
  return session;
}

/** Root spans follow the session's decision; children follow their parent (a remote one included). */
function sessionSampler(sampled: boolean): Sampler {
  return {
    shouldSample(parentContext) {
      const parent = trace.getSpanContext(parentContext);
      const keep = parent ? (parent.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED : sampled;
      return { decision: keep ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
    },
    toString: () => `SvcSessionSampler{${sampled ? 'sampled' : 'not sampled'}}`,
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A short, stable description of a clicked element: `button#pay "Pay now"`; never an input's value. */
function describeElement(target: EventTarget | null): string {
  if (!(target instanceof Element)) return 'unknown';
  const element = target.closest('a,button,input,select,textarea,label,summary,[role="button"],[data-svc-name]') ?? target;
  const named = element.getAttribute('data-svc-name');
  if (named) return named.slice(0, 64);
  let text = element.tagName.toLowerCase();
  if (element.id) text += `#${element.id.slice(0, 40)}`;
  else if (element.classList.length) text += `.${[...element.classList].slice(0, 2).join('.').slice(0, 40)}`;
  const name = element.getAttribute('name');
  if (name) text += `[name="${name.slice(0, 40)}"]`;
  if (element.tagName === 'BUTTON' || element.tagName === 'A') {
    const label = (element.getAttribute('aria-label') ?? element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
    if (label) text += ` "${label}"`;
  }
  return text;
}

function routeAttributes(route: string, config: ResolvedRoute | undefined, journeys: JourneyTracker): Attributes {
  const attributes: Attributes = { [FRONTEND.route]: route };
  if (config) {
    const { baseline = {}, decision = {} } = config;
    const entries: [string, string | number | boolean | undefined][] = [
      [FRONTEND.businessCriticality, config.businessCriticality],
      [FRONTEND.pageLoadP50Ms, baseline.pageLoadP50Ms],
      [FRONTEND.pageLoadP99Ms, baseline.pageLoadP99Ms],
      [FRONTEND.apiCallP50Ms, baseline.apiCallP50Ms],
      [FRONTEND.interactionErrorRate, baseline.interactionErrorRate],
      [FRONTEND.escalationLevel, decision.escalationLevel],
      [FRONTEND.runbookUrl, decision.runbookUrl],
      [FRONTEND.fallbackPage, decision.fallbackPage],
      [FRONTEND.retryOnFailure, decision.retryOnFailure],
    ];
    for (const [key, value] of entries) if (value !== undefined) attributes[key] = value;
  }
  const step = journeys.stepOf(route);
  if (step) {
    attributes[FRONTEND.journeyName] = step.journey.name;
    attributes[FRONTEND.journeyStep] = step.step;
    attributes[FRONTEND.journeySteps] = step.journey.steps.length;
    if (step.journey.completionRate !== undefined) attributes[FRONTEND.journeyBaselineCompletionRate] = step.journey.completionRate;
    if (step.journey.avgDurationS !== undefined) attributes[FRONTEND.journeyBaselineAvgDurationS] = step.journey.avgDurationS;
  }
  return Object.freeze(attributes);
}

/** An anomaly event on `span`; `route` when it belongs to another route than the span's (a journey step left). */
function addAnomaly(span: Span, pattern: FrontendAnomalyPattern, count: number, threshold: number, windowMs: number, detail: string, route?: string): void {
  span.addEvent(FRONTEND_EVENT.anomaly, {
    ...(route !== undefined && { [FRONTEND.route]: route }),
    [FRONTEND_ANOMALY.pattern]: pattern,
    [FRONTEND_ANOMALY.count]: count,
    [FRONTEND_ANOMALY.threshold]: threshold,
    [FRONTEND_ANOMALY.windowMs]: windowMs,
    [FRONTEND_ANOMALY.detail]: detail.slice(0, 200),
  });
}

function addJourneyEvent(span: Span, event: JourneyEvent): void {
  const { journey } = event;
  span.addEvent(FRONTEND_EVENT.journey, {
    [FRONTEND.journeyName]: journey.name,
    [FRONTEND.journeyStatus]: event.status,
    [FRONTEND.journeyStep]: event.step,
    [FRONTEND.journeySteps]: journey.steps.length,
    [FRONTEND.journeyDurationMs]: Math.round(event.durationMs),
    ...(journey.completionRate !== undefined && { [FRONTEND.journeyBaselineCompletionRate]: journey.completionRate }),
    ...(journey.avgDurationS !== undefined && { [FRONTEND.journeyBaselineAvgDurationS]: journey.avgDurationS }),
  });
  if (event.status === 'abandoned')
    addAnomaly(
      span,
      'journey_drop_off',
      event.step,
      journey.steps.length,
      0,
      `${journey.name} abandoned at step ${event.step} of ${journey.steps.length} (${journey.steps[event.step - 1]})`,
      journey.steps[event.step - 1],
    );
}

/** Starts recording. Returns undefined, after one console error naming every problem, when the options are not valid. */
export function init(options: BrowserOptions): SvcBrowser | undefined {
  if (running) {
    console.warn(`${LOG_PREFIX} init() was already called; this call is ignored`);
    return running;
  }
  if (typeof window === 'undefined' || typeof document === 'undefined') {
    console.warn(`${LOG_PREFIX} init() needs a browser page; nothing is recorded here`);
    return undefined;
  }
  try {
    const result = resolveOptions(options, location.href);
    if (!result.ok) {
      console.error(`${LOG_PREFIX} init() refused, nothing is recorded:\n  - ${result.errors.join('\n  - ')}`);
      return undefined;
    }
    for (const warning of result.warnings) console.warn(`${LOG_PREFIX} ${warning}`);
    running = start(result.options);
    return running;
  } catch (error) {
    console.error(`${LOG_PREFIX} init() failed, nothing is recorded:`, error);
    return undefined;
  }
}

function start(options: ResolvedOptions): SvcBrowser {
  const storage = sessionStorageOrMemory();
  const session = sessionOf(storage, options.samplingRate);
  const matcher = new RouteMatcher(options.routes.map((r) => r.pattern));
  const routeConfig = new Map(options.routes.map((r) => [r.pattern, r]));
  const journeys = new JourneyTracker(options.journeys, storage);
  const attributesOf = new Map<string, Attributes>();
  const routeAttrs = (route: string): Attributes => {
    let attributes = attributesOf.get(route);
    if (!attributes) {
      attributes = routeAttributes(route, routeConfig.get(route), journeys);
      // Bounded: unmatched paths are normalised, and past 500 routes attributes are built per span.
      if (attributesOf.size < 500) attributesOf.set(route, attributes);
    }
    return attributes;
  };
  const initialRoute = matcher.route(location.pathname);
  let currentRoute = initialRoute;
  const anomalies = options.anomalyDetection;
  const rageClicks = new BurstDetector(anomalies.rageClickThreshold, anomalies.rageClickWindowMs);
  const apiFailures = new BurstDetector(anomalies.apiFailureCascadeThreshold, anomalies.apiFailureCascadeWindowMs);
  const errorLoops = new BurstDetector(anomalies.errorLoopThreshold, anomalies.errorLoopWindowMs);
  const now = () => performance.now();

  // Interactions: open spans that calls started in their window belong to, by span id.
  const contextManager = new InteractionContextManager(now);
  const open = new Map<string, { span: Span; pending: number; windowOver: boolean; end: () => void }>();
  const closeInteraction = (spanId: string): void => {
    const interaction = open.get(spanId);
    if (interaction?.windowOver && interaction.pending === 0) interaction.end();
  };

  const processor: SpanProcessor = {
    onStart(span) {
      span.setAttributes(routeAttrs(currentRoute));
      span.setAttribute(FRONTEND.session, session.id);
    },
    onEnd(span: ReadableSpan) {
      const parent = span.parentSpanContext?.spanId;
      const interaction = parent === undefined ? undefined : open.get(parent);
      if (interaction && span.attributes[FRONTEND.span] === 'api_call') {
        interaction.pending--;
        closeInteraction(parent!);
      }
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const exporter = new OTLPTraceExporter({ url: options.collectorEndpoint });
  const batch = new BatchSpanProcessor({ exporter, maxExportBatchSize: 100, maxQueueSize: 1000 });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': options.appName,
      ...(options.appVersion && { 'service.version': options.appVersion }),
      ...(options.environment && { 'deployment.environment.name': options.environment }),
      ...(options.team && { 'svc.topology.team': options.team }),
      ...(options.domain && { 'svc.topology.domain': options.domain }),
      [FRONTEND.samplingRate]: options.samplingRate,
      'telemetry.sdk.name': '@svc/register/browser',
      'telemetry.sdk.language': 'webjs',
    }),
    sampler: sessionSampler(session.sampled),
    spanLimits: { attributeValueLengthLimit: 1024, attributeCountLimit: 64, eventCountLimit: 32 },
    spanProcessors: [processor, batch],
  });
  const tracer = provider.getTracer('@svc/register/browser');
  if (!context.setGlobalContextManager(contextManager)) console.warn(`${LOG_PREFIX} another OpenTelemetry context manager is registered; API calls are not parented by the interaction that made them`);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);

  const startInteraction = (name: string, kind: FrontendSpanKind, attributes: Attributes): Span => {
    // The previous interaction stops collecting calls: the new one starts its own trace.
    for (const [id, interaction] of open) {
      interaction.windowOver = true;
      closeInteraction(id);
    }
    const span = tracer.startSpan(name, { attributes: { [FRONTEND.span]: kind, ...attributes } }, ROOT_CONTEXT);
    const id = span.spanContext().spanId;
    if (span.isRecording()) {
      let ended = false;
      const cap = setTimeout(() => interaction.end(), MAX_INTERACTION_MS);
      const interaction = {
        span,
        pending: 0,
        windowOver: false,
        end: () => {
          if (ended) return;
          ended = true;
          clearTimeout(cap);
          open.delete(id);
          span.end();
        },
      };
      open.set(id, interaction);
      setTimeout(() => {
        interaction.windowOver = true;
        closeInteraction(id);
      }, INTERACTION_WINDOW_MS);
    }
    contextManager.startInteraction(trace.setSpan(ROOT_CONTEXT, span), INTERACTION_WINDOW_MS);
    return span;
  };

  const apiStarted = (span: Span): void => {
    span.setAttribute(FRONTEND.span, 'api_call');
    const parent = (span as unknown as ReadableSpan).parentSpanContext?.spanId;
    const interaction = parent === undefined ? undefined : open.get(parent);
    if (interaction) interaction.pending++;
  };
  const apiEnded = (span: Span, status: number | undefined, url: string): void => {
    if (!isFailedCall(status)) return;
    const count = apiFailures.record('', now());
    if (count)
      addAnomaly(
        span,
        'api_failure_cascade',
        count,
        anomalies.apiFailureCascadeThreshold,
        anomalies.apiFailureCascadeWindowMs,
        `${count} failed API calls, the last ${url} (${status || 'no response'})`,
      );
  };

  const collector = options.collectorEndpoint;
  const propagateTo = options.propagateTraceHeaderOrigins.map((origin) => new RegExp(`^${escapeRegExp(origin)}(?:[/?#]|$)`, 'i'));
  const propagates = (url: string): boolean => {
    try {
      return new URL(url, location.href).origin === location.origin || propagateTo.some((re) => re.test(url));
    } catch {
      return false;
    }
  };
  const initialJourneyEvents = journeys.enter(initialRoute, Date.now());
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new DocumentLoadInstrumentation({
        applyCustomAttributesOnSpan: {
          documentLoad: (span) => {
            span.setAttributes({ ...routeAttrs(initialRoute), [FRONTEND.span]: 'page_load' });
            const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
            if (navigation && navigation.loadEventEnd > 0) {
              const pageLoadMs = Math.round(navigation.loadEventEnd - navigation.fetchStart);
              span.setAttribute(FRONTEND.pageLoadMs, pageLoadMs);
              const baseline = routeConfig.get(initialRoute)?.baseline?.pageLoadP50Ms;
              if (isSlowPageLoad(pageLoadMs, baseline, anomalies.slowPageLoadMultiplier))
                addAnomaly(
                  span,
                  'slow_page_load',
                  pageLoadMs,
                  anomalies.slowPageLoadMultiplier,
                  0,
                  `page load ${pageLoadMs} ms, over ${anomalies.slowPageLoadMultiplier} x the baseline P50 ${baseline} ms`,
                );
            }
            for (const event of initialJourneyEvents.splice(0)) addJourneyEvent(span, event);
          },
        },
      }),
      new FetchInstrumentation({
        // Same origin always; others only when listed (a string would match by prefix: https://api.example.com.evil.net).
        propagateTraceHeaderCorsUrls: propagateTo,
        ignoreUrls: [collector],
        requestHook: (span) => apiStarted(span),
        applyCustomAttributesOnSpan: (span, request, result) => {
          const url = request instanceof Request ? request.url : '';
          apiEnded(span, (result as { status?: number }).status, url || 'a fetch');
        },
      }),
    ],
  });
  const restoreXhr = instrumentXhr({
    tracer,
    propagates,
    ignored: (url) => url === collector,
    onStart: apiStarted,
    onEnd: (span, status) => apiEnded(span, status, 'an XHR'),
  });

  // Clicks and submits: an interaction each, on the capture phase so stopPropagation hides none.
  const onClick = (event: MouseEvent): void => {
    const target = describeElement(event.target);
    const span = startInteraction('click', 'interaction', { [FRONTEND.interactionType]: 'click', [FRONTEND.interactionTarget]: target });
    const count = rageClicks.record(target, now());
    if (count) addAnomaly(span, 'rage_click', count, anomalies.rageClickThreshold, anomalies.rageClickWindowMs, `${count} clicks on ${target}`);
  };
  const onSubmit = (event: SubmitEvent): void => {
    startInteraction('submit', 'interaction', { [FRONTEND.interactionType]: 'submit', [FRONTEND.interactionTarget]: describeElement(event.target) });
  };
  document.addEventListener('click', onClick, { capture: true });
  document.addEventListener('submit', onSubmit, { capture: true });

  // SPA route changes: history.pushState/replaceState and back/forward.
  const onLocation = (): void => {
    const route = matcher.route(location.pathname);
    if (route === currentRoute) return;
    const previous = currentRoute;
    currentRoute = route;
    const span = startInteraction('route_change', 'route_change', { [FRONTEND.previousRoute]: previous });
    for (const event of journeys.enter(route, Date.now())) addJourneyEvent(span, event);
  };
  const { pushState, replaceState } = history;
  history.pushState = function (this: History, ...args: Parameters<History['pushState']>) {
    pushState.apply(this, args);
    onLocation();
  };
  history.replaceState = function (this: History, ...args: Parameters<History['replaceState']>) {
    replaceState.apply(this, args);
    onLocation();
  };
  addEventListener('popstate', onLocation);

  // JavaScript errors and unhandled rejections: an error span in the current interaction's trace, else its own.
  const recordError = (error: unknown, fallback: string): void => {
    const message = error instanceof Error ? error.message : typeof error === 'string' ? error : fallback;
    const parent: Context = contextManager.interactionContext() ?? ROOT_CONTEXT;
    const span = tracer.startSpan('error', { attributes: { [FRONTEND.span]: 'error' } }, parent);
    span.recordException(error instanceof Error ? error : { name: 'Error', message });
    span.setStatus({ code: SpanStatusCode.ERROR, message: message.slice(0, 200) });
    const count = errorLoops.record(message.slice(0, 200), now());
    if (count) addAnomaly(span, 'error_loop', count, anomalies.errorLoopThreshold, anomalies.errorLoopWindowMs, `${count} x ${message}`);
    span.end();
  };
  const onError = (event: ErrorEvent): void => recordError(event.error ?? event.message, event.message || 'script error');
  const onRejection = (event: PromiseRejectionEvent): void => recordError(event.reason, 'unhandled promise rejection');
  addEventListener('error', onError);
  addEventListener('unhandledrejection', onRejection);

  // Web vitals, sent when the page is hidden (the last moment a page is sure to run).
  const vitals = new WebVitals();
  vitals.start();
  let vitalsSent = false;
  const onHidden = (): void => {
    if (document.visibilityState !== 'hidden' || vitalsSent) return;
    vitalsSent = true;
    const { lcpMs, cls, inpMs } = vitals.read();
    const span = tracer.startSpan('web_vitals', { attributes: { ...routeAttrs(initialRoute), [FRONTEND.span]: 'web_vitals' } }, ROOT_CONTEXT);
    if (lcpMs !== undefined) span.setAttribute(FRONTEND.lcpMs, Math.round(lcpMs));
    if (cls !== undefined) span.setAttribute(FRONTEND.cls, Math.round(cls * 1000) / 1000);
    if (inpMs !== undefined) span.setAttribute(FRONTEND.inpMs, Math.round(inpMs));
    span.end();
    void provider.forceFlush();
  };
  document.addEventListener('visibilitychange', onHidden);
  // Leaving the page: interactions end now (their calls still in flight are lost with the page).
  const onPageHide = (): void => {
    for (const interaction of [...open.values()]) interaction.end();
    void provider.forceFlush();
  };
  addEventListener('pagehide', onPageHide);

  return {
    sessionId: session.id,
    sampled: session.sampled,
    get route() {
      return currentRoute;
    },
    forceFlush: () => {
      for (const [id, interaction] of open) {
        interaction.windowOver = true;
        closeInteraction(id);
      }
      return provider.forceFlush();
    },
    async shutdown() {
      document.removeEventListener('click', onClick, { capture: true });
      document.removeEventListener('submit', onSubmit, { capture: true });
      document.removeEventListener('visibilitychange', onHidden);
      removeEventListener('pagehide', onPageHide);
      removeEventListener('popstate', onLocation);
      removeEventListener('error', onError);
      removeEventListener('unhandledrejection', onRejection);
      history.pushState = pushState;
      history.replaceState = replaceState;
      restoreXhr();
      unregister();
      for (const interaction of open.values()) interaction.end();
      await provider.shutdown();
      context.disable();
      running = undefined;
    },
  };
}
