/**
 * The attribute and event names the browser SDK writes and the backend reads: one module, bundled
 * into the browser SDK and compiled for the backend, so the two cannot drift apart. Constants only:
 * no imports, nothing that needs a DOM or Node.
 */

/** What a browser span is: the SDK marks every span it makes with one of these. */
export const FRONTEND_SPAN_KINDS = ['page_load', 'route_change', 'api_call', 'interaction', 'error', 'web_vitals'] as const;
export type FrontendSpanKind = (typeof FRONTEND_SPAN_KINDS)[number];

export const FRONTEND = {
  /** One of FRONTEND_SPAN_KINDS. */
  span: 'svc.frontend.span',
  session: 'svc.frontend.session.id',
  /** The route pattern the page was on (a configured `routes` key, else the path with ids replaced by `:id`). */
  route: 'svc.frontend.route',
  previousRoute: 'svc.frontend.route.previous',
  businessCriticality: 'svc.frontend.route.business_criticality',
  pageLoadP50Ms: 'svc.frontend.baseline.page_load_p50_ms',
  pageLoadP99Ms: 'svc.frontend.baseline.page_load_p99_ms',
  apiCallP50Ms: 'svc.frontend.baseline.api_call_p50_ms',
  interactionErrorRate: 'svc.frontend.baseline.interaction_error_rate',
  escalationLevel: 'svc.frontend.decision.escalation_level',
  runbookUrl: 'svc.frontend.decision.runbook_url',
  fallbackPage: 'svc.frontend.decision.fallback_page',
  retryOnFailure: 'svc.frontend.decision.retry_on_failure',
  /** Navigation timing: fetchStart to loadEventEnd, milliseconds. */
  pageLoadMs: 'svc.frontend.page_load_ms',
  /** click or submit. */
  interactionType: 'svc.frontend.interaction.type',
  /** A short description of the element: `button#pay "Pay now"`. */
  interactionTarget: 'svc.frontend.interaction.target',
  journeyName: 'svc.frontend.journey.name',
  /** 1-based index of the journey step the route is. */
  journeyStep: 'svc.frontend.journey.step',
  journeySteps: 'svc.frontend.journey.steps',
  journeyStatus: 'svc.frontend.journey.status',
  journeyDurationMs: 'svc.frontend.journey.duration_ms',
  journeyBaselineCompletionRate: 'svc.frontend.journey.baseline.completion_rate',
  journeyBaselineAvgDurationS: 'svc.frontend.journey.baseline.avg_duration_s',
  lcpMs: 'svc.frontend.vitals.lcp_ms',
  cls: 'svc.frontend.vitals.cls',
  inpMs: 'svc.frontend.vitals.inp_ms',
  /** Resource attribute: the fraction of sessions whose spans are sampled. */
  samplingRate: 'svc.frontend.sampling_rate',
} as const;

/** Span events the SDK adds. */
export const FRONTEND_EVENT = {
  anomaly: 'svc.frontend.anomaly',
  journey: 'svc.frontend.journey',
} as const;

/** Attributes of an anomaly event. */
export const FRONTEND_ANOMALY = {
  pattern: 'svc.anomaly.pattern',
  /** How many occurrences (clicks, failed calls, errors) made it, or the page load in ms. */
  count: 'svc.frontend.anomaly.count',
  windowMs: 'svc.frontend.anomaly.window_ms',
  threshold: 'svc.frontend.anomaly.threshold',
  detail: 'svc.frontend.anomaly.detail',
} as const;

export const FRONTEND_ANOMALY_PATTERNS = ['rage_click', 'api_failure_cascade', 'slow_page_load', 'error_loop', 'journey_drop_off'] as const;
export type FrontendAnomalyPattern = (typeof FRONTEND_ANOMALY_PATTERNS)[number];

export const JOURNEY_STATUSES = ['started', 'progressed', 'completed', 'abandoned'] as const;
export type JourneyStatus = (typeof JOURNEY_STATUSES)[number];
