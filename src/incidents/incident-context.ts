/**
 * The complete diagnosis get_incident_context returns, as data: what is happening, what changed,
 * what is affected, what to do, and similar past incidents (spec "Incident"). Built from the open
 * incident of the operation (or, without one, from its current state), the engine, the metadata
 * and the remediation catalog; its text layout lives with the tool (src/mcp/tools/get-incident-context.ts).
 *
 * Rules where the spec is silent:
 * - patterns: what is happening now first (the patterns holding, with since when, and those still
 *   forming, with how long their evidence is: engine.deviationNow), then the episode's earlier
 *   ones, plus cold_start when the operation's cold start (engine.coldStartOf) ended at most 30 s
 *   before the episode began;
 * - baselines: each figure configured or learned, with its source (src/analysis/operation-baseline.ts),
 *   as get_service_health quotes them;
 * - anomaly score: the deviation from normal now on the spec's scale, with the episode's peak;
 * - opened by: what opened the incident (an outage, a pattern, an SLO burn: incident-tracker.ts `openedBy`);
 * - scope: `dependency_related` when a dependency is degraded or unhealthy, `service_wide` when
 *   more than one operation is elevated or has an open incident, else `operation_specific`;
 * - user-facing: YES when the tier is critical or a consumer calls synchronously;
 * - severity: the incident's severity now (incident-tracker.ts: at most MEDIUM while the operation
 *   is within baseline and the service HEALTHY), with the peak when it is lower;
 * - WHAT CHANGED: the ten latest changes, newest first, and the probable cause if older; the
 *   probable cause (ranked by incident-cause.ts) is flagged `PROBABLE CAUSE (<why>)`; agents'
 *   remediations are flagged `ACTION TAKEN` and are never a cause;
 * - action priority: HIGH for the remedies of the detected patterns (fallback for error spikes
 *   and cascades, opening the breaker of an unhealthy dependency, escalation at page_oncall or
 *   above), MEDIUM otherwise.
 */
import type { AnalysisEngine } from '../analysis/analysis-engine.js';
import type { OperationBaseline } from '../analysis/operation-baseline.js';
import type { IncidentPattern } from '../analysis/pattern-matcher.js';
import type { ServiceMetadata } from '../metadata/service-metadata.js';
import { type Incident, type IncidentTracker, openedBy } from './incident-tracker.js';
import type { Remediation, RemediationAction } from './remediation.js';

export type ActionPriority = 'HIGH' | 'MEDIUM';

/** How long after a cold start ended an episode's beginning still counts it as part of the episode: a detection window (30 s). */
const COLD_START_PART_OF_EPISODE_MS = 30_000;

export interface ChangeLine {
  readonly kind: string;
  readonly description: string;
  readonly timestamp: number;
  readonly probableCause: boolean;
  /** An agent's remediation: an action taken, never a cause. */
  readonly actionTaken: boolean;
}

export interface SuggestedAction extends RemediationAction {
  readonly priority: ActionPriority;
}

/** A pattern of the episode: holding now (since when), still forming (evidence since when), or seen earlier in it. */
export interface PatternLine {
  readonly pattern: IncidentPattern;
  readonly state: 'now' | 'forming' | 'earlier';
  readonly sinceMs: number | undefined;
}

export interface IncidentContext {
  readonly id: string | undefined;
  /** In a fleet, the replicas that detected the incident (instance ids). */
  readonly seenOn: readonly string[];
  readonly severity: string;
  readonly time: number;
  /** When the context was read, epoch ms. */
  readonly readAt: number;
  readonly operation: string;
  /** Whether the operation had traffic in the recent minutes (else its rates and latencies read 0). */
  readonly trafficSeen: boolean;
  readonly errorRate: number;
  readonly p50: number;
  readonly p99: number;
  /** What the figures are judged against, each with its source. */
  readonly baseline: OperationBaseline | undefined;
  /** The deviation from normal now, on the spec's scale (0 when none), and the episode's peak. */
  readonly anomalyScore: number;
  readonly peakAnomalyScore: number;
  readonly serviceStatus: string;
  readonly serviceReasons: readonly string[];
  /** The episode's patterns, as names (now, forming and earlier ones). */
  readonly patterns: readonly IncidentPattern[];
  readonly patternLines: readonly PatternLine[];
  /** What opened the incident: `outage (error_rate_spike)`, `latency_degradation`, `SLO availability budget burn`. */
  readonly openedBy: string | undefined;
  readonly lastDeployment: { version: string; timestamp: number; probableCause: boolean } | undefined;
  readonly changes: readonly ChangeLine[];
  /** Why the probable cause was chosen: timing and what it touches. */
  readonly causeReason: string | undefined;
  readonly scope: 'operation_specific' | 'service_wide' | 'dependency_related';
  readonly userFacing: boolean;
  readonly affectedOperations: readonly string[];
  readonly affectedDependencies: readonly string[];
  readonly affectedConsumers: readonly string[];
  readonly escalationLevel: string;
  readonly onCallChannel: string;
  readonly runbookUrl: string;
  readonly retryable: boolean;
  readonly safeToRestart: boolean;
  readonly actions: readonly SuggestedAction[];
  readonly similar: readonly { id: string; cause: string; resolution: string }[];
}

const HIGH_PRIORITY: Partial<Record<IncidentPattern, readonly string[]>> = {
  error_rate_spike: ['enable_fallback'],
  cascade_failure: ['enable_fallback', 'open_circuit_breaker'],
  latency_degradation: ['enable_fallback'],
  memory_leak: ['escalate'],
  thundering_herd: ['enable_fallback'],
};

export function buildIncidentContext(operation: string, services: { engine: AnalysisEngine; metadata: ServiceMetadata; incidents: IncidentTracker; remediation: Remediation }): IncidentContext {
  const { engine, metadata, incidents, remediation } = services;
  const incident: Incident | undefined = incidents.openIncident(operation);
  const now = engine.clock.now();
  const health = engine.health.getOperationHealth(operation);
  const summary = engine.healthSummary();
  const operationMetadata = metadata.operations.resolve(operation);
  const { registry } = metadata.topology();
  const openedAt = incident?.openedAt ?? now;
  const deviation = engine.deviationNow(operation);
  const patternLines: PatternLine[] = [
    ...(deviation?.patterns ?? []).map(
      (pattern): PatternLine => ({ pattern, state: 'now', sinceMs: incident?.patternOnsets.get(pattern) ?? (Number.isNaN(deviation!.sinceMs) ? undefined : deviation!.sinceMs) }),
    ),
    ...(deviation?.forming ?? []).map((f): PatternLine => ({ pattern: f.pattern, state: 'forming', sinceMs: f.sinceMs })),
  ];
  const listed = new Set(patternLines.map((p) => p.pattern));
  for (const pattern of incident?.patterns ?? []) if (!listed.has(pattern)) patternLines.push({ pattern, state: 'earlier', sinceMs: incident!.patternOnsets.get(pattern) });
  // A cold start is part of an episode that began while it lasted or within a detection window of it.
  const coldStart = incident ? health?.coldStart : undefined;
  if (coldStart && !patternLines.some((p) => p.pattern === 'cold_start') && openedAt - (coldStart.firstRequestAtMs + coldStart.durationMs) <= COLD_START_PART_OF_EPISODE_MS) {
    patternLines.push({ pattern: 'cold_start', state: 'earlier', sinceMs: coldStart.firstRequestAtMs });
  }
  const patterns = [...new Set(patternLines.filter((p) => p.state !== 'forming').map((p) => p.pattern))];

  const cause = incident ? incidents.probableCause(incident) : undefined;
  const probable = cause?.change;
  const shownChanges = engine.changes.list().slice(-10);
  if (probable && !shownChanges.includes(probable)) shownChanges.unshift(probable);
  const changes = shownChanges.reverse().map((c) => ({ kind: c.kind, description: c.description, timestamp: c.timestamp, probableCause: c === probable, actionTaken: c.kind === 'remediation' }));
  const deployment = engine.changes.lastDeployment();
  const lastDeployment = deployment && { version: deployment.details.version ?? deployment.description, timestamp: deployment.timestamp, probableCause: deployment === probable };

  const unhealthyDependencies = summary.dependencies.filter((d) => d.state !== 'healthy').map((d) => d.name);
  const troubled = new Set([...summary.operations.filter((o) => o.elevated).map((o) => o.operation), ...incidents.openIncidents().map((i) => i.operation)]);
  troubled.add(operation);
  const scope = unhealthyDependencies.length ? 'dependency_related' : troubled.size > 1 ? 'service_wide' : 'operation_specific';
  const consumers = registry.consumers();
  const userFacing = registry.topology.tier === 'critical' || consumers.some((c) => c.pattern === 'synchronous');

  const highKinds = new Set(patterns.flatMap((p) => HIGH_PRIORITY[p] ?? []));
  if (operationMetadata.escalationLevel === 'page_oncall' || operationMetadata.escalationLevel === 'incident_commander') highKinds.add('escalate');
  const breakerDependencies = new Map(engine.circuitBreakers.statuses().map((b) => [b.name, b.dependency]));
  const actions: SuggestedAction[] = remediation.actionsFor(operation).map((action) => {
    const high = action.kind === 'open_circuit_breaker' ? unhealthyDependencies.includes(breakerDependencies.get(action.target) ?? '') : highKinds.has(action.kind);
    return { ...action, priority: high ? 'HIGH' : 'MEDIUM' };
  });
  actions.sort((a, b) => (a.priority === b.priority ? 0 : a.priority === 'HIGH' ? -1 : 1));

  const severity = incident && incidents.severityNow(incident);
  const errorRate = health?.errorRate ?? 0;
  return {
    id: incident?.id,
    seenOn: incident ? [...incident.replicas] : [],
    severity: severity ? `${severity.severity}${severity.lowered ? ` (${severity.lowered})` : ''}` : 'NONE',
    time: openedAt,
    readAt: now,
    operation,
    trafficSeen: health !== undefined,
    errorRate,
    p50: health?.p50 ?? 0,
    p99: health?.p99 ?? 0,
    baseline: health?.baseline ?? engine.baselinesOf(operation).baseline,
    anomalyScore: deviation?.score ?? 0,
    peakAnomalyScore: Math.max(incident?.maxAnomalyScore ?? 0, deviation?.score ?? 0),
    serviceStatus: summary.status,
    serviceReasons: summary.reasons,
    patterns,
    patternLines,
    openedBy: incident && openedBy(incident),
    lastDeployment,
    changes,
    causeReason: cause?.reason,
    scope,
    userFacing,
    affectedOperations: [...troubled],
    affectedDependencies: unhealthyDependencies,
    affectedConsumers: userFacing ? consumers.map((c) => `${c.name} (${c.pattern}${c.slaLatencyMs ? `, SLA ${c.slaLatencyMs}ms` : ''})`) : [],
    escalationLevel: operationMetadata.escalationLevel,
    onCallChannel: registry.topology.onCallChannel,
    runbookUrl: operationMetadata.runbookUrl,
    retryable: operationMetadata.retryable,
    safeToRestart: operationMetadata.safeToRestart,
    actions,
    similar: incident ? incidents.similarTo(incident).map((past) => ({ id: past.id, cause: past.cause ?? 'unknown', resolution: past.resolution ?? 'unknown' })) : [],
  };
}
