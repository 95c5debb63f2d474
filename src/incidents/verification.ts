/**
 * Did a remediation help? At execution a snapshot is taken of the scope the action acts on, from
 * the figures get_service_health shows (the last `health.recent-minutes` of each operation's
 * per-minute history): for an action on an operation, that operation; for a service-wide action
 * (a circuit breaker, a custom action such as a rollback), the operations that were failing then
 * (any error in the window), else every operation with traffic, at most MAX_SCOPE_OPERATIONS,
 * their requests, errors and histograms merged. Afterwards the traffic of the same scope since
 * the action is collected, and after `delayMs` (default 30 s) the two are compared. For an action
 * on an operation, effective YES when the operation had traffic since, its error rate did not
 * rise and its p99 did not rise by more than 10 %; the service status is reported but not judged,
 * as an SLO violated earlier keeps it CRITICAL for the SLO's window. For a service-wide action,
 * effective YES when the service status is HEALTHY or better than before. A side without
 * requests has no figures (`requestCount` 0), never figures of 0.
 *
 * Persisted (docs/state.md) as the `verifications` collection: the action, its operation and the
 * before-snapshot. After a restart the traffic "since" is collected from the restart on.
 */
import type { AnalysisEngine } from '../analysis/analysis-engine.js';
import type { ServiceStatus } from '../analysis/health-aggregator.js';
import { histogramPercentiles } from '../analysis/latency-histogram.js';
import { RollingWindow } from '../analysis/rolling-window.js';
import { fields, finite, list, oneOf, optionalText, readAll, text } from '../shared/record-fields.js';
import { NO_SINK, type StateSink } from '../shared/state-sink.js';

export const VERIFICATIONS_COLLECTION = 'verifications';

export interface HealthSnapshot {
  readonly at: number;
  readonly status: ServiceStatus;
  readonly requestCount: number;
  readonly errorRate: number;
  readonly p50: number;
  readonly p99: number;
}

export type Verification =
  | { readonly state: 'unknown' }
  | { readonly state: 'wait'; readonly waitMs: number; readonly executedAt: number }
  | {
      readonly state: 'verified';
      readonly operation: string | undefined;
      /** The operations a service-wide action was measured on (empty for an action on an operation). */
      readonly scope: readonly string[];
      readonly effective: boolean;
      readonly why: string;
      readonly before: HealthSnapshot;
      readonly after: HealthSnapshot;
      /** Undefined when either side had no requests. */
      readonly latencyDeltaMs: number | undefined;
      readonly errorRateDelta: number | undefined;
      readonly verifiedAt: number;
    };

interface Pending {
  readonly operation: string | undefined;
  readonly scope: readonly string[];
  readonly before: HealthSnapshot;
  readonly since: RollingWindow;
  stop: () => void;
}

const STATUS_RANK: Record<ServiceStatus, number> = { HEALTHY: 0, DEGRADED: 1, CRITICAL: 2 };
export const MAX_PENDING = 50;
export const SAMPLES_SINCE = 1000;
/** Operations a service-wide action is measured on, at most: the most failing first. */
export const MAX_SCOPE_OPERATIONS = 20;

export class Verifier {
  private readonly pending = new Map<string, Pending>();
  private sink: StateSink = NO_SINK;
  /** Pending verifications dropped to keep MAX_PENDING. */
  evicted = 0;

  /** How long after an action its effect is judged. */
  readonly delayMs: number;

  constructor(
    private readonly engine: AnalysisEngine,
    options: { readonly delayMs?: number } = {},
  ) {
    this.delayMs = options.delayMs ?? 30_000;
  }

  /** The operations a service-wide action acts on: those failing now, else those with traffic. */
  private serviceScope(): string[] {
    const withTraffic = this.engine.health
      .operations()
      .map((name) => this.engine.health.getOperationHealth(name)!)
      .filter((op) => op.requestCount > 0);
    const failing = withTraffic.filter((op) => op.errorRate > 0);
    const chosen = failing.length ? failing : withTraffic;
    return chosen
      .sort((a, b) => b.errorRate * b.requestCount - a.errorRate * a.requestCount || b.requestCount - a.requestCount)
      .slice(0, MAX_SCOPE_OPERATIONS)
      .map((op) => op.operation);
  }

  /** The scope's recent figures, merged from the per-minute histories get_service_health reads. */
  private snapshotBefore(operations: readonly string[]): HealthSnapshot {
    const now = this.engine.clock.now();
    const status = this.engine.healthSummary().status;
    let requestCount = 0;
    let errors = 0;
    const histograms: Uint32Array[] = [];
    for (const operation of operations) {
      for (const minute of this.engine.health.historyFor(operation)?.minuteCounts(now, this.engine.health.recentMinutes) ?? []) {
        requestCount += minute.count;
        errors += minute.errors;
        histograms.push(minute.histogram);
      }
    }
    if (requestCount === 0) return { at: now, status, requestCount: 0, errorRate: 0, p50: 0, p99: 0 };
    const [p50, p99] = histogramPercentiles(histograms, [0.5, 0.99]) as [number, number];
    return { at: now, status, requestCount, errorRate: errors / requestCount, p50, p99 };
  }

  /** Takes the before-snapshot of an action and starts collecting the traffic after it. */
  recordBefore(action: string, operation: string | undefined): void {
    const scope = operation === undefined ? this.serviceScope() : [];
    this.track(action, operation, scope, this.snapshotBefore(operation === undefined ? scope : [operation]));
    const { before } = this.pending.get(action)!;
    this.sink.put(VERIFICATIONS_COLLECTION, action, () => ({ action, operation, scope, before }));
  }

  private track(action: string, operation: string | undefined, scope: readonly string[], before: HealthSnapshot): void {
    this.pending.get(action)?.stop();
    this.pending.delete(action);
    if (this.pending.size >= MAX_PENDING) {
      const oldest = this.pending.keys().next().value!;
      this.pending.get(oldest)!.stop();
      this.pending.delete(oldest);
      this.sink.delete(VERIFICATIONS_COLLECTION, oldest);
      this.evicted++;
    }
    const since = new RollingWindow(SAMPLES_SINCE);
    const measured = new Set(operation === undefined ? scope : [operation]);
    const stop = this.engine.onObservation((observed, latencyMs, isError) => {
      if (measured.has(observed)) since.add(latencyMs, isError);
    });
    this.pending.set(action, { operation, scope, before, since, stop });
  }

  /** Persists every verification from now on, and the ones pending so far. */
  attachStore(sink: StateSink): void {
    this.sink = sink;
    for (const [action, { operation, scope, before }] of this.pending) sink.put(VERIFICATIONS_COLLECTION, action, () => ({ action, operation, scope, before }));
  }

  /** Takes up the pending verifications of a previous run (traffic since is counted from now); returns how many did not read back. */
  restore(records: readonly { key: string; value: unknown }[]): number {
    const { read, skipped } = readAll(
      records.filter((r) => !this.pending.has(r.key)),
      (r) => {
        const f = fields((r as { value: unknown }).value);
        const b = fields(f.before);
        const before: HealthSnapshot = {
          at: finite(b, 'at'),
          status: oneOf(b, 'status', ['HEALTHY', 'DEGRADED', 'CRITICAL'] as const),
          requestCount: finite(b, 'requestCount'),
          errorRate: finite(b, 'errorRate'),
          p50: finite(b, 'p50'),
          p99: finite(b, 'p99'),
        };
        // Records written before scopes were kept have none: measured on no operation, as they were.
        const scope = f.scope === undefined ? [] : list(f, 'scope', MAX_SCOPE_OPERATIONS).map((name) => text(fields({ name }), 'name', 1024));
        return { action: text(f, 'action', 4096), operation: optionalText(f, 'operation', 1024), scope, before };
      },
    );
    for (const { action, operation, scope, before } of read) this.track(action, operation, scope, before);
    return skipped;
  }

  verify(action: string): Verification {
    const entry = this.pending.get(action);
    if (!entry) return { state: 'unknown' };
    const now = this.engine.clock.now();
    const elapsed = now - entry.before.at;
    if (elapsed < this.delayMs) return { state: 'wait', waitMs: this.delayMs - elapsed, executedAt: entry.before.at };
    const stats = entry.since.stats();
    const [p50, p99] = entry.since.percentiles(0.5, 0.99) as readonly [number, number];
    const after: HealthSnapshot = { at: now, status: this.engine.healthSummary().status, requestCount: stats.count, errorRate: stats.errorRate, p50, p99 };
    const { before } = entry;
    const reasons: string[] = [];
    if (entry.operation !== undefined && after.requestCount === 0) reasons.push('no traffic since the action');
    if (entry.operation !== undefined && after.requestCount > 0) {
      if (after.errorRate > before.errorRate) reasons.push('error rate rose');
      if (before.p99 > 0 && after.p99 > before.p99 * 1.1) reasons.push('p99 rose by more than 10%');
    }
    if (entry.operation === undefined && after.status !== 'HEALTHY' && STATUS_RANK[after.status] >= STATUS_RANK[before.status]) reasons.push(`service still ${after.status}`);
    const measured = before.requestCount > 0 && after.requestCount > 0;
    return {
      state: 'verified',
      operation: entry.operation,
      scope: entry.scope,
      effective: reasons.length === 0,
      why: reasons.length ? reasons.join('; ') : entry.operation === undefined ? 'the service is healthier than before' : 'error rate and p99 did not get worse since the action',
      before,
      after,
      latencyDeltaMs: measured ? after.p50 - before.p50 : undefined,
      errorRateDelta: measured ? after.errorRate - before.errorRate : undefined,
      verifiedAt: now,
    };
  }
}
