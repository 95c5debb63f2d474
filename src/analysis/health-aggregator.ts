/**
 * Service, operation and dependency health.
 *
 * Operation health covers the last `recentMinutes` (default 5) of its per-minute history:
 * request count, error rate, p50 and p99 (from the minute histograms), throughput, and ELEVATED
 * when its window deviates from normal now (a pattern holds: the same verdict that opens an
 * incident, src/analysis/operation-deviation.ts), or when, with at least 5 requests, p50 (p99:
 * with at least 100) exceeds 1.5 x the baseline's and by at least 1 ms (the histograms cannot tell microseconds
 * apart), or the error rate exceeds the baseline's by more than 5 points and is over twice it
 * (floored at 1 %).
 *
 * In the engine each baseline figure is the configured one where set, else the operation's learned
 * normal (src/analysis/operation-baseline.ts); a figure neither configured nor learned yet is
 * `learning` and judges nothing, and `expected-error-rate: -1` leaves errors unjudged (an outage
 * still counts). No default baseline is made up. Used on its own, the aggregator judges against
 * the baseline provider it is built with (the spec's rolling baselines).
 *
 * Service status:
 * - CRITICAL: an SLO is VIOLATED or in a fast burn, a dependency declared `required` is unhealthy, an operation
 *   is in an outage (its window's verdict: most requests failing now), or it fails half or more of
 *   at least 10 recent requests;
 * - DEGRADED: an operation is ELEVATED, a dependency is degraded or unhealthy, an SLO is AT_RISK,
 *   or a circuit breaker is not closed;
 * - HEALTHY otherwise.
 * A stale dependency (no call in its window) keeps its last state on show but counts for neither.
 * The summary lists the reasons, so an agent sees why.
 */
import type { Criticality } from '../shared/enums.js';
import type { BaselineProvider } from './baseline.js';
import { BoundedMap } from './bounded-map.js';
import type { CircuitBreakers } from './circuit-breakers.js';
import { type Clock, systemClock } from './clock.js';
import { DependencyHealth, type DependencyState } from './dependency-health.js';
import { MinuteHistory, type MinuteStats, type MinuteSummary, NO_REQUESTS } from './minute-history.js';
import { ERROR_RATE_FLOOR, type OperationBaseline, operationBaselineOf } from './operation-baseline.js';
import type { OperationDeviation } from './operation-deviation.js';
import type { ColdStart } from './patterns/cold-start.js';
import type { SloCompliance, SloStatus, SloTracker } from './slo-tracker.js';

export type ServiceStatus = 'HEALTHY' | 'DEGRADED' | 'CRITICAL';

/**
 * An operation's health as one read found it. A class, not an object literal: a health read makes
 * one per operation and keeps them all until the tool has answered, so young collections find
 * them alive, and V8 then allocates a literal's later objects straight in the old generation
 * (allocation-site pretenuring; a class's instances have no allocation site). An agent polling
 * get_service_health with 500 operations left 141 KB a call that only full collections reclaim
 * (docs/analysis.md, Cost).
 */
export class OperationHealth {
  readonly operation: string;
  readonly requestCount: number;
  readonly errorCount: number;
  readonly errorRate: number;
  readonly p50: number;
  readonly p99: number;
  readonly throughputPerMinute: number;
  readonly elevated: boolean;
  /** Why it is elevated, for example "p99 410ms vs baseline 200ms". */
  readonly elevatedReasons: readonly string[];
  /** What it is judged against, figure by figure, with where each figure comes from. */
  readonly baseline: OperationBaseline | undefined;
  readonly baselineState: BaselineState;
  /** Samples of its learned normal. */
  readonly samples: number;
  /** A fresh process's slow first requests, when they were markedly slower than the baseline. */
  readonly coldStart: ColdStart | undefined;
  /** How it deviates from normal now (patterns holding and forming), if it does. */
  readonly deviation: OperationDeviation | undefined;

  constructor(operation: string, recent: MinuteSummary, baselines: OperationBaselines, reasons: readonly string[], recentMinutes: number) {
    this.operation = operation;
    this.requestCount = recent.count;
    this.errorCount = recent.errors;
    this.errorRate = recent.errorRate;
    this.p50 = recent.p50;
    this.p99 = recent.p99;
    this.throughputPerMinute = recent.count / recentMinutes;
    this.elevated = reasons.length > 0;
    this.elevatedReasons = reasons;
    this.baseline = baselines.baseline;
    this.baselineState = baselines.baseline?.state ?? 'learning';
    this.samples = baselines.baseline?.samples ?? 0;
    this.coldStart = baselines.coldStart;
    this.deviation = baselines.deviation;
  }
}

/**
 * What an operation is judged against, read in one go per operation and health read: the engine
 * finds the learned parts and the cold start in its one record of the operation and the configured
 * ones in the configuration's entry (src/analysis/analysis-engine.ts), where a lookup per part cost more than
 * the rest of the read.
 */
export class OperationBaselines {
  constructor(
    /** Figure by figure, configured or learned; undefined when nothing judges the operation. */
    readonly baseline: OperationBaseline | undefined,
    /** The operation's cold start: while it is within the recent minutes, its p99 is not judged. */
    readonly coldStart: ColdStart | undefined,
    /** Its deviation from normal now, if any. */
    readonly deviation: OperationDeviation | undefined,
  ) {}
}

const LEARNING: OperationBaselines = Object.freeze(new OperationBaselines(undefined, undefined, undefined));

/** configured: every figure known is configured; learned: some are learned from traffic; learning: no latency figure yet. */
export type BaselineState = 'configured' | 'learned' | 'learning';

export interface DependencySummary {
  readonly name: string;
  readonly state: DependencyState;
  readonly errorRate: number;
  readonly averageLatencyMs: number;
  /** Calls in the dependency's window. */
  readonly calls: number;
  /** No call in the window: `state` is the last one measured and not counted by the status. */
  readonly stale: boolean;
  /** The last call, epoch ms. */
  readonly lastCallAt: number;
}

export interface SloSummary {
  readonly name: string;
  readonly budgetRemaining: number;
  readonly burnRate: number;
  readonly compliance: SloCompliance;
}

export interface HealthSummary {
  readonly service: string;
  readonly status: ServiceStatus;
  /** ISO 8601 UTC. */
  readonly timestamp: string;
  readonly operations: readonly OperationHealth[];
  readonly dependencies: readonly DependencySummary[];
  readonly slos: readonly SloSummary[];
  readonly reasons: readonly string[];
}

/**
 * A fleet's figures (src/fleet), judged instead of this process's own: the operations' requests,
 * errors and percentiles merged from every replica's histograms, and SLOs from summed counts.
 * Baselines, warm-up, dependencies and breakers stay this process's.
 */
export interface FleetFigures {
  /** Operations with traffic in any replica's recent minutes. */
  readonly operations: readonly string[];
  recentOf(operation: string): MinuteSummary | undefined;
  readonly slos: readonly SloStatus[];
  /** One sentence per replica that stands out from the others: each makes the service DEGRADED at least. */
  readonly outlierReasons: readonly string[];
}

export interface HealthAggregatorOptions {
  readonly clock?: Clock;
  readonly dependencyHealth?: DependencyHealth;
  /** What each operation is judged against. Default: the baseline provider's baseline. */
  readonly baselinesOf?: (operation: string) => OperationBaselines;
  readonly circuitBreakers?: CircuitBreakers;
  /**
   * A fresh process's warm-up is not a health problem: while the process warms up its latency
   * makes nothing ELEVATED (and an operation's cold start, `OperationBaselines.coldStart`, keeps
   * its p99 from being judged while it is within the recent minutes; p50 still is).
   */
  readonly isWarmingUp?: () => boolean;
  /** Declared criticality of a dependency, for the CRITICAL rule. */
  readonly criticalityOf?: (dependency: string) => Criticality | undefined;
  readonly historyMinutes?: number;
  readonly recentMinutes?: number;
  readonly maxOperations?: number;
  readonly onOverflow?: (capacity: number) => void;
}

const ELEVATION_FACTOR = 1.5;
const MIN_ELEVATION_MS = 1;
const MIN_REQUESTS_FOR_ELEVATION = 5;
const MIN_REQUESTS_FOR_CRITICAL = 10;
const MIN_REQUESTS_FOR_P99 = 100;

/** The reasons of an operation that is not elevated: one shared array, not one per operation and read. */
const NO_REASONS: readonly string[] = Object.freeze([]);

const slower = (value: number, base: number): boolean => value > ELEVATION_FACTOR * base && value - base >= MIN_ELEVATION_MS;
const ms = (value: number): string => `${value < 10 ? value.toFixed(1) : Math.round(value)}ms`;
const percent = (value: number): string => `${(value * 100).toFixed(1)}%`;
/** ` since 14:02:10Z`, or nothing for a pattern without an onset (a herd, a leak). */
const sinceText = (ms: number): string => (Number.isFinite(ms) ? ` since ${new Date(ms).toISOString().slice(11, 19)}Z` : '');

export class HealthAggregator {
  readonly dependencyHealth: DependencyHealth;
  private readonly clock: Clock;
  private readonly history: BoundedMap<string, MinuteHistory>;
  /** Whole minutes of history kept per operation, besides the current one. */
  readonly historyMinutes: number;
  /** Minutes operation health is measured over. */
  readonly recentMinutes: number;

  /**
   * Operations are judged against `baselines` (the spec's rolling baselines; any provider will
   * do) unless `options.baselinesOf` says otherwise, as the engine's does with its learned normals.
   */
  constructor(
    private readonly baselines: BaselineProvider,
    private readonly slos: SloTracker,
    private readonly options: HealthAggregatorOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.historyMinutes = Math.max(60, options.historyMinutes ?? 60);
    this.recentMinutes = options.recentMinutes ?? 5;
    this.history = new BoundedMap(options.maxOperations ?? 1000, () => new MinuteHistory(this.historyMinutes), options.onOverflow);
    this.dependencyHealth = options.dependencyHealth ?? new DependencyHealth({ clock: this.clock });
  }

  recordSpan(operation: string, latencyMs: number, isError: boolean): void {
    this.historyFor(operation)?.add(this.clock.now(), latencyMs, isError);
  }

  /** The operation's history, created on first use (undefined beyond the cap), for callers that keep it. */
  historyFor(operation: string): MinuteHistory | undefined {
    return this.history.getOrCreate(operation);
  }

  /** Each operation's history, for persisting it. */
  forEachHistory(callback: (history: MinuteHistory, operation: string) => void): void {
    this.history.forEach(callback);
  }

  /** The operation's history to restore a previous run's minutes into: created only while there is room, counting no overflow. */
  restorableHistory(operation: string): MinuteHistory | undefined {
    return this.history.get(operation) ?? (this.history.size < this.history.capacity ? this.history.getOrCreate(operation) : undefined);
  }

  recordDependencyCall(dependency: string, latencyMs: number, isError: boolean): void {
    this.dependencyHealth.record(dependency, latencyMs, isError);
  }

  operations(): string[] {
    return [...this.history.keys()];
  }

  get overflow(): number {
    return this.history.overflow;
  }

  /** Per-minute p50, p99, error rate and throughput over the last `minutes`, oldest first. */
  historyOf(operation: string, minutes: number): MinuteStats[] {
    return this.history.get(operation)?.series(this.clock.now(), minutes) ?? [];
  }

  /** With `fleet`, the operation's figures are the fleet's. */
  getOperationHealth(operation: string, fleet?: FleetFigures): OperationHealth | undefined {
    const history = this.history.get(operation);
    if (!history && !fleet) return undefined;
    return this.healthOf(operation, history, fleet, this.options.isWarmingUp?.() ?? false, this.clock.now());
  }

  private healthOf(operation: string, history: MinuteHistory | undefined, fleet: FleetFigures | undefined, warming: boolean, now: number): OperationHealth {
    const recent = fleet ? (fleet.recentOf(operation) ?? NO_REQUESTS) : history!.summary(now, this.recentMinutes);
    const baselines = this.options.baselinesOf ? this.options.baselinesOf(operation) : this.providedBaselinesOf(operation);
    const { baseline, coldStart, deviation } = baselines;
    let reasons: readonly string[] = NO_REASONS;
    // Allocated only for an operation that is elevated: a health read asks for every operation.
    let found: string[] | undefined;
    if (deviation?.patterns.length) (found ??= []).push(`${deviation.outage ? 'outage' : deviation.patterns.join(', ')}${sinceText(deviation.sinceMs)}`);
    if (recent.count >= MIN_REQUESTS_FOR_ELEVATION && baseline) {
      const coldStartRecent = !warming && coldStart !== undefined && now - (coldStart.firstRequestAtMs + coldStart.durationMs) < this.recentMinutes * 60_000;
      const p50 = baseline.latencyP50Ms;
      const p99 = baseline.latencyP99Ms;
      if (!warming && p50 !== undefined && slower(recent.p50, p50)) (found ??= []).push(`p50 ${ms(recent.p50)} vs baseline ${ms(p50)}`);
      // A p99 needs about 100 requests to be seen at all: fewer, and it is the slowest one.
      if (!warming && !coldStartRecent && p99 !== undefined && recent.count >= MIN_REQUESTS_FOR_P99 && slower(recent.p99, p99)) (found ??= []).push(`p99 ${ms(recent.p99)} vs baseline ${ms(p99)}`);
      const errors = baseline.errorRate;
      if (errors !== undefined && recent.errorRate > errors + 0.05 && recent.errorRate > 2 * Math.max(errors, ERROR_RATE_FLOOR)) {
        (found ??= []).push(`error rate ${percent(recent.errorRate)} vs baseline ${percent(errors)}`);
      }
    }
    if (found) reasons = found;
    return new OperationHealth(operation, recent, baselines, reasons, this.recentMinutes);
  }

  private providedBaselinesOf(operation: string): OperationBaselines {
    const baseline = this.baselines.getBaseline(operation);
    return baseline ? new OperationBaselines(operationBaselineOf(baseline), undefined, undefined) : LEARNING;
  }

  /** With `fleet`, operations and SLOs are the fleet's. */
  getHealthSummary(serviceName: string, fleet?: FleetFigures): HealthSummary {
    const now = this.clock.now();
    const warming = this.options.isWarmingUp?.() ?? false;
    const operations: OperationHealth[] = [];
    if (fleet) for (const op of new Set([...fleet.operations, ...this.operations()])) operations.push(this.healthOf(op, this.history.get(op), fleet, warming, now));
    else
      this.history.forEach((history, op) => {
        operations.push(this.healthOf(op, history, undefined, warming, now));
      });
    const dependencies: DependencySummary[] = this.dependencyHealth.statuses().map((d) => ({
      name: d.name,
      state: d.state,
      errorRate: d.errorRate,
      averageLatencyMs: d.averageLatencyMs,
      calls: d.calls,
      stale: d.stale,
      lastCallAt: d.lastCallAt,
    }));
    const statuses = fleet ? fleet.slos : this.slos.statuses();
    const slos: SloSummary[] = statuses.map((s) => ({ name: s.name, budgetRemaining: s.budgetRemaining, burnRate: s.burnRate, compliance: s.compliance }));
    const critical: string[] = [];
    const degraded: string[] = [];
    for (const slo of statuses) {
      if (slo.compliance === 'VIOLATED') critical.push(`SLO ${slo.name} violated`);
      else if (slo.fastBurn) critical.push(`SLO ${slo.name} fast burn`);
      else if (slo.compliance === 'AT_RISK') degraded.push(`SLO ${slo.name} at risk`);
    }
    for (const dependency of dependencies) {
      if (dependency.state === 'healthy' || dependency.stale) continue;
      const required = this.options.criticalityOf?.(dependency.name) === 'required';
      (dependency.state === 'unhealthy' && required ? critical : degraded).push(`dependency ${dependency.name} ${dependency.state}`);
    }
    for (const op of operations) {
      if (op.deviation?.outage) critical.push(`${op.operation} outage: most requests failing${sinceText(op.deviation.sinceMs)}`);
      else if (op.requestCount >= MIN_REQUESTS_FOR_CRITICAL && op.errorRate >= 0.5) critical.push(`${op.operation} failing (${percent(op.errorRate)})`);
      else if (op.elevated) degraded.push(`${op.operation} elevated: ${op.elevatedReasons.join(', ')}`);
    }
    for (const breaker of this.options.circuitBreakers?.statuses() ?? []) {
      if (breaker.state !== 'closed') degraded.push(`circuit breaker ${breaker.name} ${breaker.state}`);
    }
    if (fleet) degraded.push(...fleet.outlierReasons);
    const status: ServiceStatus = critical.length ? 'CRITICAL' : degraded.length ? 'DEGRADED' : 'HEALTHY';
    return { service: serviceName, status, timestamp: new Date(now).toISOString(), operations, dependencies, slos, reasons: [...critical, ...degraded] };
  }
}
