/**
 * Incidents: opened from sustained anomalies, pattern detections and CRITICAL SLO alerts, one per
 * episode of an operation, with ids unique across restarts and replicas
 * (`INC-<yyyymmdd>-<process tag>-<nnnn>`, see id-sequence.ts).
 *
 * - An episode is a run of detections (and CRITICAL SLO alerts) of one operation with gaps
 *   shorter than `resolveAfterMs` (`incidents.resolve-after`, default 2 minutes). It ended once
 *   that long has passed without one. When read after that, its incident resolves as soon as the
 *   operation is no longer ELEVATED; a detection after the gap opens a new incident even if
 *   health still reads ELEVATED (health looks back over minutes and lags the detectors): the
 *   quiet gap is the end. Its patterns and anomaly score are the episode's own; TIME is the
 *   episode's first detection.
 * - An episode also ends when the operation's traffic was normal for NORMAL_STRETCH_MS (60 s)
 *   after its last detection (src/analysis/learned-normal.ts `normalSince`): a different fault after
 *   a healthy stretch is a new incident, also when the earlier one was restored at start.
 * - Peak severity from the service tier and the deviation: critical tier HIGH, standard MEDIUM,
 *   internal and experimental LOW; one level up (up to CRITICAL) when the anomaly score reaches
 *   0.75, the detection is an error-rate spike or a cascade failure, or an SLO alert is CRITICAL;
 *   CRITICAL whatever the tier for an outage (most requests failing).
 * - Severity when read (`severityNow`): the peak, but at most MEDIUM while the operation is
 *   within its baseline (not ELEVATED) and the service is HEALTHY, so an incident never reads
 *   HIGH or CRITICAL while get_service_health says all is well.
 * - On resolution the cause (patterns, the ranked probable change, see incident-cause.ts) and the
 *   resolution (the last successful remediation, or recovery without action) are kept for
 *   "similar past incidents". Bounded: `maxHistory` resolved incidents.
 * - Persisted (docs/state.md) as the `incidents` collection, one record per incident, written
 *   when it changes; a restored open incident resolves by the rules above once read.
 * - In a fleet (docs/state.md, Fleet) an operation has one open incident across replicas: each
 *   detection claims it (IncidentFleet), a replica whose incident lost the claim joins the
 *   holder's, and other replicas' records are merged in (`mergeRemote`): the union of what each
 *   saw, with the replicas that saw it.
 */
import type { AnalysisEngine, Detection } from '../analysis/analysis-engine.js';
import type { IncidentPattern } from '../analysis/pattern-matcher.js';
import { INCIDENT_PATTERNS } from '../analysis/patterns/pattern-detector.js';
import type { SloAlert } from '../analysis/slo-tracker.js';
import type { Tier } from '../shared/enums.js';
import { fields, finite, list, oneOf, optionalText, readAll, text } from '../shared/record-fields.js';
import { NO_SINK, type StateSink } from '../shared/state-sink.js';
import { IdSequence } from './id-sequence.js';
import { CAUSE_DEFAULTS, type RankedCause, rankedCause } from './incident-cause.js';

export const INCIDENT_SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];

export interface Incident {
  readonly id: string;
  readonly operation: string;
  /** The earliest first detection of the episode on any replica. */
  openedAt: number;
  status: 'open' | 'resolved';
  /** The worst the episode was; what to show now is `IncidentTracker.severityNow`. */
  peakSeverity: IncidentSeverity;
  readonly patterns: Set<IncidentPattern>;
  maxAnomalyScore: number;
  lastDetectionAt: number;
  /** When each pattern first showed in the episode: anchors of the cause ranking. */
  readonly patternOnsets: Map<IncidentPattern, number>;
  /** Why it was opened first: `outage`, a pattern name, or `slo:<name>`. */
  trigger: string;
  /** When the evidence of the episode began (before its first detection), epoch ms: what causes are timed against. */
  onsetAt: number;
  /**
   * Since when the operation's traffic before the onset was normal, as known when the incident
   * opened (null: it was not; undefined: not known, a record from before this was kept).
   */
  normalSince?: number | null;
  sloAlerts: string[];
  /** The replicas of a fleet that detected the episode (instance ids); empty outside a fleet. */
  readonly replicas: Set<string>;
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
  /** How long before the episode began a change counts as a probable cause (default 30 minutes). */
  readonly changeWindowMs?: number;
}

/**
 * A fleet on one Redis (docs/state.md, Fleet), set by src/fleet/fleet-sync.ts: one open incident
 * per operation across replicas, claimed atomically in Redis.
 */
export interface IncidentFleet {
  readonly instanceId: string;
  /** The incident was opened or detected again on this replica: claim the operation for it, or learn which incident holds it (then `join`). */
  claim(incident: Incident): void;
  /** The incident resolved: its claim ends. */
  release(incident: Incident): void;
}

export interface SeverityNow {
  readonly severity: IncidentSeverity;
  /** Why it is below the peak, when it is. */
  readonly lowered?: string;
}

const CALM_CEILING: IncidentSeverity = 'MEDIUM';
/** Normal traffic this long after an incident's last detection ends its episode. */
const NORMAL_STRETCH_MS = 60_000;

export const INCIDENTS_COLLECTION = 'incidents';
/** Replicas named per incident, and ids of joined incidents remembered. */
const MAX_REPLICAS = 64;
const MAX_ALIASES = 256;

/** An incident as stored: sets and maps as lists. */
function incidentRecord(incident: Incident): unknown {
  return { ...incident, patterns: [...incident.patterns], patternOnsets: [...incident.patternOnsets], replicas: [...incident.replicas] };
}

/**
 * What opened the incident, as its summary and cause say it: `outage`, the patterns of the episode
 * (the opening one first), or the SLO whose budget burned.
 */
export function openedBy(incident: Pick<Incident, 'trigger' | 'patterns' | 'sloAlerts'>): string {
  const patterns = [...incident.patterns].sort((a, b) => Number(b === incident.trigger) - Number(a === incident.trigger));
  if (incident.trigger === 'outage') return `outage (${patterns.join(', ') || 'most requests failing'})`;
  if (incident.trigger.startsWith('slo:')) return `SLO ${incident.sloAlerts.join(', ')} budget burn${patterns.length ? `; ${patterns.join(', ')}` : ''}`;
  return patterns.join(', ') || incident.trigger;
}

/** When a pattern's evidence began: its window verdict's onset for the window patterns, else the detection. */
function onsetOf(pattern: IncidentPattern, detection: Detection): number {
  const onset = pattern === 'latency_degradation' ? detection.latencyOnsetMs : pattern === 'error_rate_spike' ? detection.errorsOnsetMs : Number.NaN;
  return Number.isFinite(onset) ? Math.min(onset, detection.timestamp) : detection.timestamp;
}

function severityRank(severity: IncidentSeverity): number {
  return INCIDENT_SEVERITIES.indexOf(severity);
}

/**
 * Folds another replica's record of the same incident into this one: the union of what either
 * saw (earliest opening, latest detection, worst severity and score, all patterns, alerts and
 * replicas; resolved wins over open). Returns whether this one now holds more than the record.
 */
function mergeInto(local: Incident, remote: Incident): boolean {
  if (remote.openedAt < local.openedAt) {
    local.openedAt = remote.openedAt;
    local.trigger = remote.trigger;
  }
  local.onsetAt = Math.min(local.onsetAt, remote.onsetAt);
  for (const [pattern, at] of remote.patternOnsets) {
    local.patterns.add(pattern);
    local.patternOnsets.set(pattern, Math.min(at, local.patternOnsets.get(pattern) ?? at));
  }
  for (const pattern of remote.patterns) local.patterns.add(pattern);
  local.maxAnomalyScore = Math.max(local.maxAnomalyScore, remote.maxAnomalyScore);
  local.lastDetectionAt = Math.max(local.lastDetectionAt, remote.lastDetectionAt);
  if (severityRank(remote.peakSeverity) > severityRank(local.peakSeverity)) local.peakSeverity = remote.peakSeverity;
  for (const alert of remote.sloAlerts) if (!local.sloAlerts.includes(alert) && local.sloAlerts.length < 64) local.sloAlerts.push(alert);
  for (const replica of remote.replicas) if (local.replicas.size < MAX_REPLICAS) local.replicas.add(replica);
  if (remote.status === 'resolved' && local.status === 'open') {
    local.status = 'resolved';
    local.resolvedAt = remote.resolvedAt ?? local.lastDetectionAt;
    local.cause = remote.cause;
    local.resolution = remote.resolution;
  }
  return (
    local.openedAt < remote.openedAt ||
    local.patterns.size > remote.patterns.size ||
    local.maxAnomalyScore > remote.maxAnomalyScore ||
    local.lastDetectionAt > remote.lastDetectionAt ||
    severityRank(local.peakSeverity) > severityRank(remote.peakSeverity) ||
    local.sloAlerts.length > remote.sloAlerts.length ||
    local.replicas.size > remote.replicas.size ||
    (local.status === 'resolved' && remote.status === 'open')
  );
}

/** An SLO's name as an incident records it, at most (SLO names are far shorter). */
const MAX_ALERT_CHARS = 1024;
const isPattern = (p: unknown): p is IncidentPattern => (INCIDENT_PATTERNS as readonly unknown[]).includes(p);

function readIncident(value: unknown): Incident {
  const f = fields(value);
  // Only the patterns svc knows: a record that keeps changing (another replica's, a corrupt or rogue one) adds nothing else to the union.
  const patterns = list(f, 'patterns', 64).filter(isPattern);
  const onsets = list(f, 'patternOnsets', 64).filter((p): p is [IncidentPattern, number] => Array.isArray(p) && isPattern(p[0]) && typeof p[1] === 'number');
  return {
    id: text(f, 'id', 256),
    operation: text(f, 'operation', 1024),
    openedAt: finite(f, 'openedAt'),
    status: oneOf(f, 'status', ['open', 'resolved'] as const),
    peakSeverity: oneOf(f, 'peakSeverity', INCIDENT_SEVERITIES),
    patterns: new Set(patterns),
    patternOnsets: new Map(onsets),
    maxAnomalyScore: finite(f, 'maxAnomalyScore'),
    lastDetectionAt: finite(f, 'lastDetectionAt'),
    trigger: text(f, 'trigger', 1024),
    // Records written before onsets were kept: the episode's opening.
    onsetAt: f.onsetAt === undefined ? finite(f, 'openedAt') : finite(f, 'onsetAt'),
    ...(f.normalSince !== undefined && { normalSince: f.normalSince === null ? null : finite(f, 'normalSince') }),
    sloAlerts: list(f, 'sloAlerts', 64)
      .filter((a): a is string => typeof a === 'string')
      .map((a) => a.slice(0, MAX_ALERT_CHARS)),
    // Records written before fleets name no replicas.
    replicas: new Set(
      f.replicas === undefined
        ? []
        : list(f, 'replicas', MAX_REPLICAS)
            .filter((r): r is string => typeof r === 'string')
            .map((r) => r.slice(0, 256)),
    ),
    ...(f.resolvedAt !== undefined && { resolvedAt: finite(f, 'resolvedAt') }),
    ...(f.cause !== undefined && { cause: optionalText(f, 'cause', 4096) }),
    ...(f.resolution !== undefined && { resolution: optionalText(f, 'resolution', 4096) }),
  };
}

const BASE_SEVERITY: Record<Tier, IncidentSeverity> = { critical: 'HIGH', standard: 'MEDIUM', internal: 'LOW', experimental: 'LOW' };

function raise(severity: IncidentSeverity): IncidentSeverity {
  return INCIDENT_SEVERITIES[Math.min(INCIDENT_SEVERITIES.length - 1, INCIDENT_SEVERITIES.indexOf(severity) + 1)]!;
}

export class IncidentTracker {
  private readonly open = new Map<string, Incident>();
  private history: Incident[] = [];
  private readonly ids = new IdSequence('INC');
  private sink: StateSink = NO_SINK;
  private fleet: IncidentFleet | undefined;
  /** Ids this replica opened, then joined to the fleet's incident of the operation: old id → fleet id. */
  private readonly aliases = new Map<string, string>();
  /** Other replicas' open incidents of operations this replica has its own open incident of, until the claim says which one stays: by operation. */
  private readonly unclaimed = new Map<string, Incident>();
  readonly resolveAfterMs: number;
  private readonly maxHistory: number;
  readonly changeWindowMs: number;

  constructor(
    private readonly engine: AnalysisEngine,
    private readonly options: IncidentTrackerOptions,
  ) {
    this.resolveAfterMs = options.resolveAfterMs ?? 120_000;
    this.maxHistory = options.maxHistory ?? 200;
    this.changeWindowMs = options.changeWindowMs ?? CAUSE_DEFAULTS.windowMs;
    engine.onDetection((detection) => this.onDetection(detection));
    engine.onSloAlert((alert) => this.onSloAlert(alert));
  }

  private onDetection(detection: Detection): void {
    const trigger = detection.outage ? 'outage' : (detection.patterns[0] ?? 'anomaly');
    // Only a verdict of the operation's window knows whether traffic was normal before it (a cascade, a herd or a leak says nothing of it).
    const windowVerdict = Number.isFinite(detection.latencyOnsetMs) || Number.isFinite(detection.errorsOnsetMs);
    const incident = this.episodeOf(detection.operation, trigger, detection.timestamp, detection.onsetMs, windowVerdict);
    for (const pattern of detection.patterns) {
      if (incident.patterns.has(pattern)) continue;
      incident.patterns.add(pattern);
      incident.patternOnsets.set(pattern, onsetOf(pattern, detection));
    }
    incident.maxAnomalyScore = Math.max(incident.maxAnomalyScore, detection.anomalyScore ?? 0);
    incident.lastDetectionAt = detection.timestamp;
    const failing = detection.patterns.includes('error_rate_spike') || detection.patterns.includes('cascade_failure');
    if (detection.outage) {
      incident.peakSeverity = 'CRITICAL';
      if (incident.trigger !== 'outage' && !incident.sloAlerts.length && incident.patterns.size <= detection.patterns.length) incident.trigger = 'outage';
    } else if (incident.maxAnomalyScore >= 0.75 || failing) incident.peakSeverity = this.raised(incident);
    this.seen(incident);
  }

  /** This replica detected the incident's episode: noted, claimed in the fleet, queued for the store. */
  private seen(incident: Incident): void {
    if (this.fleet) {
      if (incident.replicas.size < MAX_REPLICAS) incident.replicas.add(this.fleet.instanceId);
      this.fleet.claim(incident);
    }
    this.changed(incident);
  }

  /** Queues the incident's record (written later, in a batch, with its state then). */
  private changed(incident: Incident): void {
    this.sink.put(INCIDENTS_COLLECTION, incident.id, () => incidentRecord(incident));
  }

  /** Persists every change from now on, and the incidents held so far. */
  attachStore(sink: StateSink): void {
    this.sink = sink;
    for (const incident of [...this.history, ...this.open.values()]) this.changed(incident);
  }

  /** Adds the incidents of previous runs; returns how many did not read back. */
  restore(records: readonly { key: string; value: unknown }[]): number {
    const known = new Set([...this.history, ...this.open.values()].map((i) => i.id));
    const { read, skipped } = readAll(
      records.filter((r) => !known.has(r.key)),
      (r) => readIncident((r as { value: unknown }).value),
    );
    const past: Incident[] = [];
    for (const incident of read) {
      if (incident.status === 'open' && !this.open.has(incident.operation)) this.open.set(incident.operation, incident);
      else if (incident.status === 'resolved') past.push(incident);
      else {
        // This run opened an incident for the operation before the store answered: the older one ends where it was.
        this.resolveQuietly(incident, incident.lastDetectionAt);
        past.push(incident);
      }
    }
    this.history = [...past, ...this.history].sort((a, b) => (a.resolvedAt ?? 0) - (b.resolvedAt ?? 0));
    this.trimHistory();
    return skipped;
  }

  private resolveQuietly(incident: Incident, at: number): void {
    incident.status = 'resolved';
    incident.resolvedAt = at;
    incident.resolution ??= 'superseded by a newer incident of the same operation after a restart';
    this.changed(incident);
  }

  private trimHistory(): void {
    while (this.history.length > this.maxHistory) this.sink.delete(INCIDENTS_COLLECTION, this.history.shift()!.id);
  }

  private onSloAlert(alert: SloAlert): void {
    if (alert.severity !== 'CRITICAL') return;
    const definition = this.engine.sloTracker.definitions().find((d) => d.name === alert.sloName);
    if (!definition) return;
    const now = this.engine.clock.now();
    const incident = this.episodeOf(definition.operationName, `slo:${alert.sloName}`, now, now, false);
    if (!incident.sloAlerts.includes(alert.sloName)) incident.sloAlerts.push(alert.sloName);
    incident.lastDetectionAt = now;
    incident.peakSeverity = this.raised(incident);
    this.seen(incident);
  }

  private raised(incident: Incident): IncidentSeverity {
    const base = BASE_SEVERITY[this.options.tierOf()];
    return INCIDENT_SEVERITIES.indexOf(incident.peakSeverity) > INCIDENT_SEVERITIES.indexOf(base) ? incident.peakSeverity : raise(base);
  }

  /** The open incident of the operation's current episode: a new one after a quiet gap or a stretch of normal traffic. */
  private episodeOf(operation: string, trigger: string, now: number, onsetAt: number, windowVerdict: boolean): Incident {
    const existing = this.open.get(operation);
    if (existing && now - existing.lastDetectionAt < this.resolveAfterMs && !(windowVerdict && this.normalSinceLastDetection(existing, onsetAt))) {
      existing.onsetAt = Math.min(existing.onsetAt, onsetAt);
      return existing;
    }
    if (existing) this.resolve(existing, Math.min(existing.lastDetectionAt + this.resolveAfterMs, now));
    const day = new Date(now).toISOString().slice(0, 10).replaceAll('-', '');
    const incident: Incident = {
      id: this.ids.next(day),
      operation,
      openedAt: now,
      status: 'open',
      peakSeverity: BASE_SEVERITY[this.options.tierOf()],
      patterns: new Set(),
      patternOnsets: new Map(),
      maxAnomalyScore: 0,
      lastDetectionAt: now,
      trigger,
      onsetAt: Math.min(onsetAt, now),
      // Read now: the waiting periods that tell it are gone a couple of minutes later.
      normalSince: this.engine.normalSince(operation, Math.min(onsetAt, now)) ?? null,
      sloAlerts: [],
      replicas: new Set(),
    };
    this.open.set(operation, incident);
    this.changed(incident);
    return incident;
  }

  private resolve(incident: Incident, at: number): void {
    incident.status = 'resolved';
    incident.resolvedAt = at;
    incident.cause = this.causeOf(incident);
    incident.resolution = this.options.lastRemediation?.(incident.operation) ?? 'recovered without remediation';
    this.open.delete(incident.operation);
    this.history.push(incident);
    this.changed(incident);
    this.fleet?.release(incident);
    this.trimHistory();
  }

  /** The severity to show now: the peak, at most MEDIUM while the operation and the service are well. */
  severityNow(incident: Incident): SeverityNow {
    const peak = incident.peakSeverity;
    if (incident.status !== 'open' || INCIDENT_SEVERITIES.indexOf(peak) <= INCIDENT_SEVERITIES.indexOf(CALM_CEILING)) return { severity: peak };
    if (this.engine.health.getOperationHealth(incident.operation)?.elevated) return { severity: peak };
    const status = this.engine.healthSummary().status;
    if (status !== 'HEALTHY') return { severity: peak };
    return { severity: CALM_CEILING, lowered: `peak ${peak}; ${incident.operation} is within its baseline and the service is HEALTHY` };
  }

  /** Resolves incidents whose episode ended and whose operation is back to baseline. Called before every read. */
  refresh(): void {
    const now = this.engine.clock.now();
    for (const incident of [...this.open.values()]) {
      if (now - incident.lastDetectionAt < this.resolveAfterMs) continue;
      if (this.engine.health.getOperationHealth(incident.operation)?.elevated) continue;
      this.resolve(incident, now);
    }
  }

  /** Whether the operation's traffic was normal for NORMAL_STRETCH_MS between the incident's last detection and `atMs`. */
  private normalSinceLastDetection(incident: Incident, atMs: number): boolean {
    if (atMs - incident.lastDetectionAt < NORMAL_STRETCH_MS) return false;
    const since = this.engine.normalSince(incident.operation, atMs);
    return since !== undefined && atMs - Math.max(since, incident.lastDetectionAt) >= NORMAL_STRETCH_MS;
  }

  /** The probable cause of the incident's episode and why it was chosen (ranking in incident-cause.ts). */
  probableCause(incident: Incident): RankedCause | undefined {
    const engine = this.engine;
    const startedAt = Math.min(incident.onsetAt, incident.openedAt);
    return rankedCause(
      engine.changes,
      { operation: incident.operation, startedAt, detectedAt: incident.openedAt, onsets: incident.patternOnsets, normalSince: incident.normalSince },
      {
        windowMs: this.changeWindowMs,
        lateMs: CAUSE_DEFAULTS.lateMs,
        dependencies: () => [...engine.dependencyHealth.statuses().map((d) => d.name), ...engine.circuitBreakers.statuses().map((b) => b.dependency)],
      },
    );
  }

  private causeOf(incident: Incident): string {
    const what = openedBy(incident);
    const cause = this.probableCause(incident);
    return cause ? `${what} after ${cause.change.kind} "${cause.change.description}" (${cause.reason})` : what;
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

  /** The incident by its id, or by the id this replica gave it before it joined the fleet's. */
  byId(id: string): Incident | undefined {
    this.refresh();
    let wanted = id;
    for (let hops = 0; hops < 4 && this.aliases.has(wanted); hops++) wanted = this.aliases.get(wanted)!;
    return this.find(wanted);
  }

  private find(id: string): Incident | undefined {
    for (const incident of this.open.values()) if (incident.id === id) return incident;
    return this.history.find((i) => i.id === id);
  }

  /** From now on this tracker's incidents are the fleet's (docs/state.md, Fleet); the open ones are claimed. */
  joinFleet(fleet: IncidentFleet): void {
    this.fleet = fleet;
    for (const incident of this.open.values()) this.seen(incident);
  }

  /**
   * Another replica holds the operation's open incident: this replica's incident `localId`
   * becomes that one (`fleetId`), what it saw kept; the old id still finds it.
   */
  join(localId: string, fleetId: string): void {
    const local = this.find(localId);
    if (local?.status !== 'open' || localId === fleetId) return;
    const pending = this.unclaimed.get(local.operation);
    this.unclaimed.delete(local.operation);
    const known = this.find(fleetId);
    if (known?.status === 'resolved') return;
    if (!known && pending?.id === fleetId) mergeInto(local, pending);
    const joined: Incident = known ?? { ...local, id: fleetId, replicas: new Set(local.replicas) };
    if (known) mergeInto(known, local);
    this.open.set(local.operation, joined);
    this.aliases.set(localId, fleetId);
    if (this.aliases.size > MAX_ALIASES) this.aliases.delete(this.aliases.keys().next().value!);
    this.sink.delete(INCIDENTS_COLLECTION, localId);
    this.changed(joined);
  }

  /**
   * Another replica wrote an incident (the store's record, read after its notice): merged into
   * this replica's copy, or taken as the operation's open incident or into the history. Returns
   * whether this replica holds more than the record (then its copy is queued to be written).
   */
  mergeRemote(value: unknown): boolean {
    const remote = readIncident(value);
    const local = this.find(remote.id);
    if (local) {
      const ahead = mergeInto(local, remote);
      if (local.status === 'resolved' && this.open.get(local.operation) === local) {
        this.open.delete(local.operation);
        this.history.push(local);
        this.history.sort((a, b) => (a.resolvedAt ?? 0) - (b.resolvedAt ?? 0));
        this.trimHistory();
      }
      if (ahead) this.changed(local);
      return ahead;
    }
    if (this.aliases.has(remote.id)) return false;
    if (remote.status === 'resolved') {
      this.history.push(remote);
      this.history.sort((a, b) => (a.resolvedAt ?? 0) - (b.resolvedAt ?? 0));
      this.trimHistory();
      return false;
    }
    const mine = this.open.get(remote.operation);
    // Two open incidents of one operation: the claim in Redis decides which one stays.
    if (mine) {
      this.unclaimed.set(remote.operation, remote);
      if (this.unclaimed.size > MAX_ALIASES) this.unclaimed.delete(this.unclaimed.keys().next().value!);
      this.fleet?.claim(mine);
    } else this.open.set(remote.operation, remote);
    return false;
  }

  /** Another replica deleted an incident's record (its history bound, or it joined the fleet's): forgotten here too. */
  forget(id: string): void {
    const index = this.history.findIndex((i) => i.id === id);
    if (index >= 0) this.history.splice(index, 1);
    for (const [operation, incident] of this.open) if (incident.id === id) this.open.delete(operation);
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
