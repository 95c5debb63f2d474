/**
 * The analysis engine: turns each finished span into operational knowledge, in-process.
 *
 * Per operation span (in the processor's `onEnding`, O(1) amortised): z-score check against the
 * rolling baseline taken before the span is recorded, pattern detection, then recording into the
 * rolling baseline, health history and SLOs; anomaly and SLO attributes are written on the span.
 * Detections (the incident tracker's input) come only from patterns, which are sustained over a
 * time window; a span's z-score marks the span and feeds the rate-limited event.
 * Per client span: dependency health and the cascade pattern's failure record.
 * Events go out through the log pipeline: anomalies rate-limited per operation and pattern, SLO
 * alerts once per crossing, dependency and breaker changes on every change.
 *
 * It knows nothing of configuration, metadata or telemetry: src/wiring/service-engine.ts builds it from
 * configuration and connects it to the span processor. Every component is optional.
 */
import { getHeapStatistics } from 'node:v8';
import type { Attributes } from '@opentelemetry/api';
import type { Span, TimedEvent } from '@opentelemetry/sdk-trace';
import { ANOMALY, BASELINE, SLO } from '../shared/attribute-names.js';
import type { Criticality } from '../shared/enums.js';
import { reportError } from '../shared/report-error.js';
import type { AnalysisReads } from './analysis-reads.js';
import { AnomalyDetector, type AnomalyRun } from './anomaly-detector.js';
import { type Baseline, type BaselineProvider, CompositeBaselineProvider, type ConfiguredFigures, figuresOf, StaticBaselineProvider } from './baseline.js';
import { BoundedMap } from './bounded-map.js';
import { type ChangeEntry, ChangeTracker, recordingStateChanges } from './change-tracker.js';
import { type CircuitBreakerStatus, CircuitBreakers } from './circuit-breakers.js';
import { type Clock, SpanClock, systemClock } from './clock.js';
import { DependencyHealth, type DependencyStatus } from './dependency-health.js';
import type { EmitEvent } from './emit-event.js';
import { ErrorCategories, type ErrorCategoryCount } from './error-categories.js';
import { type FleetFigures, HealthAggregator, type HealthSummary, OperationBaselines, type OperationHealth } from './health-aggregator.js';
import type { LearnedNormal } from './learned-normal.js';
import { logLatency } from './log-latency.js';
import type { MinuteHistory } from './minute-history.js';
import { NormalMemory } from './normal-memory.js';
import { OperationBaseline } from './operation-baseline.js';
import { deviationOf, type OperationDeviation } from './operation-deviation.js';
import { type ColdStart, DEFAULT_PATTERN_THRESHOLDS, type IncidentPattern, type OperationWindow, PATTERN_DESCRIPTIONS, PatternMatcher } from './pattern-matcher.js';
import { RollingBaselineProvider } from './rolling-baseline-provider.js';
import type { RollingWindow } from './rolling-window.js';
import { type SloAlert, type SloStatus, SloTracker } from './slo-tracker.js';

export interface AnalysisEngineOptions {
  readonly clock?: Clock;
  /** Receives svc's events; default: dropped (the preload passes the OTel log pipeline). */
  readonly emit?: EmitEvent;
  /** A name, or a function for names that decorators may still declare. */
  readonly serviceName?: string | (() => string);
  /** Static baselines keyed by operation name, or any provider. */
  readonly staticBaselines?: ReadonlyMap<string, Baseline> | BaselineProvider;
  readonly rollingBaselines?: RollingBaselineProvider;
  /** The learned normals (the long memory); default: built with `normalHorizonMs` and `acceptAfterMs`. */
  readonly normals?: NormalMemory;
  /** How long a learned normal remembers (its time constant). Default 6 hours. */
  readonly normalHorizonMs?: number;
  /** A deviation lasting this long becomes the new normal. Default 2 hours. */
  readonly acceptAfterMs?: number;
  readonly patternMatcher?: PatternMatcher;
  readonly sloTracker?: SloTracker;
  readonly dependencyHealth?: DependencyHealth;
  readonly circuitBreakers?: CircuitBreakers;
  readonly changes?: ChangeTracker;
  /**
   * What configuration says of an operation, figure by figure; what it does not say is learned.
   * Default: the static baseline's figures.
   */
  readonly configuredOf?: (operation: string) => ConfiguredFigures;
  /** Which baseline spans carry and the chain tries first. Default static. */
  readonly baselineSource?: 'static' | 'rolling';
  readonly anomalyDetection?: {
    readonly enabled?: boolean;
    readonly threshold?: number;
    /** Anomalous spans without a break before an event. Default 3. */
    readonly persistence?: number;
    /** How long anomalies must last before an event (ms). Default 1000. */
    readonly persistenceMs?: number;
    /** Smaller latency deviations (ms) never make an event. Default 1. */
    readonly minLatencyDeviationMs?: number;
    readonly eventIntervalMs?: number;
  };
  /** Operations analysed (default 1000); components passed in should have the same cap, as the ones the engine builds do. */
  readonly maxOperations?: number;
  readonly historyMinutes?: number;
  /** Minutes operation health is measured over (default 5). */
  readonly healthRecentMinutes?: number;
  /** Criticality of declared dependencies, for the service status. */
  readonly criticalityOf?: (dependency: string) => Criticality | undefined;
  /**
   * The tightest latency SLA (ms) of the operation's declared consumers: a cold start slower
   * than it is a detection by itself (without one, the pattern matcher's cold-start latency).
   * Used when the engine builds its pattern matcher.
   */
  readonly coldStartLimitOf?: (operation: string) => number | undefined;
  /** Told once when a bounded map is full (operations or dependencies beyond the limits). */
  readonly onOverflow?: (what: string, capacity: number) => void;
}

const SLO_SEVERITY = { INFO: 'INFO', WARNING: 'WARN', CRITICAL: 'ERROR' } as const;

/**
 * The per-operation parts of the components (which keep them for good), gathered so that a span
 * costs one lookup instead of one per component, plus the spans' rolling `svc.baseline.*`
 * (baselines.source rolling), refreshed once per second of the clock.
 */
interface OperationState {
  readonly window: RollingWindow | undefined;
  readonly normal: LearnedNormal | undefined;
  readonly run: AnomalyRun | undefined;
  readonly recent: OperationWindow | undefined;
  readonly history: MinuteHistory | undefined;
  /**
   * The clock second (since the epoch) the attributes were taken in. On 64-bit Node without pointer
   * compression (the default build) that is a small integer until 2038, where epoch ms would be a
   * heap box read per span; elsewhere it is a box again, which costs only that read.
   */
  attributesSecond: number;
  /** `svc.baseline.*` from the rolling snapshot (baselines.source rolling). */
  attributes: Attributes | undefined;
  /**
   * The cold start as judged against the baseline p99 `settledColdStartP99` (NaN: not yet), once
   * the process was past its cold-start window, after which the cold-start record no longer changes.
   */
  settledColdStart: ColdStart | undefined;
  settledColdStartP99: number;
}

/**
 * What a detection says, for listeners such as the incident tracker: the patterns that hold at
 * a span. `zScore` and `anomalyScore` are that span's own (when it is anomalous), for display:
 * they never make a detection.
 */
export interface Detection {
  readonly operation: string;
  readonly latencyMs: number;
  readonly isError: boolean;
  readonly zScore: number | undefined;
  /** The operation's deviation from its normal on the spec's scale (min(1, |z| / 4)), over the horizon that showed it. */
  readonly anomalyScore: number | undefined;
  readonly patterns: readonly IncidentPattern[];
  /** Most requests are failing: an outage, whatever the configuration. */
  readonly outage: boolean;
  /** When the evidence began (the onset of the earliest verdict holding), epoch ms. */
  readonly onsetMs: number;
  /** When each window pattern's evidence began: latency_degradation's and error_rate_spike's (NaN when not holding). */
  readonly latencyOnsetMs: number;
  readonly errorsOnsetMs: number;
  readonly timestamp: number;
}

export class AnalysisEngine implements AnalysisReads {
  /** The engine's clock; its components share one read of it per span. */
  readonly clock: SpanClock;
  readonly rollingBaselines: RollingBaselineProvider;
  /** What each operation's latency and error rate normally are, learned over hours. */
  readonly normals: NormalMemory;
  readonly staticBaselines: BaselineProvider;
  readonly baselines: BaselineProvider;
  readonly patternMatcher: PatternMatcher;
  readonly sloTracker: SloTracker;
  readonly health: HealthAggregator;
  readonly dependencyHealth: DependencyHealth;
  readonly circuitBreakers: CircuitBreakers;
  readonly changes: ChangeTracker;
  readonly anomalyDetector: AnomalyDetector;
  readonly errorCategories: ErrorCategories;
  private readonly serviceNameOf: () => string;
  private readonly emit: EmitEvent;
  private readonly anomalyEnabled: boolean;
  private readonly eventIntervalMs: number;
  /** Which baseline spans carry: static ones from configuration or rolling ones learned here. */
  readonly baselineSource: 'static' | 'rolling';
  private readonly operations: BoundedMap<string, OperationState>;
  private readonly configuredOf: (operation: string) => ConfiguredFigures;
  private readonly lastEvent: BoundedMap<string, { at: number; suppressed: number }>;
  private readonly detectionListeners: ((detection: Detection) => void)[] = [];
  private readonly sloAlertListeners: ((alert: SloAlert) => void)[] = [];
  private readonly observers = new Set<(operation: string, latencyMs: number, isError: boolean) => void>();

  constructor(options: AnalysisEngineOptions = {}) {
    const clock = options.clock ?? systemClock;
    this.clock = clock instanceof SpanClock ? clock : new SpanClock(clock);
    this.changes = options.changes ?? new ChangeTracker(this.clock);
    // Dependency and breaker state changes are changes too: incident context ranks them as causes.
    this.emit = recordingStateChanges(options.emit ?? (() => {}), this.changes);
    const name = options.serviceName ?? 'unknown_service:node';
    this.serviceNameOf = typeof name === 'function' ? name : () => name;
    const maxOperations = options.maxOperations ?? 1000;
    const overflow = (what: string) => (capacity: number) => options.onOverflow?.(what, capacity);
    this.rollingBaselines = options.rollingBaselines ?? new RollingBaselineProvider(1000, 10, maxOperations, overflow('operations'));
    const provided = options.staticBaselines;
    this.staticBaselines = provided === undefined ? new StaticBaselineProvider(new Map()) : 'getBaseline' in provided ? provided : new StaticBaselineProvider(provided);
    this.baselineSource = options.baselineSource ?? 'static';
    const chain = this.baselineSource === 'rolling' ? [this.rollingBaselines, this.staticBaselines] : [this.staticBaselines, this.rollingBaselines];
    // No default baseline at the end: the spec's chain, for getBaseline; what is judged is baselinesOf (configured figures, else the learned normal).
    this.baselines = new CompositeBaselineProvider(chain);
    this.configuredOf = options.configuredOf ?? ((operation) => figuresOf(this.staticBaselines.getBaseline(operation)));
    const processStartMs = this.clock.now();
    const normalsFor = (matcher: { longestHorizonMs: number; learnFromMs: number }) =>
      new NormalMemory({
        clock: this.clock,
        horizonMs: options.normalHorizonMs,
        acceptAfterMs: options.acceptAfterMs,
        minSamples: this.rollingBaselines.minSamples,
        longestHorizonMs: matcher.longestHorizonMs,
        learnFromMs: matcher.learnFromMs,
        maxOperations,
      });
    if (options.patternMatcher) {
      this.patternMatcher = options.patternMatcher;
      this.normals = options.normals ?? this.patternMatcher.normals ?? normalsFor(this.patternMatcher);
      this.patternMatcher.judgeAgainst(this.normals);
    } else {
      this.normals = options.normals ?? normalsFor({ longestHorizonMs: DEFAULT_PATTERN_THRESHOLDS.windowMs, learnFromMs: processStartMs + DEFAULT_PATTERN_THRESHOLDS.warmUpMs });
      this.patternMatcher = new PatternMatcher({
        clock: this.clock,
        configuredOf: this.configuredOf,
        learnedFirst: this.baselineSource === 'rolling',
        normals: this.normals,
        processStartMs,
        maxOperations,
        coldStartLimitOf: options.coldStartLimitOf,
      });
    }
    this.sloTracker = options.sloTracker ?? new SloTracker(this.clock);
    this.dependencyHealth = options.dependencyHealth ?? new DependencyHealth({ clock: this.clock, emit: this.emit, onRecovery: () => this.patternMatcher.recordRecovery() });
    this.circuitBreakers = options.circuitBreakers ?? new CircuitBreakers(this.emit, () => this.clock.now());
    this.health = new HealthAggregator(this.rollingBaselines, this.sloTracker, {
      clock: this.clock,
      dependencyHealth: this.dependencyHealth,
      baselinesOf: (operation) => this.baselinesOf(operation),
      circuitBreakers: this.circuitBreakers,
      isWarmingUp: () => this.patternMatcher.isWarmingUp(),
      criticalityOf: options.criticalityOf ?? (() => undefined),
      historyMinutes: options.historyMinutes,
      recentMinutes: options.healthRecentMinutes,
      maxOperations,
      onOverflow: overflow('operation history'),
    });
    const anomaly = options.anomalyDetection ?? {};
    this.anomalyEnabled = anomaly.enabled ?? true;
    this.eventIntervalMs = anomaly.eventIntervalMs ?? 60_000;
    this.anomalyDetector = new AnomalyDetector({
      threshold: anomaly.threshold,
      persistence: anomaly.persistence,
      persistenceMs: anomaly.persistenceMs,
      minLatencyDeviationMs: anomaly.minLatencyDeviationMs,
      maxOperations,
    });
    this.errorCategories = new ErrorCategories(maxOperations);
    this.operations = new BoundedMap(
      maxOperations,
      (operation): OperationState => ({
        window: this.rollingBaselines.windowFor(operation),
        normal: this.normals.normalFor(operation),
        run: this.anomalyEnabled ? this.anomalyDetector.runFor(operation) : undefined,
        recent: this.anomalyEnabled ? this.patternMatcher.recentFor(operation) : undefined,
        history: this.health.historyFor(operation),
        attributesSecond: -1,
        attributes: undefined,
        settledColdStart: undefined,
        settledColdStartP99: Number.NaN,
      }),
    );
    this.lastEvent = new BoundedMap(maxOperations * 4, () => ({ at: Number.NEGATIVE_INFINITY, suppressed: 0 }));
  }

  /** Called for every detection (a pattern holding at a span), before its event is rate-limited. */
  onDetection(listener: (detection: Detection) => void): void {
    this.detectionListeners.push(listener);
  }

  /** Called for every operation observation until the returned function is called (keep it short-lived). */
  onObservation(observer: (operation: string, latencyMs: number, isError: boolean) => void): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Called for every SLO budget alert (each tier once per crossing). */
  onSloAlert(listener: (alert: SloAlert) => void): void {
    this.sloAlertListeners.push(listener);
  }

  /** `requestException`: an exception event of the same request found on another of its spans (the span processor's). */
  observeOperation(span: Span, operation: { readonly name: string }, latencyMs: number, isError: boolean, requestException?: TimedEvent): void {
    if (isError) this.errorCategories.record(operation.name, span.attributes, span.events, requestException);
    this.observe(operation.name, latencyMs, isError, span);
  }

  /** The analysis of one operation observation; `span` receives the attributes when given. */
  observe(operation: string, latencyMs: number, isError: boolean, span?: Span): void {
    this.clock.hold();
    try {
      this.analyse(operation, latencyMs, isError, span);
    } finally {
      this.clock.release();
    }
  }

  private analyse(operation: string, latencyMs: number, isError: boolean, span: Span | undefined): void {
    if (this.observers.size) for (const observer of this.observers) observer(operation, latencyMs, isError);
    const state = this.stateOf(operation);
    if (!state) {
      this.analyseUntracked(operation, latencyMs, isError, span);
      return;
    }
    const { window } = state;
    const log = logLatency(latencyMs);
    const now = this.clock.now();
    state.normal?.add(now, log, isError);
    if (this.anomalyEnabled) {
      const anomaly = this.anomalyDetector.checkRun(state.run, latencyMs, this.rollingBaselines.isBaseline(window) ? window : undefined, now);
      // No rolling snapshot: the matcher judges against the learned normal (a snapshot a second would be an object that outlives young collections).
      const patterns = this.patternMatcher.detectPatternsWith(state.recent, state.normal, operation, latencyMs, isError, undefined, log);
      if (anomaly || patterns.length) {
        if (span) {
          if (anomaly) span.setAttributes({ [ANOMALY.detected]: true, [ANOMALY.score]: anomaly.score, [ANOMALY.latencyZScore]: anomaly.zScore });
          if (patterns.length) span.setAttributes({ [ANOMALY.detected]: true, [ANOMALY.pattern]: patterns.join(',') });
        }
        if (patterns.length) this.detected(operation, latencyMs, isError, anomaly, patterns, state.recent!);
        else if (anomaly!.sustained) this.emitAnomaly(operation, latencyMs, anomaly, undefined);
      }
    }
    if (state.attributes) span?.setAttributes(state.attributes);
    window?.add(latencyMs, isError, log);
    state.history?.add(now, latencyMs, isError, log);
    this.recordSlos(operation, latencyMs, isError, span);
  }

  /** Beyond `maxOperations`: the components count the overflow (their maps are as full); the request rate and SLOs still count. */
  private analyseUntracked(operation: string, latencyMs: number, isError: boolean, span: Span | undefined): void {
    this.rollingBaselines.record(operation, latencyMs, isError);
    this.health.recordSpan(operation, latencyMs, isError);
    if (this.anomalyEnabled) this.patternMatcher.recordRequest();
    this.recordSlos(operation, latencyMs, isError, span);
  }

  private recordSlos(operation: string, latencyMs: number, isError: boolean, span: Span | undefined): void {
    if (this.sloTracker.hasSlo(operation)) {
      // svc.slo.* go on the spans that spend error budget, the ones an agent looks at for it.
      const spent = this.sloTracker.record(operation, latencyMs, isError);
      if (spent !== undefined && span) {
        const budget = this.sloTracker.budgetOf(spent)!;
        span.setAttributes({ [SLO.name]: spent, [SLO.target]: budget.target, [SLO.budgetRemaining]: budget.budgetRemaining, [SLO.burnRate]: budget.burnRate });
      }
      for (const alert of this.sloTracker.checkAlerts()) this.emitSloAlert(alert);
    }
  }

  observeDependency(dependency: string, latencyMs: number, isError: boolean): void {
    this.clock.hold();
    try {
      if (isError) this.patternMatcher.recordDependencyError(dependency);
      this.health.recordDependencyCall(dependency, latencyMs, isError);
    } finally {
      this.clock.release();
    }
  }

  get serviceName(): string {
    return this.serviceNameOf();
  }

  /** With `fleet`, operations and SLOs are the fleet's (src/fleet). */
  healthSummary(fleet?: FleetFigures): HealthSummary {
    return this.health.getHealthSummary(this.serviceNameOf(), fleet);
  }

  now(): number {
    return this.clock.now();
  }

  get recentMinutes(): number {
    return this.health.recentMinutes;
  }

  get dependencyWindowMs(): number {
    return this.dependencyHealth.windowMs;
  }

  get minNormalSamples(): number {
    return this.normals.rules.minSamples;
  }

  operationHealth(operation: string, fleet?: FleetFigures): OperationHealth | undefined {
    return this.health.getOperationHealth(operation, fleet);
  }

  operationNames(): readonly string[] {
    return this.health.operations();
  }

  historyFor(operation: string): MinuteHistory | undefined {
    return this.health.historyFor(operation);
  }

  sloStatuses(): SloStatus[] {
    return this.sloTracker.statuses();
  }

  hasSlo(operation: string): boolean {
    return this.sloTracker.hasSlo(operation);
  }

  sloBudgetCurve(name: string, points: number): { start: number; budgetRemaining: number }[] {
    return this.sloTracker.budgetCurve(name, points);
  }

  circuitBreakerStatuses(): CircuitBreakerStatus[] {
    return this.circuitBreakers.statuses();
  }

  dependencyStatuses(): DependencyStatus[] {
    return this.dependencyHealth.statuses();
  }

  errorCategoriesOf(operation: string): ErrorCategoryCount[] {
    return this.errorCategories.of(operation);
  }

  lastDeployment(): ChangeEntry | undefined {
    return this.changes.lastDeployment();
  }

  /**
   * Samples the process's memory for the memory-leak pattern every `intervalMs`; returns a stop
   * function. The sample is V8's used heap plus its external memory (Buffers, ArrayBuffers and
   * other off-heap memory V8 is told of): what `process.memoryUsage()` reports as heapUsed +
   * external, read without the RSS system call that `memoryUsage()` makes. Not RSS: it keeps
   * pages freed by the garbage collector and grows with code and allocator fragmentation.
   */
  startHeapSampling(intervalMs: number, memoryUsed: () => number = processMemoryUsed): () => void {
    const timer = setInterval(
      () => {
        try {
          this.patternMatcher.recordMemorySample(memoryUsed());
        } catch (error) {
          reportError('heap sampling', error);
        }
      },
      Math.max(1000, intervalMs),
    );
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * The operation's cold start, if a fresh process's first requests were markedly slower than
   * its baseline p99 (the static one when configured, else the rolling one).
   */
  coldStartOf(operation: string): ColdStart | undefined {
    return this.baselinesOf(operation).coldStart;
  }

  /**
   * What the operation is judged against, figure by figure (configured where set, else its learned
   * normal), with its cold start (against that p99) and its current deviation from normal: what
   * every tool quotes. From the operation's one record and the configuration's entry.
   */
  baselinesOf(operation: string): OperationBaselines {
    const state = this.operations.get(operation);
    // A normal restored from the store exists before the operation's first request in this process.
    const normal = state?.normal ?? this.normals.normalOf(operation);
    const baseline = new OperationBaseline(this.configuredOf(operation), this.normals.referenceOf(normal), this.normals.stateOf(normal), this.baselineSource === 'rolling');
    return new OperationBaselines(baseline, state && this.judgedColdStart(state, baseline.latencyP99Ms), state?.recent && deviationOf(state.recent, this.patternMatcher, operation));
  }

  /** The operation's current deviation from normal (verdicts holding and forming), if any. */
  deviationNow(operation: string): OperationDeviation | undefined {
    return this.baselinesOf(operation).deviation;
  }

  /**
   * Since when the operation's traffic right before `atMs` was normal (no fault), back to the last
   * fault this process saw; undefined when it was not (learned-normal.ts).
   */
  normalSince(operation: string, atMs: number): number | undefined {
    return (this.operations.get(operation)?.normal ?? this.normals.normalOf(operation))?.normalSince(atMs);
  }

  /** Forgets what the operation learned (rolling window and normal): an agent's reset_baseline. */
  resetBaseline(operation: string): boolean {
    const known = this.rollingBaselines.reset(operation);
    return this.normals.reset(operation) || known;
  }

  /**
   * The operation's cold start against `p99`, judged again only when the p99 changed once the
   * process is past its cold-start window: each health read asks for every operation's, and
   * reaching its record costs more than the rest of the operation's baselines.
   */
  private judgedColdStart(state: OperationState, p99: number | undefined): ColdStart | undefined {
    if (p99 === state.settledColdStartP99) return state.settledColdStart;
    const coldStart = this.patternMatcher.coldStartIn(state.recent, p99);
    if (p99 !== undefined && !this.patternMatcher.isWarmingUp()) {
      state.settledColdStart = coldStart && Object.freeze(coldStart);
      state.settledColdStartP99 = p99;
    }
    return coldStart;
  }

  /** The operation's state (with its rolling span attributes at most a second old); undefined beyond `maxOperations`. */
  private stateOf(operation: string): OperationState | undefined {
    const state = this.operations.getOrCreate(operation);
    if (this.baselineSource !== 'rolling' || !state) return state;
    const second = Math.floor(this.clock.now() / 1000);
    if (state.attributesSecond !== second) {
      state.attributesSecond = second;
      const snapshot = this.rollingBaselines.getSnapshot(operation);
      state.attributes = snapshot
        ? Object.freeze({ [BASELINE.latencyP50Ms]: snapshot.p50, [BASELINE.latencyP99Ms]: snapshot.p99, [BASELINE.errorRate]: snapshot.errorRate, [BASELINE.source]: 'rolling' })
        : undefined;
    }
    return state;
  }

  private detected(
    operation: string,
    latencyMs: number,
    isError: boolean,
    anomaly: { zScore: number; score: number } | undefined,
    patterns: readonly IncidentPattern[],
    window: OperationWindow,
  ): void {
    const now = this.clock.now();
    const onset = Math.min(onsetOf(window.degraded), onsetOf(window.failing), onsetOf(window.outage));
    const detection: Detection = {
      operation,
      latencyMs,
      isError,
      zScore: anomaly?.zScore,
      anomalyScore: window.deviates ? window.score : anomaly?.score,
      patterns,
      outage: window.outage.holds,
      onsetMs: Number.isFinite(onset) ? onset : now,
      latencyOnsetMs: window.degraded.onsetMs,
      errorsOnsetMs: Math.min(onsetOf(window.failing), onsetOf(window.outage)),
      timestamp: now,
    };
    for (const listener of this.detectionListeners) listener(detection);
    for (const pattern of patterns) this.emitAnomaly(operation, latencyMs, anomaly, pattern);
  }

  /** `svc.anomaly.detected`, at most one per operation and pattern (the z-score counts as one) per event interval. */
  private emitAnomaly(operation: string, latencyMs: number, anomaly: { zScore: number; score: number } | undefined, pattern: IncidentPattern | undefined): void {
    const now = this.clock.now();
    const last = this.lastEvent.getOrCreate(`${operation}\u0000${pattern ?? 'z_score'}`);
    if (!last) return; // more operation/pattern pairs than tracked: counted by the map, not emitted unthrottled
    if (now - last.at < this.eventIntervalMs) {
      last.suppressed++;
      return;
    }
    const body: Record<string, string | number> = { operation, latency_ms: latencyMs };
    if (anomaly) Object.assign(body, { anomaly_score: anomaly.score, z_score: anomaly.zScore });
    if (pattern) Object.assign(body, { pattern, pattern_description: PATTERN_DESCRIPTIONS[pattern] });
    if (last.suppressed) body.suppressed_count = last.suppressed;
    last.at = now;
    last.suppressed = 0;
    this.emit('svc.anomaly.detected', 'WARN', body);
  }

  private emitSloAlert(alert: SloAlert): void {
    for (const listener of this.sloAlertListeners) listener(alert);
    this.emit('svc.slo.budget_alert', SLO_SEVERITY[alert.severity], {
      slo_name: alert.sloName,
      severity: alert.severity,
      budget_remaining: alert.budgetRemaining,
      burn_rate: alert.burnRate,
    });
  }
}

const onsetOf = (verdict: { holds: boolean; onsetMs: number }): number => (verdict.holds ? verdict.onsetMs : Number.POSITIVE_INFINITY);

/** V8's used heap plus its external memory (Buffers, ArrayBuffers), in bytes. */
export function processMemoryUsed(): number {
  const heap = getHeapStatistics();
  return heap.used_heap_size + heap.external_memory;
}
