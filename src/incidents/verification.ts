/**
 * Did a remediation help? At execution a snapshot is taken (service status; the operation's
 * error rate, p50 and p99 over the last minutes); afterwards the traffic since the action is
 * collected, and after `delayMs` (default 30 s) the two are compared. For an action on an
 * operation, effective YES when the operation had traffic since, its error rate did not rise and
 * its p99 did not rise by more than 10 %; the service status is reported but not judged, as an
 * SLO violated earlier keeps it CRITICAL for the SLO's window. For a service-wide action (a
 * circuit breaker), effective YES when the service status is HEALTHY or better than before.
 *
 * Persisted (docs/state.md) as the `verifications` collection: the action, its operation and the
 * before-snapshot. After a restart the traffic "since" is collected from the restart on.
 */
import type { Engine } from '../analysis/engine.js';
import type { ServiceStatus } from '../analysis/health-aggregator.js';
import { RollingWindow } from '../analysis/rolling-window.js';
import { fields, finite, oneOf, optionalText, readAll, text } from '../record-fields.js';
import { NO_SINK, type StateSink } from '../state-sink.js';

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
      readonly effective: boolean;
      readonly why: string;
      readonly before: HealthSnapshot;
      readonly after: HealthSnapshot;
      readonly latencyDeltaMs: number;
      readonly errorRateDelta: number;
      readonly verifiedAt: number;
    };

interface Pending {
  readonly operation: string | undefined;
  readonly before: HealthSnapshot;
  readonly since: RollingWindow;
  stop: () => void;
}

const STATUS_RANK: Record<ServiceStatus, number> = { HEALTHY: 0, DEGRADED: 1, CRITICAL: 2 };
export const MAX_PENDING = 50;
export const SAMPLES_SINCE = 1000;

export class Verifier {
  private readonly pending = new Map<string, Pending>();
  private sink: StateSink = NO_SINK;
  /** Pending verifications dropped to keep MAX_PENDING. */
  evicted = 0;

  constructor(
    private readonly engine: Engine,
    readonly delayMs = 30_000,
  ) {}

  private snapshotBefore(operation: string | undefined): HealthSnapshot {
    const now = this.engine.clock.now();
    const status = this.engine.healthSummary().status;
    const health = operation ? this.engine.health.getOperationHealth(operation) : undefined;
    return { at: now, status, requestCount: health?.requestCount ?? 0, errorRate: health?.errorRate ?? 0, p50: health?.p50 ?? 0, p99: health?.p99 ?? 0 };
  }

  /** Takes the before-snapshot of an action and starts collecting the traffic after it. */
  recordBefore(action: string, operation: string | undefined): void {
    this.track(action, operation, this.snapshotBefore(operation));
    const { before } = this.pending.get(action)!;
    this.sink.put(VERIFICATIONS_COLLECTION, action, () => ({ action, operation, before }));
  }

  private track(action: string, operation: string | undefined, before: HealthSnapshot): void {
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
    const stop = this.engine.onObservation((observed, latencyMs, isError) => {
      if (operation === undefined || observed === operation) since.add(latencyMs, isError);
    });
    this.pending.set(action, { operation, before, since, stop });
  }

  /** Persists every verification from now on, and the ones pending so far. */
  attachStore(sink: StateSink): void {
    this.sink = sink;
    for (const [action, { operation, before }] of this.pending) sink.put(VERIFICATIONS_COLLECTION, action, () => ({ action, operation, before }));
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
        return { action: text(f, 'action', 4096), operation: optionalText(f, 'operation', 1024), before };
      },
    );
    for (const { action, operation, before } of read) this.track(action, operation, before);
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
    return {
      state: 'verified',
      operation: entry.operation,
      effective: reasons.length === 0,
      why: reasons.length ? reasons.join('; ') : entry.operation === undefined ? 'the service is healthier than before' : 'error rate and p99 did not get worse since the action',
      before,
      after,
      latencyDeltaMs: after.p50 - before.p50,
      errorRateDelta: after.errorRate - before.errorRate,
      verifiedAt: now,
    };
  }
}
