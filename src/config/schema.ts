/**
 * The single source of truth for every configuration key: its type, default, accepted values and
 * a one-line doc. Sources, precedence, `svc check`, the env-var names and `svc.yml.example` are
 * all derived from this table.
 *
 * Paths are relative to the `svc.` prefix. `*` stands for a name chosen by the user (an
 * operation, profile, SLO, role, agent or token name); `[]` for an item of a list.
 */
import {
  AGENT_TYPES,
  ASYMMETRIC_ALGORITHMS,
  BASELINE_SOURCES,
  CONSUMPTION_ALIASES,
  CONSUMPTION_PATTERNS,
  CRITICALITIES,
  DEPENDENCY_TYPES,
  ESCALATION_LEVELS,
  INSTRUMENTATION_NAMES,
  PERMISSIONS,
  TIERS,
} from '../shared/enums.js';
import { oauthUrlType } from './oauth-url-type.js';
import {
  booleanType,
  durationType,
  enumListType,
  enumType,
  fractionType,
  integerType,
  numberType,
  openFractionType,
  sha256Type,
  storeUrlType,
  stringListType,
  stringType,
  textType,
  urlType,
  ValueError,
  type ValueType,
  windowType,
} from './value-types.js';

export interface KeySpec {
  readonly path: string;
  readonly type: ValueType;
  /** Undefined means "unset": the key has no value unless a source gives one. */
  readonly default?: unknown;
  readonly doc: string;
  /** Must be given whenever its parent (a list item or named entry) is given. */
  readonly required?: boolean;
}

const escalation = enumType(ESCALATION_LEVELS);
/** Expected latencies and latency limits: no request svc analyses takes longer (the health histogram tops out near 3 minutes). */
const latency = durationType('10m', { positive: true });

export const SCHEMA: readonly KeySpec[] = [
  { path: 'enabled', type: booleanType, default: true, doc: 'Master switch: when false no svc.* attribute is added to spans (topology stays on the Resource)' },
  { path: 'config.file', type: textType(4096), doc: 'Path of the YAML config file (default ./svc.yml); read from -D and env only' },
  {
    path: 'telemetry.shutdown-timeout',
    type: durationType('30s'),
    default: '2s',
    doc: 'Longest wait for telemetry export when the process ends (SIGTERM/SIGINT flush, natural end, shutdown()); 0 does not wait',
  },
  {
    path: 'telemetry.instrumentations',
    type: enumListType(['default', 'all', ...INSTRUMENTATION_NAMES]),
    default: ['default'],
    doc: "OpenTelemetry instrumentations: default (server, HTTP client, database, cache, queue, RPC and log libraries), all (OpenTelemetry's register's set), or names; OTEL_NODE_ENABLED_INSTRUMENTATIONS replaces, OTEL_NODE_DISABLED_INSTRUMENTATIONS removes",
  },
  {
    path: 'telemetry.middleware-spans',
    type: booleanType,
    default: false,
    doc: 'A span per Express layer (middleware, router, route handler) and per Koa layer (middleware, routed), as OpenTelemetry makes them',
  },

  { path: 'topology.team', type: stringType, default: '', doc: 'Owning team' },
  { path: 'topology.tier', type: enumType(TIERS), default: 'standard', doc: 'Criticality tier' },
  { path: 'topology.domain', type: stringType, default: '', doc: 'Business domain' },
  { path: 'topology.on-call-channel', type: stringType, default: '', doc: 'Escalation channel, included in incident context on escalation' },
  { path: 'topology.repo-url', type: urlType, default: '', doc: 'Source repository URL' },

  { path: 'dependencies[].name', type: stringType, required: true, doc: 'Dependency name' },
  { path: 'dependencies[].type', type: enumType(DEPENDENCY_TYPES), required: true, doc: 'Kind of dependency' },
  { path: 'dependencies[].criticality', type: enumType(CRITICALITIES), required: true, doc: 'Impact if unavailable' },
  { path: 'dependencies[].protocol', type: stringType, default: '', doc: 'Communication protocol' },
  { path: 'dependencies[].timeout-ms', type: integerType(0, 86_400_000), default: 0, doc: 'Configured timeout, milliseconds' },
  { path: 'dependencies[].circuit-breaker', type: booleanType, default: false, doc: 'A circuit breaker protects this dependency' },
  { path: 'dependencies[].fallback', type: stringType, default: '', doc: 'Fallback behaviour description' },
  { path: 'dependencies[].health-endpoint', type: urlType, default: '', doc: 'Health check endpoint (its host:port also identifies client spans)' },

  { path: 'consumers[].name', type: stringType, required: true, doc: 'Consumer service name' },
  { path: 'consumers[].pattern', type: enumType(CONSUMPTION_PATTERNS, CONSUMPTION_ALIASES), default: 'synchronous', doc: 'How the consumer calls this service' },
  { path: 'consumers[].sla-latency-ms', type: integerType(0, 86_400_000), default: 0, doc: "Consumer's latency SLA, milliseconds" },

  { path: 'operations.*.profile', type: stringType, doc: 'Name of a profile under svc.profiles whose values this operation inherits' },
  { path: 'operations.*.expected-latency-p50', type: latency, doc: 'Expected median latency (static baseline)' },
  { path: 'operations.*.expected-latency-p99', type: latency, doc: 'Expected 99th percentile latency (static baseline)' },
  { path: 'operations.*.expected-error-rate', type: fractionType(true), default: -1, doc: 'Expected error rate; -1 means unset (no error-rate anomaly detection)' },
  { path: 'operations.*.retryable', type: booleanType, default: false, doc: 'Callers may retry a failed request' },
  { path: 'operations.*.idempotent', type: booleanType, default: false, doc: 'Retries give the same result' },
  { path: 'operations.*.runbook-url', type: urlType, default: '', doc: 'Runbook for this operation' },
  { path: 'operations.*.fallback-description', type: stringType, default: '', doc: 'What the fallback does' },
  { path: 'operations.*.escalation-level', type: escalation, default: 'auto_resolve', doc: 'Who handles an incident' },
  { path: 'operations.*.safe-to-restart', type: booleanType, default: true, doc: 'Restarting the service is a safe remedy' },

  { path: 'profiles.*.retryable', type: booleanType, default: false, doc: 'Profile default for retryable' },
  { path: 'profiles.*.idempotent', type: booleanType, default: false, doc: 'Profile default for idempotent' },
  { path: 'profiles.*.runbook-url', type: urlType, default: '', doc: 'Profile default for runbook-url' },
  { path: 'profiles.*.fallback-description', type: stringType, default: '', doc: 'Profile default for fallback-description' },
  { path: 'profiles.*.escalation-level', type: escalation, default: 'auto_resolve', doc: 'Profile default for escalation-level' },
  { path: 'profiles.*.safe-to-restart', type: booleanType, default: true, doc: 'Profile default for safe-to-restart' },

  { path: 'baselines.source', type: enumType(BASELINE_SOURCES), default: 'static', doc: 'static: from configuration; rolling: from live traffic' },
  { path: 'baselines.rolling-window-size', type: integerType(1, 10_000), default: 1000, doc: 'Observations per sliding window' },
  { path: 'baselines.rolling-min-samples', type: integerType(1, 10_000), default: 10, doc: 'Minimum samples before a rolling baseline (and a learned normal) is valid' },
  {
    path: 'baselines.horizon',
    type: windowType('10m', '30d'),
    default: '6h',
    doc: "How long an operation's learned normal (latency distribution, error rate) remembers: the time constant of its forgetting",
  },
  {
    path: 'baselines.accept-after',
    type: windowType('10m', '7d'),
    default: '2h',
    doc: 'A deviation from normal that lasts this long becomes the new normal (reset_baseline makes it so at once); until then the normal does not learn from it',
  },

  { path: 'anomaly-detection.enabled', type: booleanType, default: true, doc: 'Detect anomalies by z-score and incident patterns' },
  { path: 'anomaly-detection.z-score-threshold', type: numberType(0, 100, true), default: 3.0, doc: 'Absolute z-score above which a latency is anomalous' },
  { path: 'anomaly-detection.persistence', type: integerType(1, 1000), default: 3, doc: 'Anomalous spans without a break before an svc.anomaly.detected event (with the persistence window)' },
  {
    path: 'anomaly-detection.persistence-window',
    type: durationType('10m'),
    default: '1s',
    doc: 'How long anomalous spans must go on without a break before an event: a stall shared by the requests in flight (GC pause, event-loop block) is shorter',
  },
  {
    path: 'anomaly-detection.min-latency-deviation',
    type: durationType('1m'),
    default: '1ms',
    doc: 'Latency deviations smaller than this never make an event or a detection (anomaly events, latency_degradation, memory_leak, cold_start): sub-millisecond jitter is not actionable',
  },
  {
    path: 'anomaly-detection.event-interval',
    type: durationType('60m'),
    default: '60s',
    doc: 'At most one svc.anomaly.detected per operation and pattern in this interval (the next one counts the suppressed)',
  },

  {
    path: 'patterns.latency-degradation-factor',
    type: numberType(1, 100),
    default: 1.5,
    doc: "latency_degradation: most requests of a horizon and of each of its thirds slower than this x the operation's normal p50",
  },
  {
    path: 'patterns.error-rate-spike-threshold',
    type: fractionType(),
    default: 0.1,
    doc: "error_rate_spike: error rate of a horizon above the operation's normal error rate by more than this (and by half as much in each third)",
  },
  {
    path: 'patterns.outage-error-rate',
    type: fractionType(),
    default: 0.5,
    doc: 'error_rate_spike as an outage (a CRITICAL incident): at least this share of the requests failing in each third of a horizon, whatever the configuration',
  },
  { path: 'patterns.cascade-dependency-count', type: integerType(1, 100), default: 2, doc: 'cascade_failure: distinct failing dependencies within the cascade window' },
  {
    path: 'patterns.window',
    type: durationType('10m', { min: '6s' }),
    default: '96s',
    doc: 'latency_degradation, error_rate_spike, memory_leak: the longest detection horizon; horizons double from 3 s up to it, each judged in thirds',
  },
  { path: 'patterns.min-samples', type: integerType(1, 100_000), default: 10, doc: 'Requests a detection horizon must hold before a verdict' },
  { path: 'patterns.cascade-window', type: durationType('60m', { positive: true }), default: '60s', doc: 'cascade_failure: how recent a dependency failure must be' },
  {
    path: 'patterns.memory-leak-slope-mb-per-minute',
    type: numberType(0, 1024),
    default: 1,
    doc: 'memory_leak: growth of the memory floor (heap used + external, least-squares slope) that counts as a leak',
  },
  { path: 'patterns.memory-leak-min-r2', type: fractionType(), default: 0.8, doc: 'memory_leak: how steady the growth must be (R squared of the fit)' },
  {
    path: 'patterns.memory-leak-slot',
    type: durationType('10m', { min: '1s' }),
    default: '10s',
    doc: 'memory_leak: each slot keeps its lowest memory sample (the floor after garbage collection); the fit needs the last 12 slots (2 minutes at 10s)',
  },
  { path: 'patterns.memory-leak-latency-factor', type: numberType(1, 100), default: 1.2, doc: 'memory_leak: the operation counts as slower at this x the reference p50 (all but one window bucket)' },
  { path: 'patterns.heap-sample-interval', type: durationType('10m', { min: '1s' }), default: '2s', doc: 'memory_leak: how often heap used + external memory is sampled' },
  { path: 'patterns.herd-window', type: durationType('60m', { positive: true }), default: '60s', doc: 'thundering_herd: how long after a recovery a spike counts' },
  {
    path: 'patterns.herd-recent-window',
    type: durationType('30s', { min: '1s' }),
    default: '5s',
    doc: 'thundering_herd: the spike is measured over this, against the usual count per this over the minute before',
  },
  { path: 'patterns.herd-rate-multiplier', type: numberType(1, 100), default: 3, doc: 'thundering_herd: requests in the recent window over the usual count' },
  { path: 'patterns.herd-min-requests', type: integerType(1, 1_000_000), default: 20, doc: 'thundering_herd: fewest requests in the recent window that make a spike' },
  {
    path: 'patterns.cold-start-window',
    type: durationType('60m'),
    default: '30s',
    doc: 'cold_start: how long a process counts as fresh; its slowness then is a cold start, and no operation is ELEVATED by its latency figures',
  },
  {
    path: 'patterns.warm-up',
    type: durationType('60m'),
    default: '10s',
    doc: "A fresh process's first seconds (at most the cold-start window): their traffic is never learned as normal and makes no latency_degradation",
  },
  {
    path: 'patterns.cold-start-factor',
    type: numberType(1, 100),
    default: 3,
    doc: "cold_start: first requests slower than this x the operation's p99 (static, else rolling) are reported as a cold start",
  },
  { path: 'patterns.cold-start-latency', type: latency, default: '500ms', doc: 'cold_start: a detection by itself above the tightest consumer latency SLA, or above this without one' },

  { path: 'dependency-health.degraded-error-rate', type: fractionType(), default: 0.1, doc: 'Error rate at which a dependency becomes degraded (left below half of it)' },
  { path: 'dependency-health.unhealthy-error-rate', type: fractionType(), default: 0.5, doc: 'Error rate at which a dependency becomes unhealthy (left below half of it)' },
  {
    path: 'dependency-health.window',
    type: durationType('60m', { min: '1s' }),
    default: '60s',
    doc: "The time a dependency's error rate is measured over (in tenths); with no call in it, its state is stale and not counted by the service status",
  },
  { path: 'dependency-health.min-calls', type: integerType(1, 1000), default: 5, doc: 'Calls within the window needed before the state can change' },

  { path: 'deployment.emit-on-startup', type: booleanType, default: true, doc: 'Emit svc.deployment.info at startup' },
  { path: 'deployment.version', type: stringType, default: '', doc: 'Application version' },
  { path: 'deployment.commit-sha', type: stringType, default: '', doc: 'Source-control commit id' },
  { path: 'deployment.previous-version', type: stringType, default: '', doc: 'Previous version' },
  { path: 'deployment.strategy', type: stringType, default: '', doc: 'Deployment strategy (rolling, blue_green, canary, ...)' },

  { path: 'slos.*.operation-name', type: stringType, required: true, doc: 'Operation the SLO is measured on' },
  { path: 'slos.*.target', type: openFractionType(), required: true, doc: 'Target as a fraction (99.9% is 0.999)' },
  { path: 'slos.*.type', type: enumType(['AVAILABILITY', 'LATENCY_P99'] as const), default: 'AVAILABILITY', doc: 'AVAILABILITY or LATENCY_P99' },
  { path: 'slos.*.latency-threshold', type: latency, doc: "LATENCY_P99 threshold; default is the operation's expected-latency-p99" },
  { path: 'slos.*.window', type: windowType('60m', '365d'), default: '30d', doc: 'Rolling window the budget is measured over' },
  { path: 'slos.*.min-events', type: integerType(1, 1_000_000), default: 100, doc: 'Events in the window below which the SLO reports insufficient data: no verdict, no alert' },

  { path: 'agent-roles.*', type: enumListType(PERMISSIONS), doc: 'A role and its permissions (adds to or replaces the built-in observer, diagnostician, operator, admin)' },

  { path: 'agentic.loop-threshold', type: integerType(1, 1000), default: 3, doc: 'Global loop detection threshold' },
  { path: 'agentic.default-max-steps', type: integerType(0, 1_000_000), default: 0, doc: 'Global maximum steps per invocation; 0 is unlimited' },
  { path: 'agentic.agents.*.type', type: enumType(AGENT_TYPES), doc: 'Agent type' },
  { path: 'agentic.agents.*.framework', type: stringType, default: '', doc: 'Framework name (free text)' },
  { path: 'agentic.agents.*.version', type: stringType, default: '', doc: 'Agent version' },
  { path: 'agentic.agents.*.max-steps', type: integerType(0, 1_000_000), default: 0, doc: 'Maximum steps; 0 uses the global default' },
  { path: 'agentic.agents.*.loop-threshold', type: integerType(0, 1000), default: 0, doc: 'Loop threshold; 0 uses the global default' },
  { path: 'agentic.agents.*.cost-budget-usd', type: numberType(0, 1_000_000), default: 0, doc: 'Cost budget in USD; 0 is unlimited' },

  { path: 'mcp.enabled', type: booleanType, default: true, doc: 'Run the MCP tool server' },
  { path: 'mcp.host', type: textType(253, { nonEmpty: true }), default: '127.0.0.1', doc: 'Bind address; a non-loopback address requires tokens (an empty one would bind every interface)' },
  { path: 'mcp.port', type: integerType(0, 65535), default: 7070, doc: 'Port; 0 picks a free port (the URL is logged)' },
  { path: 'mcp.anonymous-role', type: stringType, default: 'diagnostician', doc: 'Role of callers without a token (loopback only)' },
  {
    path: 'mcp.approvers',
    type: stringListType(100),
    default: [],
    doc: 'Token agent names (svc.mcp.tokens.<agent>) whose credential may approve actions needing approval, besides callers whose role grants ADMIN',
  },
  { path: 'mcp.approval-ttl', type: durationType('1440m', { positive: true }), default: '15m', doc: 'How long an approval request stays open, and an approval usable' },
  {
    path: 'mcp.human-approval',
    type: stringListType(100),
    default: [],
    doc: "Action kinds (enable_fallback, open_circuit_breaker, ... or a custom action name) that need approval by a person signed in on the status page, never by an agent's credential",
  },
  { path: 'mcp.status-page', type: booleanType, default: true, doc: "Serve the status page (docs/status-page.md) on the tool server's port, at /" },
  {
    path: 'mcp.max-sessions-per-credential',
    type: integerType(1, 1000),
    default: 10,
    doc: "MCP sessions kept per credential (anonymous callers share one pool), a new one closing that credential's least recently used; and 2026-07-28 subscriptions/listen streams open per credential, the next refused until one closes",
  },
  {
    path: 'mcp.max-concurrent-calls',
    type: integerType(1, 1000),
    default: 8,
    doc: 'Requests one caller (a credential; anonymous callers per address) may have in flight; up to 4x as many more wait at most 2 s for their turn, the rest get 429 with Retry-After',
  },
  { path: 'mcp.verification-delay', type: durationType('60m'), default: '30s', doc: 'How long after a remediation verify_remediation_effect waits before judging it' },
  { path: 'mcp.max-body-bytes', type: integerType(1024, 16_777_216), default: 1048576, doc: 'Largest accepted request body; larger ones get 413' },
  {
    path: 'mcp.max-output-bytes',
    type: integerType(1024, 1048576),
    default: 8192,
    doc: 'Largest tool answer in bytes, for its text and its structured content each; longer lists are paged worst first, long fields cut',
  },
  { path: 'mcp.rate-limit-per-minute', type: integerType(1, 100_000), default: 300, doc: 'Requests per caller per minute; more get 429 with Retry-After' },
  { path: 'mcp.tokens.*.sha256', type: sha256Type, required: true, doc: "SHA-256 of the agent's bearer token" },
  { path: 'mcp.tokens.*.role', type: stringType, required: true, doc: 'Role the token grants' },
  {
    path: 'mcp.oauth.issuer',
    type: oauthUrlType,
    doc: 'OAuth 2.1 authorization server (https) whose access tokens the tool server accepts beside svc.mcp.tokens (its metadata by RFC 8414 or OpenID Connect discovery)',
  },
  { path: 'mcp.oauth.resource', type: oauthUrlType, doc: "This tool server's canonical https URL as agents reach it (https://orders.internal:7070/mcp): the audience tokens must name" },
  {
    path: 'mcp.oauth.algorithms',
    type: enumListType(ASYMMETRIC_ALGORITHMS),
    default: [...ASYMMETRIC_ALGORITHMS],
    doc: 'JWS algorithms accepted on access tokens; asymmetric only (never none, never a shared secret)',
  },
  { path: 'mcp.oauth.clock-skew', type: durationType('5m'), default: '60s', doc: 'Tolerance on exp, nbf and iat of access tokens' },
  {
    path: 'mcp.oauth.token-types',
    type: stringListType(8),
    default: ['at+jwt'],
    doc: 'Accepted typ headers of JWT access tokens (RFC 9068 at+jwt; add JWT for Keycloak, Entra ID); compared without case and without application/',
  },
  {
    path: 'mcp.oauth.roles-claim',
    type: textType(256),
    default: '',
    doc: 'Claim (a dotted path such as realm_access.roles) whose values name svc roles; empty: permissions come from the scopes svc:read, svc:diagnose, svc:remediate, svc:admin',
  },
  {
    path: 'mcp.oauth.agent-claim',
    type: enumType(['client_id', 'azp', 'appid', 'sub'] as const),
    default: 'client_id',
    doc: 'Claim naming the agent in sessions, the audit trail, approvals and spans: client_id (RFC 9068), azp (Keycloak, Entra ID v2), appid (Entra ID v1) or sub',
  },
  { path: 'mcp.oauth.introspection.client-id', type: textType(256), default: '', doc: "svc's client id at the issuer, to check opaque tokens by introspection (RFC 7662); empty: JWTs only" },
  { path: 'mcp.oauth.introspection.client-secret', type: textType(1024), doc: "svc's client secret for introspection (SVC_MCP_OAUTH_INTROSPECTION_CLIENT_SECRET); never printed" },

  {
    path: 'store.url',
    type: storeUrlType,
    default: 'sqlite:./.svc/state.db',
    doc: 'Where state that survives restarts is kept: memory:, sqlite:<path> (relative to the working directory) or redis://host:port (rediss:// for TLS); a password in it is never printed',
  },
  { path: 'store.password', type: textType(1024), doc: 'Password of the state store when the URL has none (SVC_STORE_PASSWORD); never printed' },
  { path: 'store.flush-interval', type: durationType('60s', { positive: true }), default: '1s', doc: 'How often queued state changes are written to the store' },
  {
    path: 'store.checkpoint-interval',
    type: durationType('10m', { min: '1s' }),
    default: '30s',
    doc: 'How often SLO budgets and minute histories are checkpointed to the store; a crash loses at most this much of them (SIGTERM writes them)',
  },
  { path: 'store.batch-size', type: integerType(1, 10_000), default: 500, doc: 'State changes written per batch; this many queued start a write before the interval' },
  { path: 'store.timeout', type: durationType('60s', { positive: true }), default: '2s', doc: 'Longest wait for the store (connect, a batch); slower counts as down and svc runs on local state' },
  {
    path: 'store.max-pending',
    type: integerType(100, 1_000_000),
    default: 10_000,
    doc: 'State changes (audit entries among them) kept for the store while it is down; beyond, the oldest are dropped and counted',
  },

  { path: 'fleet.instance-id', type: textType(256), doc: "This replica's id in the fleet (Redis store); default <host>:<pid>:<4 random hex>" },
  { path: 'fleet.publish-interval', type: durationType('60s', { positive: true }), default: '5s', doc: 'How often a replica publishes its summary to the fleet (Redis store)' },
  { path: 'fleet.replica-ttl', type: durationType('10m', { positive: true }), default: '30s', doc: 'A replica that published nothing for this long leaves the fleet' },

  { path: 'limits.max-operations', type: integerType(1, 10_000), default: 1000, doc: 'Distinct operations tracked; more are counted as overflow' },
  { path: 'limits.max-consumers', type: integerType(1, 1000), default: 200, doc: 'Items of svc.consumers[]: a list index must be below it' },
  { path: 'limits.max-dependencies', type: integerType(1, 1000), default: 200, doc: 'Items of svc.dependencies[] (a list index must be below it), and undeclared dependencies tracked besides them' },
  { path: 'limits.history-minutes', type: integerType(60, 1440), default: 60, doc: 'Minutes of per-operation history kept for trend analysis' },
  { path: 'limits.max-incidents', type: integerType(1, 10_000), default: 200, doc: 'Resolved incidents kept for "similar past incidents"' },
  { path: 'limits.max-sessions', type: integerType(1, 1000), default: 100, doc: 'Shared sessions kept (the oldest is dropped)' },
  { path: 'limits.max-sessions-per-credential', type: integerType(1, 1000), default: 10, doc: "Shared sessions kept per creating credential; a new one drops that credential's oldest" },
  { path: 'limits.max-session-entries', type: integerType(1, 10_000), default: 500, doc: 'Entries per session' },
  { path: 'limits.max-session-bytes', type: integerType(65_536, 1_073_741_824), default: 16_777_216, doc: 'Bytes all sessions may hold together; the oldest sessions are evicted to make room' },
  { path: 'limits.max-audit-entries', type: integerType(1, 10_000), default: 500, doc: 'Audit trail entries kept' },
  { path: 'health.recent-minutes', type: integerType(1, 60), default: 5, doc: 'Minutes of traffic operation health (error rate, p50, p99, ELEVATED) is measured over' },
  { path: 'incidents.resolve-after', type: durationType('1440m'), default: '2m', doc: 'An incident resolves after this long without detection, once its operation is no longer elevated' },
  { path: 'limits.max-changes', type: integerType(1, 10_000), default: 200, doc: 'Deployment and config-change entries kept' },

  { path: 'frontend.enabled', type: booleanType, default: false, doc: 'Receive browser telemetry (OTLP/HTTP traces from the browser SDK or a Collector) on a listener of its own' },
  {
    path: 'frontend.host',
    type: textType(253, { nonEmpty: true }),
    default: '127.0.0.1',
    doc: "Bind address of the browser telemetry listener (loopback behind the app's reverse proxy; 0.0.0.0 to receive from browsers directly)",
  },
  { path: 'frontend.port', type: integerType(0, 65535), default: 7071, doc: 'Port of the browser telemetry listener (POST /v1/traces); 0 picks a free port (the URL is logged)' },
  {
    path: 'frontend.allowed-origins',
    type: originListType(100),
    default: [],
    doc: 'Origins (https://shop.example.com) whose pages may send telemetry: CORS answers them, a request from any other origin gets 403',
  },
  { path: 'frontend.max-body-bytes', type: integerType(1024, 16_777_216), default: 1048576, doc: 'Largest accepted request body, compressed and decompressed; larger ones get 413' },
  { path: 'frontend.max-spans-per-request', type: integerType(1, 100_000), default: 1000, doc: 'Spans in one request; more get 413' },
  {
    path: 'frontend.rate-limit-per-minute',
    type: integerType(1, 1_000_000),
    default: 6000,
    doc: 'Requests per origin (per client address without an Origin header) per minute; more get 429 with Retry-After',
  },
  {
    path: 'frontend.max-records',
    type: integerType(100, 1_000_000),
    default: 10_000,
    doc: 'Page loads, API calls, anomalies and journey outcomes kept each (the last 15 minutes are read), and backend spans linked to browser traces',
  },
  { path: 'frontend.max-routes', type: integerType(1, 10_000), default: 500, doc: 'Distinct browser routes whose criticality, baselines and journey step are remembered' },
  { path: 'frontend.max-sessions', type: integerType(1, 1_000_000), default: 50_000, doc: 'Distinct browser sessions counted; beyond it session counts are lower bounds' },
];

/** Browser origins: `scheme://host[:port]` exactly, as a browser sends them in the Origin header. */
function originListType(maxItems: number): ValueType<string[]> {
  const list = stringListType(maxItems);
  return {
    ...list,
    accepts: `a list of at most ${maxItems} origins, each scheme://host[:port] with no path (YAML list or comma-separated)`,
    parse(raw) {
      return list.parse(raw).map((item) => {
        let origin: string | undefined;
        try {
          const url = new URL(item);
          const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password && !/^[a-z]+:\/\/[^/]*\/./i.test(item);
          if ((url.protocol === 'http:' || url.protocol === 'https:') && bare) origin = url.origin;
        } catch {
          // not a URL: reported below
        }
        if (origin === undefined) throw new ValueError(item, 'is not an origin: write scheme://host[:port], such as https://shop.example.com, with no path');
        return origin;
      });
    },
  };
}

const BY_PATH = new Map(SCHEMA.map((spec) => [spec.path, spec]));

export function keySpec(path: string): KeySpec {
  const spec = BY_PATH.get(path);
  if (!spec) throw new Error(`svc: no configuration key ${path} in the schema`);
  return spec;
}

/** Anything under `mcp.tokens`, the store's password and the introspection secret are never printed, whatever its source (a raw token may be pasted there). */
export function isSecretPath(path: string): boolean {
  return path.startsWith('mcp.tokens.') || path === 'store.password' || path === 'mcp.oauth.introspection.client-secret';
}

/** Keys that have one value (no `*` or `[]`): these get an `SVC_*` environment variable. */
export function isScalarKey(spec: KeySpec): boolean {
  return !spec.path.includes('*') && !spec.path.includes('[]');
}

/** `topology.on-call-channel` -> `SVC_TOPOLOGY_ON_CALL_CHANNEL` (rule 4). */
export function envName(path: string): string {
  return `SVC_${path.toUpperCase().replace(/[.-]/g, '_')}`;
}
