/**
 * Incidents: opened from sustained anomalies, pattern detections and CRITICAL SLO alerts,
 * deduplicated per operation while open, with ids unique across restarts and replicas
 * (`INC-<yyyymmdd>-<process tag>-<n>`, see id-sequence.ts).
 *
 * - Severity from the service tier and the deviation: critical tier HIGH, standard MEDIUM,
 *   internal and experimental LOW; one level up (up to CRITICAL) when the anomaly score reaches
 *   0.75, the detection is an error-rate spike or a cascade failure, or an SLO alert is CRITICAL.
 * - Resolved when the operation is back to baseline: no detection for `resolveAfterMs` (default
 *   2 minutes) and its health no longer ELEVATED. The cause (patterns, a change shortly before)
 *   and the resolution (the last successful remediation, or recovery without action) are kept
 *   for "similar past incidents". Bounded: `maxHistory` resolved incidents.
 */
import type { ChangeEntry } from '../analysis/change-tracker.js';
import type { Detection, Engine } from '../analysis/engine.js';
import type { IncidentPattern } from '../analysis/pattern-matcher.js';
import type { SloAlert } from '../analysis/slo-tracker.js';
import type { Tier } from '../enums.js';
import { IdSequence } from './id-sequence.js';

export const INCIDENT_SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];

export interface Incident {
  readonly id: string;
  readonly operation: string;
  readonly openedAt: number;
  status: 'open' | 'resolved';
  severity: IncidentSeverity;
  readonly patterns: Set<IncidentPattern>;
  maxAnomalyScore: number;
  lastDetectionAt: number;
  /** When the incident opened or last showed a new pattern: what changed just before is the probable cause. */
  lastNewPatternAt: number;
  /** Why it was opened first: `anomaly`, a pattern name, or `slo:<name>`. */
  readonly trigger: string;
  sloAlerts: string[];
  resolvedAt?: number;
  cause?: string;
  resolution?: string;
}

export interface IncidentTrackerOptions {
  readonly tierOf: () => Tier;
  /** The last successful remediation on the operation, for the resolution record. */
  readonly lastRemediation?: (operation: string) => string | undefined;
  readonly resolveAfterMs?: number;
  readonly maxHistory?: number;
  /** How close before the incident a change counts as a probable cause. */
  readonly changeWindowMs?: number;
}

const BASE_SEVERITY: Record<Tier, IncidentSeverity> = { critical: 'HIGH', standard: 'MEDIUM', internal: 'LOW', experimental: 'LOW' };

function raise(severity: IncidentSeverity): IncidentSeverity {
  return INCIDENT_SEVERITIES[Math.min(INCIDENT_SEVERITIES.length - 1, INCIDENT_SEVERITIES.indexOf(severity) + 1)]!;
}

export class IncidentTracker {
  private readonly open = new Map<string, Incident>();
  private readonly history: Incident[] = [];
  private readonly ids = new IdSequence('INC');
  private readonly resolveAfterMs: number;
  private readonly maxHistory: number;
  readonly changeWindowMs: number;

  constructor(
    private readonly engine: Engine,
    private readonly options: IncidentTrackerOptions,
  ) {
    this.resolveAfterMs = options.resolveAfterMs ?? 120_000;
    this.maxHistory = options.maxHistory ?? 200;
    this.changeWindowMs = options.changeWindowMs ?? 30 * 60_000;
    engine.onDetection((detection) => this.onDetection(detection));
    engine.onSloAlert((alert) => this.onSloAlert(alert));
  }

  private onDetection(detection: Detection): void {
    const trigger = detection.patterns[0] ?? 'anomaly';
    const incident = this.openFor(detection.operation, trigger, detection.timestamp);
    for (const pattern of detection.patterns) {
      if (incident.patterns.has(pattern)) continue;
      incident.patterns.add(pattern);
      incident.lastNewPatternAt = detection.timestamp;
    }
    incident.maxAnomalyScore = Math.max(incident.maxAnomalyScore, detection.anomalyScore ?? 0);
    incident.lastDetectionAt = detection.timestamp;
    const failing = detection.patterns.includes('error_rate_spike') || detection.patterns.includes('cascade_failure');
    if (incident.maxAnomalyScore >= 0.75 || failing) incident.severity = this.raised(incident);
  }

  private onSloAlert(alert: SloAlert): void {
    if (alert.severity !== 'CRITICAL') return;
    const definition = this.engine.sloTracker.definitions().find((d) => d.name === alert.sloName);
    if (!definition) return;
    const now = this.engine.clock.now();
    const incident = this.openFor(definition.operationName, `slo:${alert.sloName}`, now);
    if (!incident.sloAlerts.includes(alert.sloName)) incident.sloAlerts.push(alert.sloName);
    incident.lastDetectionAt = now;
    incident.severity = this.raised(incident);
  }

  private raised(incident: Incident): IncidentSeverity {
    const base = BASE_SEVERITY[this.options.tierOf()];
    return INCIDENT_SEVERITIES.indexOf(incident.severity) > INCIDENT_SEVERITIES.indexOf(base) ? incident.severity : raise(base);
  }

  private openFor(operation: string, trigger: string, now: number): Incident {
    const existing = this.open.get(operation);
    if (existing) return existing;
    const day = new Date(now).toISOString().slice(0, 10).replaceAll('-', '');
    const incident: Incident = {
      id: this.ids.next(day),
      operation,
      openedAt: now,
      status: 'open',
      severity: BASE_SEVERITY[this.options.tierOf()],
      patterns: new Set(),
      maxAnomalyScore: 0,
      lastDetectionAt: now,
      lastNewPatternAt: now,
      trigger,
      sloAlerts: [],
    };
    this.open.set(operation, incident);
    return incident;
  }

  /** Resolves incidents whose operation is back to baseline. Called before every read. */
  refresh(): void {
    const now = this.engine.clock.now();
    for (const [operation, incident] of this.open) {
      if (now - incident.lastDetectionAt < this.resolveAfterMs) continue;
      if (this.engine.health.getOperationHealth(operation)?.elevated) continue;
      incident.status = 'resolved';
      incident.resolvedAt = now;
      incident.cause = this.causeOf(incident);
      incident.resolution = this.options.lastRemediation?.(operation) ?? 'recovered without remediation';
      this.open.delete(operation);
      this.history.push(incident);
      if (this.history.length > this.maxHistory) this.history.shift();
    }
  }

  /**
   * The probable cause: the most recent change (deployment or configuration) within the change
   * window before the incident opened or last showed a new pattern.
   */
  probableChange(incident: Incident): ChangeEntry | undefined {
    return this.engine.changes.before(incident.lastNewPatternAt, this.changeWindowMs)[0];
  }

  private causeOf(incident: Incident): string {
    const what = incident.patterns.size ? [...incident.patterns].join(', ') : incident.sloAlerts.length ? `SLO ${incident.sloAlerts.join(', ')} budget` : 'latency anomaly';
    const change = this.probableChange(incident);
    return change ? `${what} after ${change.kind} "${change.description}"` : what;
  }

  /** The open incident of an operation, if any. */
  openIncident(operation: string): Incident | undefined {
    this.refresh();
    return this.open.get(operation);
  }

  openIncidents(): Incident[] {
    this.refresh();
    return [...this.open.values()];
  }

  byId(id: string): Incident | undefined {
    this.refresh();
    return [...this.open.values(), ...this.history].find((i) => i.id === id);
  }

  /** Resolved incidents of the same operation or with a shared pattern, newest first. */
  similarTo(incident: Pick<Incident, 'operation' | 'patterns' | 'id'>, limit = 3): Incident[] {
    this.refresh();
    return this.history
      .filter((past) => past.id !== incident.id && (past.operation === incident.operation || [...past.patterns].some((p) => incident.patterns.has(p))))
      .reverse()
      .slice(0, limit);
  }
}
