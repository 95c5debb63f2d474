/**
 * The options of `init()`: the spec's "Frontend SDK options" table, with its defaults, plus
 * `propagateTraceHeaderOrigins` and `samplingRate`. Validated once, here, into a frozen
 * ResolvedOptions; every problem is named with its path so one console error says all that is
 * wrong. Pure: no DOM.
 */

export type Environment = 'production' | 'staging' | 'development';
export type BusinessCriticality = 'revenue' | 'engagement' | 'internal';

export interface RouteOptions {
  readonly businessCriticality?: BusinessCriticality;
  readonly baseline?: {
    readonly pageLoadP50Ms?: number;
    readonly pageLoadP99Ms?: number;
    readonly apiCallP50Ms?: number;
    /** 0.0 to 1.0. */
    readonly interactionErrorRate?: number;
  };
  readonly decision?: {
    readonly escalationLevel?: string;
    readonly runbookUrl?: string;
    /** The route to send users to when this one fails. */
    readonly fallbackPage?: string;
    readonly retryOnFailure?: boolean;
  };
}

export interface JourneyOptions {
  /** Route patterns, in order. */
  readonly steps: readonly string[];
  readonly baseline?: {
    /** 0.0 to 1.0. */
    readonly completionRate?: number;
    readonly avgDurationS?: number;
  };
}

export interface AnomalyDetectionOptions {
  readonly rageClickThreshold?: number;
  readonly rageClickWindowMs?: number;
  readonly apiFailureCascadeThreshold?: number;
  readonly apiFailureCascadeWindowMs?: number;
  /** A page load slower than this multiple of its route's baseline pageLoadP50Ms. */
  readonly slowPageLoadMultiplier?: number;
  readonly errorLoopThreshold?: number;
  readonly errorLoopWindowMs?: number;
}

export interface BrowserOptions {
  /** Required: the service.name of the browser app. */
  readonly appName: string;
  readonly appVersion?: string;
  readonly environment?: Environment;
  /**
   * Required: the OTLP/HTTP traces URL (like OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), such as
   * `https://shop.example.com/otlp/v1/traces` or `/otlp/v1/traces` on the page's origin. A URL
   * without a path gets `/v1/traces` appended.
   */
  readonly collectorEndpoint: string;
  readonly team?: string;
  readonly domain?: string;
  /** Route patterns (`/orders/:id`, `/docs/*`, `/cart`) and what is known of them. */
  readonly routes?: Readonly<Record<string, RouteOptions>>;
  readonly journeys?: Readonly<Record<string, JourneyOptions>>;
  readonly anomalyDetection?: AnomalyDetectionOptions;
  /**
   * Origins besides the page's own (`https://api.example.com`) whose fetch and XHR calls get a
   * W3C `traceparent` header. Default none: third-party origins never see it.
   */
  readonly propagateTraceHeaderOrigins?: readonly string[];
  /** The fraction of sessions whose telemetry is sent, 0.0 to 1.0 (default 1). Decided once per session. */
  readonly samplingRate?: number;
}

export interface ResolvedRoute extends RouteOptions {
  readonly pattern: string;
}

export interface ResolvedJourney {
  readonly name: string;
  readonly steps: readonly string[];
  readonly completionRate?: number;
  readonly avgDurationS?: number;
}

export interface ResolvedOptions {
  readonly appName: string;
  readonly appVersion?: string;
  readonly environment?: Environment;
  /** Absolute URL. */
  readonly collectorEndpoint: string;
  readonly team?: string;
  readonly domain?: string;
  readonly routes: readonly ResolvedRoute[];
  readonly journeys: readonly ResolvedJourney[];
  readonly anomalyDetection: Required<AnomalyDetectionOptions>;
  /** Normalised origins (`https://api.example.com`). */
  readonly propagateTraceHeaderOrigins: readonly string[];
  readonly samplingRate: number;
}

export const ANOMALY_DEFAULTS: Required<AnomalyDetectionOptions> = Object.freeze({
  rageClickThreshold: 3,
  rageClickWindowMs: 2000,
  apiFailureCascadeThreshold: 3,
  apiFailureCascadeWindowMs: 10_000,
  slowPageLoadMultiplier: 2.0,
  errorLoopThreshold: 5,
  errorLoopWindowMs: 30_000,
});

/** Bounds on what a page can configure: every span carries some of it. */
export const OPTION_LIMITS = { routes: 200, journeys: 50, steps: 50, origins: 50, textChars: 1024 } as const;

const ENVIRONMENTS = ['production', 'staging', 'development'];
const CRITICALITIES = ['revenue', 'engagement', 'internal'];
const KNOWN_KEYS = ['appName', 'appVersion', 'environment', 'collectorEndpoint', 'team', 'domain', 'routes', 'journeys', 'anomalyDetection', 'propagateTraceHeaderOrigins', 'samplingRate'];

export type OptionsResult = { readonly ok: true; readonly options: ResolvedOptions; readonly warnings: readonly string[] } | { readonly ok: false; readonly errors: readonly string[] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value.length > 60 ? `${value.slice(0, 60)}…` : value}"`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/**
 * The endpoint as an absolute URL: relative ones resolve against the page, and a URL with no path
 * gets `/v1/traces` (as OTEL_EXPORTER_OTLP_ENDPOINT would).
 */
export function resolveCollectorEndpoint(endpoint: string, pageUrl: string | undefined): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint, pageUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces';
  return url.href;
}

/** `https://API.example.com:443/` -> `https://api.example.com`; undefined when it is not an origin. */
export function normaliseOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    const bare = url.pathname === '/' && !url.search && !url.hash && !/^[a-z]+:\/\/[^/]*\/./i.test(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && bare ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Validates `init()`'s argument. `pageUrl` resolves a relative collector endpoint. */
export function resolveOptions(raw: unknown, pageUrl?: string): OptionsResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (!isRecord(raw)) return { ok: false, errors: [`options must be an object with appName and collectorEndpoint; got ${describe(raw)}`] };

  const text = (path: string, value: unknown, required = false): string | undefined => {
    if (value === undefined) {
      if (required) errors.push(`${path} is required`);
      return undefined;
    }
    if (typeof value !== 'string' || value.trim() === '') errors.push(`${path} must be a non-empty string; got ${describe(value)}`);
    else if (value.length > OPTION_LIMITS.textChars) errors.push(`${path} is longer than ${OPTION_LIMITS.textChars} characters`);
    else return value;
    return undefined;
  };
  const number = (path: string, value: unknown, min: number, max: number, options: { integer?: boolean; aboveMin?: boolean } = {}): number | undefined => {
    if (value === undefined) return undefined;
    const ok = typeof value === 'number' && Number.isFinite(value) && (options.aboveMin ? value > min : value >= min) && value <= max && (!options.integer || Number.isInteger(value));
    if (!ok) {
      errors.push(`${path} must be ${options.integer ? 'an integer' : 'a number'} ${options.aboveMin ? 'above' : 'from'} ${min}${max === Infinity ? '' : ` to ${max}`}; got ${describe(value)}`);
      return undefined;
    }
    return value as number;
  };
  const oneOf = <T extends string>(path: string, value: unknown, allowed: readonly string[]): T | undefined => {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !allowed.includes(value)) {
      errors.push(`${path} must be one of ${allowed.join(', ')}; got ${describe(value)}`);
      return undefined;
    }
    return value as T;
  };
  /** An object option; `keys` lists its options (undefined: its keys are names, such as route patterns). */
  const object = (path: string, value: unknown, keys?: readonly string[]): Record<string, unknown> => {
    if (value === undefined) return {};
    if (!isRecord(value)) {
      errors.push(`${path} must be an object; got ${describe(value)}`);
      return {};
    }
    if (keys) for (const key of Object.keys(value)) if (!keys.includes(key)) warnings.push(`${path}.${key} is not an option, ignored (options here: ${keys.join(', ')})`);
    return value;
  };

  for (const key of Object.keys(raw)) if (!KNOWN_KEYS.includes(key)) warnings.push(`${key} is not an option, ignored`);
  const appName = text('appName', raw.appName, true);
  const endpointText = text('collectorEndpoint', raw.collectorEndpoint, true);
  const collectorEndpoint = endpointText === undefined ? undefined : resolveCollectorEndpoint(endpointText, pageUrl);
  if (endpointText !== undefined && collectorEndpoint === undefined)
    errors.push(`collectorEndpoint must be an http(s) URL of an OTLP/HTTP traces endpoint, such as https://shop.example.com/otlp/v1/traces; got ${describe(endpointText)}`);

  const routes: ResolvedRoute[] = [];
  const rawRoutes = object('routes', raw.routes);
  if (Object.keys(rawRoutes).length > OPTION_LIMITS.routes) errors.push(`routes has ${Object.keys(rawRoutes).length} patterns, more than ${OPTION_LIMITS.routes}`);
  else
    for (const [pattern, value] of Object.entries(rawRoutes)) {
      const path = `routes["${pattern}"]`;
      if (!pattern.startsWith('/')) errors.push(`${path}: a route pattern starts with / (such as /orders/:id)`);
      const route = object(path, value, ['businessCriticality', 'baseline', 'decision']);
      const baseline = object(`${path}.baseline`, route.baseline, ['pageLoadP50Ms', 'pageLoadP99Ms', 'apiCallP50Ms', 'interactionErrorRate']);
      const decision = object(`${path}.decision`, route.decision, ['escalationLevel', 'runbookUrl', 'fallbackPage', 'retryOnFailure']);
      if (decision.retryOnFailure !== undefined && typeof decision.retryOnFailure !== 'boolean')
        errors.push(`${path}.decision.retryOnFailure must be true or false; got ${describe(decision.retryOnFailure)}`);
      routes.push({
        pattern,
        businessCriticality: oneOf<BusinessCriticality>(`${path}.businessCriticality`, route.businessCriticality, CRITICALITIES),
        baseline: {
          pageLoadP50Ms: number(`${path}.baseline.pageLoadP50Ms`, baseline.pageLoadP50Ms, 0, 3_600_000, { aboveMin: true }),
          pageLoadP99Ms: number(`${path}.baseline.pageLoadP99Ms`, baseline.pageLoadP99Ms, 0, 3_600_000, { aboveMin: true }),
          apiCallP50Ms: number(`${path}.baseline.apiCallP50Ms`, baseline.apiCallP50Ms, 0, 3_600_000, { aboveMin: true }),
          interactionErrorRate: number(`${path}.baseline.interactionErrorRate`, baseline.interactionErrorRate, 0, 1),
        },
        decision: {
          escalationLevel: text(`${path}.decision.escalationLevel`, decision.escalationLevel),
          runbookUrl: text(`${path}.decision.runbookUrl`, decision.runbookUrl),
          fallbackPage: text(`${path}.decision.fallbackPage`, decision.fallbackPage),
          retryOnFailure: typeof decision.retryOnFailure === 'boolean' ? decision.retryOnFailure : undefined,
        },
      });
    }

  const journeys: ResolvedJourney[] = [];
  const rawJourneys = object('journeys', raw.journeys);
  if (Object.keys(rawJourneys).length > OPTION_LIMITS.journeys) errors.push(`journeys has ${Object.keys(rawJourneys).length} journeys, more than ${OPTION_LIMITS.journeys}`);
  else
    for (const [name, value] of Object.entries(rawJourneys)) {
      const path = `journeys["${name}"]`;
      const journey = object(path, value, ['steps', 'baseline']);
      const steps = journey.steps;
      if (!Array.isArray(steps) || steps.length === 0 || !steps.every((s) => typeof s === 'string' && s.startsWith('/')))
        errors.push(`${path}.steps is required: an ordered array of route patterns such as ["/cart", "/checkout"]; got ${describe(steps)}`);
      else if (steps.length > OPTION_LIMITS.steps) errors.push(`${path}.steps has ${steps.length} steps, more than ${OPTION_LIMITS.steps}`);
      else if (new Set(steps).size !== steps.length) errors.push(`${path}.steps names a route twice; each step is a distinct route`);
      const baseline = object(`${path}.baseline`, journey.baseline, ['completionRate', 'avgDurationS']);
      journeys.push({
        name,
        steps: Array.isArray(steps) ? (steps as string[]) : [],
        completionRate: number(`${path}.baseline.completionRate`, baseline.completionRate, 0, 1),
        avgDurationS: number(`${path}.baseline.avgDurationS`, baseline.avgDurationS, 0, 86_400, { aboveMin: true }),
      });
    }

  const anomalies = object('anomalyDetection', raw.anomalyDetection, Object.keys(ANOMALY_DEFAULTS));
  const windowMs = (key: string) => number(`anomalyDetection.${key}`, anomalies[key], 0, 3_600_000, { aboveMin: true });
  const anomalyDetection = {
    rageClickThreshold: number('anomalyDetection.rageClickThreshold', anomalies.rageClickThreshold, 2, 1000, { integer: true }) ?? ANOMALY_DEFAULTS.rageClickThreshold,
    rageClickWindowMs: windowMs('rageClickWindowMs') ?? ANOMALY_DEFAULTS.rageClickWindowMs,
    apiFailureCascadeThreshold: number('anomalyDetection.apiFailureCascadeThreshold', anomalies.apiFailureCascadeThreshold, 1, 1000, { integer: true }) ?? ANOMALY_DEFAULTS.apiFailureCascadeThreshold,
    apiFailureCascadeWindowMs: windowMs('apiFailureCascadeWindowMs') ?? ANOMALY_DEFAULTS.apiFailureCascadeWindowMs,
    slowPageLoadMultiplier: number('anomalyDetection.slowPageLoadMultiplier', anomalies.slowPageLoadMultiplier, 1, 1000) ?? ANOMALY_DEFAULTS.slowPageLoadMultiplier,
    errorLoopThreshold: number('anomalyDetection.errorLoopThreshold', anomalies.errorLoopThreshold, 2, 1000, { integer: true }) ?? ANOMALY_DEFAULTS.errorLoopThreshold,
    errorLoopWindowMs: windowMs('errorLoopWindowMs') ?? ANOMALY_DEFAULTS.errorLoopWindowMs,
  };

  const origins: string[] = [];
  const rawOrigins = raw.propagateTraceHeaderOrigins;
  if (rawOrigins !== undefined) {
    if (!Array.isArray(rawOrigins) || rawOrigins.length > OPTION_LIMITS.origins)
      errors.push(`propagateTraceHeaderOrigins must be an array of at most ${OPTION_LIMITS.origins} origins; got ${describe(rawOrigins)}`);
    else
      for (const [i, item] of rawOrigins.entries()) {
        const origin = typeof item === 'string' ? normaliseOrigin(item) : undefined;
        if (origin) origins.push(origin);
        else errors.push(`propagateTraceHeaderOrigins[${i}] must be an origin such as https://api.example.com (scheme, host, port; no path); got ${describe(item)}`);
      }
  }

  const options: ResolvedOptions = {
    appName: appName ?? '',
    appVersion: text('appVersion', raw.appVersion),
    environment: oneOf<Environment>('environment', raw.environment, ENVIRONMENTS),
    collectorEndpoint: collectorEndpoint ?? '',
    team: text('team', raw.team),
    domain: text('domain', raw.domain),
    routes,
    journeys,
    anomalyDetection,
    propagateTraceHeaderOrigins: origins,
    samplingRate: number('samplingRate', raw.samplingRate, 0, 1) ?? 1,
  };
  return errors.length ? { ok: false, errors } : { ok: true, options: Object.freeze(options), warnings };
}
