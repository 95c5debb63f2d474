/**
 * The spec's Pattern matcher: one facade over the six incident-pattern detectors of
 * ./patterns/ (one file each, one interface: PatternDetector). Every window is a duration with a
 * minimum sample count, so a verdict means the same at 1 req/s and at 2000 req/s
 * (docs/analysis.md, "Incident patterns").
 *
 * Per span, O(1): the operation's time-bucketed window takes the observation (its verdicts are
 * recomputed only when a bucket closes), the service's request-rate ring counts it, and each
 * detector reads cached state. The memory trend is fitted when a memory slot closes, the herd
 * rate read only while a recovery is recent, the cascade count only for failing spans.
 *
 * The three constructor numbers are the spec's three parameters: latency degradation factor,
 * error rate spike threshold and cascade dependency count.
 */
import type { BaselineProvider, BaselineSnapshot } from './baseline.js';
import { BoundedMap } from './bounded-map.js';
import { type Clock, systemClock } from './clock.js';
import { logLatency } from './log-latency.js';
import { CascadeFailureDetector } from './patterns/cascade-failure.js';
import { type ColdStart, ColdStartDetector } from './patterns/cold-start.js';
import { ErrorRateSpikeDetector } from './patterns/error-rate-spike.js';
import { LatencyDegradationDetector } from './patterns/latency-degradation.js';
import { MemoryLeakDetector, type MemoryTrend } from './patterns/memory-leak.js';
import { OperationWindow, type WindowReference, type WindowRules, type WindowThresholds } from './patterns/operation-window.js';
import { INCIDENT_PATTERNS, type IncidentPattern, PATTERN_DESCRIPTIONS, type PatternContext, type PatternDetector } from './patterns/pattern-detector.js';
import { ThunderingHerdDetector } from './patterns/thundering-herd.js';

export { type ColdStart, INCIDENT_PATTERNS, type IncidentPattern, type MemoryTrend, OperationWindow, PATTERN_DESCRIPTIONS, type PatternDetector };

export interface PatternThresholds {
  /** The detection window of latency_degradation, error_rate_spike and memory_leak's slowness (6 buckets). */
  readonly windowMs: number;
  /** Requests the window must hold before a verdict. */
  readonly minWindowSamples: number;
  /** How long the operation's own reference (used without a static baseline) remembers. */
  readonly referenceMs: number;
  /** Slower by less than this (ms) is jitter, not a degradation. */
  readonly minLatencyDeviationMs: number;
  readonly cascadeWindowMs: number;
  readonly memorySlotMs: number;
  readonly memoryLeakSlopeBytesPerMinute: number;
  readonly memoryLeakMinSlots: number;
  readonly memoryLeakMinR2: number;
  readonly memoryLeakLatencyFactor: number;
  readonly herdWindowMs: number;
  readonly herdRecentMs: number;
  readonly herdRateMultiplier: number;
  readonly herdMinRequests: number;
  readonly coldStartWindowMs: number;
  readonly coldStartFactor: number;
  readonly coldStartLatencyMs: number;
}

export const DEFAULT_PATTERN_THRESHOLDS: PatternThresholds = {
  windowMs: 30_000,
  minWindowSamples: 10,
  referenceMs: 30 * 60_000,
  minLatencyDeviationMs: 1,
  cascadeWindowMs: 60_000,
  memorySlotMs: 10_000,
  memoryLeakSlopeBytesPerMinute: 1024 * 1024,
  memoryLeakMinSlots: 12,
  memoryLeakMinR2: 0.8,
  memoryLeakLatencyFactor: 1.2,
  herdWindowMs: 60_000,
  herdRecentMs: 5_000,
  herdRateMultiplier: 3,
  herdMinRequests: 20,
  coldStartWindowMs: 30_000,
  coldStartFactor: 3,
  coldStartLatencyMs: 500,
};

export const WINDOW_BUCKETS = 6;
const MEMORY_SLOTS = 12;

export interface PatternMatcherOptions {
  readonly clock?: Clock;
  readonly thresholds?: Partial<PatternThresholds>;
  /** Static baselines: the reference of latency and error rate when configured. */
  readonly staticBaselines?: BaselineProvider;
  /** The process start; default: when the matcher is built. */
  readonly processStartMs?: number;
  readonly maxOperations?: number;
  readonly maxDependencies?: number;
  /**
   * Whether an operation's error rate is watched (rule 9: an expected-error-rate of -1 means no
   * error-rate anomaly detection for it). Default: every operation.
   */
  readonly watchesErrorRate?: (operation: string) => boolean;
  /** The tightest latency SLA of the operation's declared consumers: a cold start above it is a detection. */
  readonly coldStartLimitOf?: (operation: string) => number | undefined;
}

const NO_PATTERNS: readonly IncidentPattern[] = Object.freeze([]);

export class PatternMatcher {
  readonly thresholds: PatternThresholds;
  readonly cascade: CascadeFailureDetector;
  readonly memoryLeak: MemoryLeakDetector;
  readonly herd: ThunderingHerdDetector;
  readonly coldStart: ColdStartDetector;
  /** In the order their patterns are listed. */
  readonly detectors: readonly PatternDetector[];
  private readonly clock: Clock;
  private readonly operations: BoundedMap<string, OperationWindow>;
  private readonly windowThresholds: WindowThresholds;
  private readonly reference: WindowReference = { p50Ms: undefined, errorRate: undefined };
  private readonly context: PatternContext;

  constructor(
    readonly latencyDegradationFactor = 2,
    readonly errorRateSpikeThreshold = 0.25,
    readonly cascadeDependencyCount = 2,
    private readonly options: PatternMatcherOptions = {},
  ) {
    const t = (this.thresholds = { ...DEFAULT_PATTERN_THRESHOLDS, ...options.thresholds });
    this.clock = options.clock ?? systemClock;
    const processStartMs = options.processStartMs ?? this.clock.now();
    const rules: WindowRules = {
      bucketMs: Math.max(1, t.windowMs / WINDOW_BUCKETS),
      buckets: WINDOW_BUCKETS,
      minSamples: t.minWindowSamples,
      referenceMs: t.referenceMs,
      learnFromMs: processStartMs + t.coldStartWindowMs,
    };
    this.windowThresholds = {
      degradationFactor: latencyDegradationFactor,
      slowFactor: t.memoryLeakLatencyFactor,
      minLatencyDeviationMs: t.minLatencyDeviationMs,
      errorRateExcess: errorRateSpikeThreshold,
    };
    this.operations = new BoundedMap(options.maxOperations ?? 1000, () => new OperationWindow(rules));
    this.cascade = new CascadeFailureDetector({ dependencyCount: cascadeDependencyCount, windowMs: t.cascadeWindowMs, maxDependencies: options.maxDependencies ?? 200 });
    this.memoryLeak = new MemoryLeakDetector({
      slotMs: t.memorySlotMs,
      slots: MEMORY_SLOTS,
      minSlots: t.memoryLeakMinSlots,
      slopeBytesPerMinute: t.memoryLeakSlopeBytesPerMinute,
      minR2: t.memoryLeakMinR2,
    });
    this.herd = new ThunderingHerdDetector({ windowMs: t.herdWindowMs, recentMs: t.herdRecentMs, rateMultiplier: t.herdRateMultiplier, minRequests: t.herdMinRequests });
    this.coldStart = new ColdStartDetector({
      processStartMs,
      windowMs: t.coldStartWindowMs,
      factor: t.coldStartFactor,
      latencyMs: t.coldStartLatencyMs,
      minLatencyDeviationMs: t.minLatencyDeviationMs,
      limitOf: options.coldStartLimitOf,
    });
    this.detectors = [this.cascade, this.memoryLeak, this.herd, this.coldStart, new ErrorRateSpikeDetector(options.watchesErrorRate), new LatencyDegradationDetector()];
    this.context = { operation: '', window: undefined as unknown as OperationWindow, latencyMs: 0, isError: false, nowMs: 0, cold: false };
  }

  /** The operation's window, created on first use (undefined beyond the cap), for callers that keep it. */
  recentFor(operation: string): OperationWindow | undefined {
    return this.operations.getOrCreate(operation);
  }

  /** Feeds an observation without detection (request rate only: the operation is beyond the cap or not analysed). */
  recordLatency(_operation: string, _latencyMs: number): void {
    this.herd.rate.add(this.clock.now());
  }

  recordDependencyError(dependency: string): void {
    this.cascade.recordDependencyError(dependency, this.clock.now());
  }

  /** A dependency or the service came back: a herd may follow. */
  recordRecovery(): void {
    this.herd.recordRecovery(this.clock.now());
  }

  /** A sample of the process's memory in bytes (the engine samples heap used + external). */
  recordMemorySample(bytes: number): void {
    this.memoryLeak.recordSample(bytes, this.clock.now());
  }

  /** @deprecated name: `recordMemorySample`. */
  recordHeapSample(bytes: number): void {
    this.recordMemorySample(bytes);
  }

  /** The memory floor's trend (slope per minute, R^2), as the playbooks' `heap.*` read it. */
  heapTrend(): MemoryTrend {
    return this.memoryLeak.memoryTrend();
  }

  /** Whether the process is still in its cold-start window (`patterns.cold-start-window`). */
  isWarmingUp(): boolean {
    return this.coldStart.isCold(this.clock.now());
  }

  /** The cold start recorded in an operation's window (`recentFor`) against `baselineP99Ms`, if its first requests were markedly slower. */
  coldStartIn(window: OperationWindow | undefined, baselineP99Ms: number | undefined): ColdStart | undefined {
    return this.coldStart.coldStartOf(window, baselineP99Ms);
  }

  /** Records the observation, then returns the patterns that hold at it. */
  detectPatterns(operation: string, latencyMs: number, isError: boolean, snapshot: BaselineSnapshot | undefined): readonly IncidentPattern[] {
    return this.detectPatternsWith(this.recentFor(operation), operation, latencyMs, isError, snapshot);
  }

  /** `detectPatterns` with the operation's `recentFor(operation)` at hand; `log` is `logLatency(latencyMs)`, for callers that have it already. */
  detectPatternsWith(
    window: OperationWindow | undefined,
    operation: string,
    latencyMs: number,
    isError: boolean,
    snapshot: BaselineSnapshot | undefined,
    log = logLatency(latencyMs),
  ): readonly IncidentPattern[] {
    const now = this.clock.now();
    this.herd.rate.add(now);
    if (!window) return NO_PATTERNS;
    if (window.add(now, log, isError)) this.judge(window, operation, snapshot);
    const context = this.context;
    context.operation = operation;
    context.window = window;
    context.latencyMs = latencyMs;
    context.isError = isError;
    context.nowMs = now;
    context.cold = this.coldStart.isCold(now);
    let found: IncidentPattern[] | undefined;
    const detectors = this.detectors;
    for (let i = 0; i < detectors.length; i++) {
      const detector = detectors[i]!;
      if (detector.detect(context)) (found ??= []).push(detector.pattern);
    }
    return found ?? NO_PATTERNS;
  }

  /**
   * A bucket closed: the window's verdicts against the reference, which is the static baseline
   * when configured, else the operation's own past (from before the window), else the rolling
   * snapshot (which includes the window, so it never makes a verdict by itself).
   */
  private judge(window: OperationWindow, operation: string, snapshot: BaselineSnapshot | undefined): void {
    const configured = this.options.staticBaselines?.getBaseline(operation);
    const reference = this.reference;
    reference.p50Ms = configured?.latencyP50Ms ?? window.referenceP50Ms() ?? snapshot?.p50;
    reference.errorRate = configured?.errorRate ?? window.referenceErrorRate() ?? snapshot?.errorRate;
    const wasFailing = window.failing;
    window.judge(reference, this.windowThresholds);
    if (wasFailing && !window.failing) this.herd.recordRecovery(this.clock.now());
  }
}
