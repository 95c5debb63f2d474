/**
 * The fleet as the tools see it (docs/state.md, Fleet view): the replicas' summaries merged once per
 * refresh, in the background, so a tool call reads a ready answer and never waits on Redis.
 *
 * - Per operation, requests and errors are summed and the histograms added; p50 and p99 are read
 *   from the summed histogram: the percentiles of the union of the replicas' requests.
 * - SLOs: counts summed per SLO name (src/analysis/slo-tracker.ts, sloStatusFromCounts).
 * - REPLICAS: each one's id, start, last publish and own status; outliers (src/fleet/outliers.ts).
 * - Freshness: the time of the last merge, and that each summary is at most one publish interval
 *   older. A Redis that does not answer (or no merge for three intervals) turns the view off: the
 *   tools show this replica's own figures with a note saying why.
 */
import type { Clock } from '../analysis/clock.js';
import type { FleetFigures } from '../analysis/health-aggregator.js';
import { HISTOGRAM_BUCKETS, histogramPercentiles } from '../analysis/latency-histogram.js';
import type { MinuteSummary } from '../analysis/minute-history.js';
import { type SloCounts, type SloDefinition, type SloStatus, sloStatusFromCounts } from '../analysis/slo-tracker.js';
import { printable } from '../shared/printable.js';
import { FleetHistory, type OperationHistory } from './fleet-history.js';
import { findOutliers, type Outlier, outlierText } from './outliers.js';
import { addHistogram, type OperationCounts, Pieces, type ReplicaStatus, type ReplicaSummary } from './replica-summary.js';

export interface ReplicaInfo {
  readonly id: string;
  readonly startedAt: number;
  readonly seenAt: number;
  readonly status: ReplicaStatus;
  readonly reason: string | undefined;
  /** This process. */
  readonly self: boolean;
  readonly outlier: Outlier | undefined;
}

/** The fleet merged at one time. */
export class FleetSnapshot implements FleetFigures {
  private constructor(
    readonly mergedAt: number,
    readonly operations: readonly string[],
    private readonly recent: ReadonlyMap<string, MinuteSummary>,
    readonly slos: readonly SloStatus[],
    readonly replicas: readonly ReplicaInfo[],
    readonly outliers: readonly Outlier[],
    /** Operations beyond `maxOperations` (replica by replica, in order of last publish), not merged. */
    readonly operationsLeftOut: number,
  ) {
    this.outlierReasons = outliers.map((o) => `replica ${printable(o.replica, MAX_REPLICA_CHARS)} is an outlier: ${outlierText(o).slice('OUTLIER: '.length)}`);
  }

  readonly outlierReasons: readonly string[];

  /**
   * Merges `summaries` in pieces of about PIECE_MS (src/fleet/replica-summary.ts), between which the
   * app runs; the snapshot is built aside and shown whole.
   */
  static async merge(summaries: readonly ReplicaSummary[], mergedAt: number, ownId: string, ownSlos: readonly SloDefinition[], maxOperations = Number.POSITIVE_INFINITY): Promise<FleetSnapshot> {
    const pieces = new Pieces();
    const fleet = new Map<string, { count: number; errors: number; histogram: Uint32Array }>();
    let operationsLeftOut = 0;
    for (const s of summaries) {
      for (const [name, c] of s.operations) {
        if (pieces.due()) await pieces.next();
        let sum = fleet.get(name);
        if (!sum) {
          // Replicas may each track other operations: the fleet holds as many as one replica may.
          if (fleet.size >= maxOperations) {
            operationsLeftOut++;
            continue;
          }
          fleet.set(name, (sum = { count: 0, errors: 0, histogram: new Uint32Array(HISTOGRAM_BUCKETS) }));
        }
        sum.count += c.count;
        sum.errors += c.errors;
        addHistogram(sum.histogram, c.histogram);
      }
    }
    const recent = new Map<string, MinuteSummary>();
    for (const [name, c] of fleet) {
      if (pieces.due()) await pieces.next();
      const [p50, p99] = histogramPercentiles([c.histogram], [0.5, 0.99]) as [number, number];
      recent.set(name, { count: c.count, errors: c.errors, errorRate: c.count ? c.errors / c.count : 0, p50, p99 });
    }
    const byReplica = new Map<string, ReadonlyMap<string, OperationCounts>>(summaries.map((s) => [s.id, s.operations]));
    const outliers = await findOutliers(byReplica, fleet, pieces);
    const outlierOf = new Map(outliers.map((o) => [o.replica, o]));
    const replicas = summaries
      .map((s) => ({ id: s.id, startedAt: s.startedAt, seenAt: s.seenAt, status: s.status, reason: s.reason, self: s.id === ownId, outlier: outlierOf.get(s.id) }))
      .sort((a, b) => replicaRank(a) - replicaRank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return new FleetSnapshot(mergedAt, [...fleet.keys()], recent, mergeSlos(summaries, ownSlos), replicas, outliers, operationsLeftOut);
  }

  recentOf(operation: string): MinuteSummary | undefined {
    return this.recent.get(operation);
  }
}

/** A replica id in a sentence of the service's health. */
const MAX_REPLICA_CHARS = 100;

const STATUS_RANK: Record<ReplicaStatus, number> = { CRITICAL: 0, DEGRADED: 1, HEALTHY: 2 };

/** Outliers first, then by status, worst first. */
function replicaRank(r: { status: ReplicaStatus; outlier: Outlier | undefined }): number {
  return (r.outlier ? 0 : 3) + STATUS_RANK[r.status];
}

function mergeSlos(summaries: readonly ReplicaSummary[], ownSlos: readonly SloDefinition[]): SloStatus[] {
  const merged = new Map<string, { definition: SloDefinition; counts: SloCounts }>();
  for (const d of ownSlos) merged.set(d.name, { definition: d, counts: EMPTY_COUNTS });
  for (const s of summaries) {
    for (const { definition, counts } of s.slos) {
      const entry = merged.get(definition.name);
      if (entry) entry.counts = addCounts(entry.counts, counts);
      else merged.set(definition.name, { definition, counts });
    }
  }
  return [...merged.values()].map(({ definition, counts }) => sloStatusFromCounts(definition, counts));
}

const EMPTY_COUNTS: SloCounts = { total: 0, bad: 0, windowEvents: 0, observedMs: 0, burn: { fiveMinutes: [0, 0], thirtyMinutes: [0, 0], oneHour: [0, 0], sixHours: [0, 0] } };

function addCounts(a: SloCounts, b: SloCounts): SloCounts {
  const pair = (x: readonly [number, number], y: readonly [number, number]): [number, number] => [x[0] + y[0], x[1] + y[1]];
  return {
    total: a.total + b.total,
    bad: a.bad + b.bad,
    windowEvents: a.windowEvents + b.windowEvents,
    observedMs: Math.max(a.observedMs, b.observedMs),
    burn: {
      fiveMinutes: pair(a.burn.fiveMinutes, b.burn.fiveMinutes),
      thirtyMinutes: pair(a.burn.thirtyMinutes, b.burn.thirtyMinutes),
      oneHour: pair(a.burn.oneHour, b.burn.oneHour),
      sixHours: pair(a.burn.sixHours, b.burn.sixHours),
    },
  };
}

export interface FleetViewOptions {
  readonly clock: Clock;
  readonly ownId: string;
  readonly publishIntervalMs: number;
  readonly replicaTtlMs: number;
  readonly historyMinutes: number;
  readonly maxOperations: number;
  /** This process's SLO definitions (a fleet SLO takes its definition from here when it has one). */
  readonly ownSlos: () => readonly SloDefinition[];
}

/** Merges that fail or are missing for this many publish intervals turn the view off. */
const STALE_INTERVALS = 3;
const ago = (ms: number): string => `${Math.max(0, Math.round(ms / 1000))}s ago`;
const iso = (at: number): string => new Date(at).toISOString();

/** The latest merge and whether it can be shown; kept up to date by the fleet link (src/fleet/fleet-link.ts). */
export class FleetView {
  readonly history: FleetHistory;
  private snapshot: FleetSnapshot | undefined;
  private failure: { since: number; why: string } | undefined;
  /** Replicas beyond the most read (MAX_REPLICAS), at the last merge. */
  replicasLeftOut = 0;

  constructor(readonly options: FleetViewOptions) {
    this.history = new FleetHistory(options.historyMinutes, options.maxOperations);
  }

  /** A merge of the summaries just read (in pieces; the view shows the previous merge until it is done). */
  async update(summaries: readonly ReplicaSummary[], replicasLeftOut = 0): Promise<FleetSnapshot> {
    const snapshot = await FleetSnapshot.merge(summaries, this.options.clock.now(), this.options.ownId, this.options.ownSlos(), this.options.maxOperations);
    this.snapshot = snapshot;
    this.replicasLeftOut = replicasLeftOut;
    this.failure = undefined;
    return snapshot;
  }

  /** A refresh that failed: the view is off until one succeeds. */
  failed(why: string): void {
    this.failure ??= { since: this.options.clock.now(), why };
  }

  /** The fleet's figures, when the last merge is recent and Redis answered; else undefined (use this replica's own). */
  current(): FleetSnapshot | undefined {
    const s = this.snapshot;
    if (!s || this.failure) return undefined;
    return this.options.clock.now() - s.mergedAt <= STALE_INTERVALS * this.options.publishIntervalMs ? s : undefined;
  }

  /** The history get_trend_analysis reads for `operation`, while the view is on. */
  historyOf(operation: string): OperationHistory | undefined {
    return this.current() ? this.history.historyOf(operation) : undefined;
  }

  /** The line the fleet tools add: how fresh the merged figures are, or why they are this replica's own. */
  note(): string {
    const now = this.options.clock.now();
    const s = this.current();
    const interval = this.options.publishIntervalMs;
    const every = interval % 1000 === 0 ? `${interval / 1000}s` : `${interval}ms`;
    if (s) {
      const more = `${this.replicasLeftOut ? ` (${this.replicasLeftOut} more replicas not read)` : ''}${s.operationsLeftOut ? `, ${s.operationsLeftOut} operations beyond limits.max-operations left out` : ''}`;
      return `FLEET: figures merged from ${s.replicas.length} replica${s.replicas.length === 1 ? '' : 's'}${more} at ${iso(s.mergedAt)} (${ago(now - s.mergedAt)}); each replica publishes every ${every}`;
    }
    if (this.failure) return `FLEET: Redis is not answering since ${iso(this.failure.since)} (${this.failure.why}); the figures are this replica's own (${this.options.ownId})`;
    if (this.snapshot) return `FLEET: no merge since ${iso(this.snapshot.mergedAt)} (${ago(now - this.snapshot.mergedAt)}); the figures are this replica's own (${this.options.ownId})`;
    return `FLEET: the first merge of the replicas' summaries is pending (every ${every}); the figures are this replica's own (${this.options.ownId})`;
  }
}
