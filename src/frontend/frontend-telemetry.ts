/**
 * What svc knows of the browsers that call this service: a bounded recent window of page loads,
 * API calls, anomalies and journey outcomes received from the browser SDK (or any OTLP source
 * with the same attributes), and the links from browser API calls to the backend operations
 * whose server spans continued their traces.
 *
 * Records are stamped with svc's clock when received (browser clocks are not trusted), kept at
 * most `maxRecords` per kind, and read for the last WINDOW_MS. Routes, journeys and sessions are
 * capped too; everything a tool shows is computed when it reads.
 */
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Clock } from '../analysis/clock.js';
import { OPERATION } from '../shared/attribute-names.js';
import { FRONTEND, FRONTEND_ANOMALY, FRONTEND_ANOMALY_PATTERNS, FRONTEND_EVENT, type FrontendSpanKind } from './attribute-names.js';
import { type AttributeValue, cut, type DecodedSpan, type SpanAttributes } from './otlp-traces.js';
import { EvictingMap, RecentRecords } from './recent-records.js';

/** The window the tools report on: the spec's "last 15 minutes". */
export const WINDOW_MS = 15 * 60_000;
/** Fewest samples a P50 or a completion rate is shown from; below it the tools say "insufficient data". */
export const MIN_SAMPLES = 5;
/**
 * The longest page load or API call duration recorded: a span outside 0 to this (no start time,
 * a browser clock jump, a forged value) is not a sample, so it cannot move a P50.
 */
export const MAX_DURATION_MS = 10 * 60_000;
/** The longest journey duration recorded. */
const MAX_JOURNEY_MS = 24 * 60 * 60_000;
/** The SDK allows 50 steps a journey. */
const MAX_JOURNEY_STEPS = 50;
/** Journeys whose baselines are remembered. */
const MAX_JOURNEYS = 100;
/** Distinct app names (service.name of browser Resources) remembered. */
const MAX_APPS = 20;

/**
 * What svc keeps of the text browsers send (characters; longer is cut, and copied so no longer
 * string is kept behind it), and what one retained item costs at most with every string at its
 * longest in two-byte characters (measured by test/frontend/hostile-memory.test.ts).
 */
export const FRONTEND_MEMORY = {
  /** Routes, app and journey names, decision fields. */
  textChars: 200,
  /** Session ids (the SDK's are 32 hex characters). */
  sessionChars: 64,
  /** A page load, API call, anomaly or journey outcome. */
  recordBytes: 1280,
  /** A backend span linked (kept by parent span id and by trace id), and a recorded span's ids (duplicates are not counted). */
  linkBytes: 640,
  sessionBytes: 384,
  routeBytes: 6144,
  /** Apps, journeys, spans per second. */
  fixedBytes: 1024 * 1024,
} as const;

/** The most the frontend telemetry holds with these limits, whatever browsers send. */
export function frontendMemoryBound(limits: { maxRecords: number; maxRoutes: number; maxSessions: number }): number {
  const m = FRONTEND_MEMORY;
  return 4 * limits.maxRecords * m.recordBytes + limits.maxRecords * m.linkBytes + limits.maxSessions * m.sessionBytes + limits.maxRoutes * m.routeBytes + m.fixedBytes;
}

export interface FrontendTelemetryOptions {
  readonly clock: Clock;
  /** Records kept per kind (page loads, API calls, anomalies, journey outcomes) and backend links. */
  readonly maxRecords: number;
  readonly maxRoutes: number;
  readonly maxSessions: number;
}

export interface RouteInfo {
  readonly app: string;
  readonly route: string;
  businessCriticality?: string;
  pageLoadP50Ms?: number;
  pageLoadP99Ms?: number;
  apiCallP50Ms?: number;
  interactionErrorRate?: number;
  escalationLevel?: string;
  runbookUrl?: string;
  fallbackPage?: string;
  retryOnFailure?: boolean;
  journey?: { name: string; step: number; steps: number };
}

export interface AppInfo {
  readonly name: string;
  version?: string;
  environment?: string;
  team?: string;
  domain?: string;
  samplingRate?: number;
}

interface PageLoad {
  readonly at: number;
  readonly app: string;
  readonly route: string;
  readonly durationMs: number;
  readonly session: string;
}

interface ApiCall {
  readonly at: number;
  readonly app: string;
  readonly route: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly durationMs: number;
  readonly failed: boolean;
  readonly session: string;
}

interface Anomaly {
  readonly at: number;
  readonly app: string;
  readonly route: string;
  readonly pattern: string;
  readonly session: string;
}

interface JourneyEnd {
  readonly at: number;
  readonly app: string;
  readonly journey: string;
  readonly completed: boolean;
  readonly step: number;
  readonly durationMs: number;
  readonly session: string;
}

/** A backend server span that continued a browser's trace. */
interface BackendLink {
  readonly at: number;
  readonly operation: string;
  readonly traceId: string;
}

export interface JourneyView {
  readonly name: string;
  readonly step: number;
  readonly steps: number;
  readonly completed: number;
  readonly abandoned: number;
  readonly avgDurationMs: number | undefined;
  readonly baselineCompletionRate: number | undefined;
  readonly baselineAvgDurationS: number | undefined;
  /** Where abandoned journeys stopped: step number to count. */
  readonly abandonedAtStep: ReadonlyMap<number, number>;
}

/** One backend operation seen from the browsers that call it, over the last WINDOW_MS. */
export interface CrossStackView {
  readonly windowMs: number;
  /** Browser API calls that reached the operation (their trace continued in one of its server spans). */
  readonly calls: number;
  readonly failedCalls: number;
  readonly apiCallDurationsMs: readonly number[];
  /** Routes the calls were made from, most calls first. */
  readonly routes: readonly { readonly route: string; readonly app: string; readonly calls: number }[];
  /** What the SDK said about the busiest route (criticality, baselines, decision, journey). */
  readonly route: RouteInfo | undefined;
  readonly pageLoadDurationsMs: readonly number[];
  readonly journey: JourneyView | undefined;
  /** Anomalies on the routes that call the operation: pattern to count, most first. */
  readonly anomalies: readonly { readonly pattern: string; readonly count: number }[];
  /** Distinct sessions with an anomaly on those routes or a failed call to the operation. */
  readonly affectedSessions: number;
  /** Distinct sessions with any record on those routes. */
  readonly sessionsOnRoutes: number;
  /** Distinct browser trace ids linked to the operation. */
  readonly correlatedTraces: number;
  /** Backend spans of the operation whose parent is a browser span svc received. */
  readonly parentsReceived: number;
  readonly app: AppInfo | undefined;
}

export interface FrontendSummary {
  readonly spansReceived: number;
  readonly lastReceivedAt: number | undefined;
  readonly spansInWindow: number;
  readonly apps: readonly AppInfo[];
  readonly sessionsInWindow: number;
  /** True when more sessions were seen than svc.frontend.max-sessions: the count is a lower bound. */
  readonly sessionsCapped: boolean;
}

function text(value: AttributeValue | undefined, max: number = FRONTEND_MEMORY.textChars): string | undefined {
  return typeof value === 'string' && value !== '' ? cut(value, max) : undefined;
}

function num(value: AttributeValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A duration, baseline or count: a finite number from `min` to `max`, else nothing. */
function within(value: AttributeValue | undefined, min: number, max: number): number | undefined {
  const n = num(value);
  return n !== undefined && n >= min && n <= max ? n : undefined;
}

/** A span's own duration, when both its times are set and it lasted 0 to MAX_DURATION_MS. */
function spanDuration(span: DecodedSpan): number | undefined {
  return span.startMs > 0 && span.endMs > 0 ? within(span.endMs - span.startMs, 0, MAX_DURATION_MS) : undefined;
}

function bool(value: AttributeValue | undefined): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

const SPAN_KINDS = new Set<string>(['page_load', 'route_change', 'api_call', 'interaction', 'error', 'web_vitals']);
/** The pattern names, so records keep these strings rather than the ones received. */
const ANOMALY_PATTERNS = new Map<string, string>(FRONTEND_ANOMALY_PATTERNS.map((p) => [p, p]));
const OTLP_CLIENT = 3;

/** The SDK's own marker, else what a plain OpenTelemetry web SDK sends (documentLoad, fetch/XHR client spans). */
function spanKindOf(span: DecodedSpan): FrontendSpanKind | undefined {
  const marked = text(span.attributes[FRONTEND.span]);
  if (marked && SPAN_KINDS.has(marked)) return marked as FrontendSpanKind;
  if (span.name === 'documentLoad') return 'page_load';
  if (span.kind === OTLP_CLIENT && span.attributes['http.request.method'] !== undefined) return 'api_call';
  return undefined;
}

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export class FrontendTelemetry {
  private readonly pageLoads: RecentRecords<PageLoad>;
  private readonly apiCalls: RecentRecords<ApiCall>;
  private readonly anomalies: RecentRecords<Anomaly>;
  private readonly journeyEnds: RecentRecords<JourneyEnd>;
  /** Server spans with a remote parent, by that parent's span id (the browser client span's). */
  private readonly linksByParent: EvictingMap<string, BackendLink>;
  /** The same, by trace id: for a trace whose backend span's parent is not the browser's (a traced proxy in between). */
  private readonly linksByTrace: EvictingMap<string, BackendLink>;
  private readonly routes: EvictingMap<string, RouteInfo>;
  private readonly journeyBaselines = new EvictingMap<string, { completionRate?: number; avgDurationS?: number }>(MAX_JOURNEYS);
  private readonly apps = new EvictingMap<string, AppInfo>(MAX_APPS);
  private readonly sessions: EvictingMap<string, number>;
  /** Trace and span ids of the page loads and API calls recorded: an exporter's retry (or a replay) is not counted twice. */
  private readonly recorded: EvictingMap<string, true>;
  /** Spans received per second (epoch second to count), the last WINDOW_MS of them: at most 900 entries. */
  private readonly spansPerSecond = new Map<number, number>();
  spansReceived = 0;
  lastReceivedAt: number | undefined;
  /** Where the listener receives (for the tools' "connected" line); set when it listens. */
  listeningAt: string | undefined;

  constructor(private readonly options: FrontendTelemetryOptions) {
    this.pageLoads = new RecentRecords(options.maxRecords);
    this.apiCalls = new RecentRecords(options.maxRecords);
    this.anomalies = new RecentRecords(options.maxRecords);
    this.journeyEnds = new RecentRecords(options.maxRecords);
    this.linksByParent = new EvictingMap(options.maxRecords);
    this.linksByTrace = new EvictingMap(options.maxRecords);
    this.routes = new EvictingMap(options.maxRoutes);
    this.sessions = new EvictingMap(options.maxSessions);
    this.recorded = new EvictingMap(options.maxRecords);
  }

  /** Takes the spans of one accepted request. */
  ingest(spans: readonly DecodedSpan[]): void {
    const at = this.options.clock.now();
    this.spansReceived += spans.length;
    if (spans.length) this.lastReceivedAt = at;
    const second = Math.floor(at / 1000);
    if (!this.spansPerSecond.has(second)) for (const old of this.spansPerSecond.keys()) if (old <= second - WINDOW_MS / 1000) this.spansPerSecond.delete(old);
    this.spansPerSecond.set(second, (this.spansPerSecond.get(second) ?? 0) + spans.length);
    for (const span of spans) this.ingestSpan(span, at);
  }

  private ingestSpan(span: DecodedSpan, at: number): void {
    const id = span.traceId + span.spanId;
    if (this.recorded.has(id)) return;
    this.recorded.set(id, true);
    const a = span.attributes;
    const app = this.noteApp(span.resource);
    const session = text(a[FRONTEND.session], FRONTEND_MEMORY.sessionChars) ?? '';
    const route = text(a[FRONTEND.route]) ?? '(no route)';
    if (session) this.sessions.set(session, at);
    if (text(a[FRONTEND.route])) this.noteRoute(app, route, a);
    switch (spanKindOf(span)) {
      case 'page_load': {
        const durationMs = a[FRONTEND.pageLoadMs] === undefined ? spanDuration(span) : within(a[FRONTEND.pageLoadMs], 0, MAX_DURATION_MS);
        if (durationMs !== undefined) this.pageLoads.push({ at, app, route, durationMs, session });
        break;
      }
      case 'api_call': {
        const durationMs = spanDuration(span);
        if (durationMs !== undefined) this.apiCalls.push({ at, app, route, traceId: span.traceId, spanId: span.spanId, durationMs, failed: span.statusCode === 2, session });
        break;
      }
      default:
        break;
    }
    for (const event of span.events) {
      const e = event.attributes;
      if (event.name === FRONTEND_EVENT.anomaly) {
        const pattern = ANOMALY_PATTERNS.get(text(e[FRONTEND_ANOMALY.pattern]) ?? '');
        // A journey drop-off names the step left, which is not the route the user went to.
        if (pattern) this.anomalies.push({ at, app, route: text(e[FRONTEND.route]) ?? route, pattern, session });
      } else if (event.name === FRONTEND_EVENT.journey) {
        const name = text(e[FRONTEND.journeyName]);
        if (!name) continue;
        this.noteJourneyBaseline(name, e);
        const status = text(e[FRONTEND.journeyStatus]);
        if (status === 'completed' || status === 'abandoned') {
          this.journeyEnds.push({
            at,
            app,
            journey: name,
            completed: status === 'completed',
            step: within(e[FRONTEND.journeyStep], 0, MAX_JOURNEY_STEPS) ?? 0,
            durationMs: within(e[FRONTEND.journeyDurationMs], 0, MAX_JOURNEY_MS) ?? 0,
            session,
          });
        }
      }
    }
  }

  private noteApp(resource: SpanAttributes): string {
    const name = text(resource['service.name']) ?? 'unknown app';
    if (!this.apps.has(name)) this.apps.set(name, { name });
    const app = this.apps.get(name)!;
    // Records keep the app's own name string, one per app.
    app.version = text(resource['service.version']) ?? app.version;
    app.environment = text(resource['deployment.environment.name']) ?? app.environment;
    app.team = text(resource['svc.topology.team']) ?? app.team;
    app.domain = text(resource['svc.topology.domain']) ?? app.domain;
    app.samplingRate = within(resource[FRONTEND.samplingRate], 0, 1) ?? app.samplingRate;
    return app.name;
  }

  private noteRoute(app: string, route: string, a: SpanAttributes): void {
    const key = `${app}\u0000${route}`;
    let info = this.routes.get(key);
    if (!info) this.routes.set(key, (info = { app, route }));
    info.businessCriticality = text(a[FRONTEND.businessCriticality]) ?? info.businessCriticality;
    info.pageLoadP50Ms = within(a[FRONTEND.pageLoadP50Ms], Number.MIN_VALUE, MAX_DURATION_MS) ?? info.pageLoadP50Ms;
    info.pageLoadP99Ms = within(a[FRONTEND.pageLoadP99Ms], Number.MIN_VALUE, MAX_DURATION_MS) ?? info.pageLoadP99Ms;
    info.apiCallP50Ms = within(a[FRONTEND.apiCallP50Ms], Number.MIN_VALUE, MAX_DURATION_MS) ?? info.apiCallP50Ms;
    info.interactionErrorRate = within(a[FRONTEND.interactionErrorRate], 0, 1) ?? info.interactionErrorRate;
    info.escalationLevel = text(a[FRONTEND.escalationLevel]) ?? info.escalationLevel;
    info.runbookUrl = text(a[FRONTEND.runbookUrl]) ?? info.runbookUrl;
    info.fallbackPage = text(a[FRONTEND.fallbackPage]) ?? info.fallbackPage;
    info.retryOnFailure = bool(a[FRONTEND.retryOnFailure]) ?? info.retryOnFailure;
    const journey = text(a[FRONTEND.journeyName]);
    const step = within(a[FRONTEND.journeyStep], 1, MAX_JOURNEY_STEPS);
    const steps = within(a[FRONTEND.journeySteps], 1, MAX_JOURNEY_STEPS);
    if (journey && step !== undefined && steps !== undefined && Number.isInteger(step) && Number.isInteger(steps) && step <= steps) {
      info.journey = { name: journey, step, steps };
      this.noteJourneyBaseline(journey, a);
    }
  }

  private noteJourneyBaseline(name: string, a: SpanAttributes): void {
    const completionRate = within(a[FRONTEND.journeyBaselineCompletionRate], 0, 1);
    const avgDurationS = within(a[FRONTEND.journeyBaselineAvgDurationS], Number.MIN_VALUE, MAX_JOURNEY_MS / 1000);
    if (completionRate === undefined && avgDurationS === undefined) return;
    const known = this.journeyBaselines.get(name) ?? {};
    this.journeyBaselines.set(name, { completionRate: completionRate ?? known.completionRate, avgDurationS: avgDurationS ?? known.avgDurationS });
  }

  /**
   * The backend side: records server spans whose parent came from another process (a browser's
   * traceparent), so browser API calls can be matched to the operation that served them.
   * O(1) per span; registered after svc's own processor, so the operation name is on the span.
   */
  readonly spanProcessor: SpanProcessor = {
    onStart: () => {},
    onEnd: (span: ReadableSpan) => {
      if (span.kind !== SpanKind.SERVER || !span.parentSpanContext?.isRemote) return;
      const operation = span.attributes[OPERATION.name];
      const link: BackendLink = { at: this.options.clock.now(), operation: typeof operation === 'string' ? operation : span.name, traceId: span.spanContext().traceId };
      this.linksByParent.set(span.parentSpanContext.spanId, link);
      this.linksByTrace.set(link.traceId, link);
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };

  /** The backend operation an API call reached, if its trace was continued here. */
  private operationOf(call: ApiCall): { operation: string; direct: boolean } | undefined {
    const byParent = this.linksByParent.get(call.spanId);
    if (byParent && byParent.traceId === call.traceId) return { operation: byParent.operation, direct: true };
    const byTrace = this.linksByTrace.get(call.traceId);
    return byTrace ? { operation: byTrace.operation, direct: false } : undefined;
  }

  summary(): FrontendSummary {
    const since = this.options.clock.now() - WINDOW_MS;
    let sessionsInWindow = 0;
    for (const lastSeen of this.sessions.values()) if (lastSeen >= since) sessionsInWindow++;
    return {
      spansReceived: this.spansReceived,
      lastReceivedAt: this.lastReceivedAt,
      spansInWindow: [...this.spansPerSecond].reduce((sum, [second, count]) => (second * 1000 >= since ? sum + count : sum), 0),
      apps: [...this.apps.values()],
      sessionsInWindow,
      sessionsCapped: this.sessions.evicted > 0,
    };
  }

  /** Backend operations that browser calls reached in the window, most calls first. */
  linkedOperations(): { operation: string; calls: number }[] {
    const counts = new Map<string, number>();
    for (const call of this.apiCalls.since(this.options.clock.now() - WINDOW_MS)) {
      const linked = this.operationOf(call);
      if (linked) counts.set(linked.operation, (counts.get(linked.operation) ?? 0) + 1);
    }
    return [...counts].map(([operation, calls]) => ({ operation, calls })).sort((a, b) => b.calls - a.calls);
  }

  crossStack(operation: string): CrossStackView {
    const since = this.options.clock.now() - WINDOW_MS;
    const calls = this.apiCalls.since(since).filter((call) => this.operationOf(call)?.operation === operation);
    const routeCounts = new Map<string, { route: string; app: string; calls: number }>();
    for (const call of calls) {
      const key = `${call.app}\u0000${call.route}`;
      const entry = routeCounts.get(key) ?? { route: call.route, app: call.app, calls: 0 };
      entry.calls++;
      routeCounts.set(key, entry);
    }
    const routes = [...routeCounts.values()].sort((a, b) => b.calls - a.calls);
    const routeKeys = new Set(routeCounts.keys());
    const onRoutes = (r: { app: string; route: string }): boolean => routeKeys.has(`${r.app}\u0000${r.route}`);
    const top = routes[0];
    const route = top && this.routes.get(`${top.app}\u0000${top.route}`);

    const anomalies = this.anomalies.since(since).filter(onRoutes);
    const anomalyCounts = new Map<string, number>();
    for (const a of anomalies) anomalyCounts.set(a.pattern, (anomalyCounts.get(a.pattern) ?? 0) + 1);
    const affected = new Set<string>();
    for (const a of anomalies) if (a.session) affected.add(a.session);
    for (const call of calls) if (call.failed && call.session) affected.add(call.session);
    const pageLoads = this.pageLoads.since(since).filter(onRoutes);
    const sessions = new Set<string>();
    for (const record of [...calls, ...pageLoads, ...anomalies]) if (record.session) sessions.add(record.session);

    const traces = new Set(calls.map((c) => c.traceId));
    return {
      windowMs: WINDOW_MS,
      calls: calls.length,
      failedCalls: calls.filter((c) => c.failed).length,
      apiCallDurationsMs: calls.map((c) => c.durationMs),
      routes,
      route,
      pageLoadDurationsMs: top ? pageLoads.filter((p) => p.app === top.app && p.route === top.route).map((p) => p.durationMs) : [],
      journey: route?.journey && this.journeyView(route.journey, since),
      anomalies: [...anomalyCounts].map(([pattern, count]) => ({ pattern, count })).sort((a, b) => b.count - a.count),
      affectedSessions: affected.size,
      sessionsOnRoutes: sessions.size,
      correlatedTraces: traces.size,
      parentsReceived: calls.filter((c) => this.operationOf(c)?.direct).length,
      app: top && this.apps.get(top.app),
    };
  }

  private journeyView(journey: { name: string; step: number; steps: number }, since: number): JourneyView {
    const ends = this.journeyEnds.since(since).filter((j) => j.journey === journey.name);
    const completed = ends.filter((j) => j.completed);
    const abandonedAtStep = new Map<number, number>();
    for (const j of ends) if (!j.completed) abandonedAtStep.set(j.step, (abandonedAtStep.get(j.step) ?? 0) + 1);
    const baseline = this.journeyBaselines.get(journey.name);
    return {
      ...journey,
      completed: completed.length,
      abandoned: ends.length - completed.length,
      avgDurationMs: completed.length ? completed.reduce((sum, j) => sum + j.durationMs, 0) / completed.length : undefined,
      baselineCompletionRate: baseline?.completionRate,
      baselineAvgDurationS: baseline?.avgDurationS,
      abandonedAtStep,
    };
  }
}
