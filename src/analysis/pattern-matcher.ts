/**
 * The spec's Pattern matcher: one facade over the six incident-pattern detectors of
 * ./patterns/ (one file each, one interface: PatternDetector). Every window is a duration with a
 * minimum sample count, so a verdict means the same at 1 req/s and at 2000 req/s
 * (docs/analysis.md, "Incident patterns").
 *
 * Per span, O(1): the operation's window of one-second buckets takes the observation (its
 * verdicts are recomputed only when a bucket closes, over a ladder of horizons, against the
 * operation's configured figures and its learned normal), the service's request-rate ring counts
 * it, and each detector reads cached state. The memory trend is fitted when a memory slot closes,
 * the herd rate read only while a recovery is recent, the cascade count only for failing spans.
 * When a verdict that deviates from normal holds, the operation's normal is told, so it does not
 * learn the fault.
 *
 * The three constructor numbers are the spec's three parameters: latency degradation factor,
 * error rate spike threshold and cascade dependency count.
 */
import { type BaselineSnapshot, type ConfiguredFigures, NOTHING_CONFIGURED } from './baseline.js';
import { BoundedMap } from './bounded-map.js';
import { type Clock, systemClock } from './clock.js';
import type { LearnedNormal, NormalReference } from './learned-normal.js';
import { logLatency } from './log-latency.js';
import type { NormalMemory } from './normal-memory.js';
import { ERROR_RATE_FLOOR } from './operation-baseline.js';
import { CascadeFailureDetector } from './patterns/cascade-failure.js';
import { type ColdStart, ColdStartDetector } from './patterns/cold-start.js';
import { ErrorRateSpikeDetector } from './patterns/error-rate-spike.js';
import { LatencyDegradationDetector } from './patterns/latency-degradation.js';
import { MemoryLeakDetector, type MemoryTrend } from './patterns/memory-leak.js';
import { OperationWindow, type Verdict, type WindowReference, type WindowRules, type WindowThresholds } from './patterns/operation-window.js';
import { INCIDENT_PATTERNS, type IncidentPattern, PATTERN_DESCRIPTIONS, type PatternContext, type PatternDetector } from './patterns/pattern-detector.js';
import { ThunderingHerdDetector } from './patterns/thundering-herd.js';

export { type ColdStart, INCIDENT_PATTERNS, type IncidentPattern, type MemoryTrend, OperationWindow, PATTERN_DESCRIPTIONS, type PatternDetector };

export interface PatternThresholds {
  /** The longest detection horizon of latency_degradation, error_rate_spike and memory_leak's slowness (the ladder doubles from 3 s up to it). */
  readonly windowMs: number;
  /** Requests a horizon must hold before a verdict. */
  readonly minWindowSamples: number;
  /** How unlikely by chance a deviation over a horizon must be (n x KL divergence, nats: 21 is below 1e-9). */
  readonly minSurprise: number;
  /** The normal error rate is taken as at least this when judging a rise (one error against a clean history is no spike). */
  readonly errorRateFloor: number;
  /** This share of requests failing is an outage, whatever the configuration. */
  readonly outageErrorRate: number;
  /** How long after a deviating verdict ends the normal still does not learn (a fault that flickers stays out). */
  readonly settleMs: number;
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
  /** A fresh process's first seconds (at most the cold-start window): never learned, no latency verdict. */
  readonly warmUpMs: number;
  readonly coldStartFactor: number;
  readonly coldStartLatencyMs: number;
}

export const DEFAULT_PATTERN_THRESHOLDS: PatternThresholds = {
  windowMs: 96_000,
  minWindowSamples: 10,
  minSurprise: 21,
  errorRateFloor: ERROR_RATE_FLOOR,
  outageErrorRate: 0.5,
  settleMs: 30_000,
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
  warmUpMs: 10_000,
  coldStartFactor: 3,
  coldStartLatencyMs: 500,
};

const MEMORY_SLOTS = 12;
const BUCKET_MS = 1000;

/** Horizons in one-second buckets: 3, 6, 12 ... doubling up to `windowMs`. */
export function horizonsUpTo(windowMs: number): number[] {
  const horizons = [3];
  while (horizons.at(-1)! * 2 * BUCKET_MS <= windowMs) horizons.push(horizons.at(-1)! * 2);
  return horizons;
}

export interface PatternMatcherOptions {
  /** p99 above this many times its reference is latency degradation (1.5). */
  readonly latencyDegradationFactor?: number;
  /** An error rate this far above its reference is an error rate spike (0.1, ten points). */
  readonly errorRateSpikeThreshold?: number;
  /** Dependencies failing together for a cascade failure (2). */
  readonly cascadeDependencyCount?: number;
  readonly clock?: Clock;
  readonly thresholds?: Partial<PatternThresholds>;
  /** The operation's configured figures: each is the reference of its verdict where set. */
  readonly configuredOf?: (operation: string) => ConfiguredFigures;
  /** The learned normals (the reference where nothing is configured); without them, the rolling snapshot. */
  readonly normals?: NormalMemory;
  /** `baselines.source: rolling`: a learned figure wins over the configured one once the normal formed. */
  readonly learnedFirst?: boolean;
  /** The process start; default: when the matcher is built. */
  readonly processStartMs?: number;
  readonly maxOperations?: number;
  readonly maxDependencies?: number;
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
  private readonly horizons: readonly number[];
  private readonly processStartMs: number;
  private readonly windowThresholds: WindowThresholds;
  private readonly reference: WindowReference = { p50Ms: undefined, slowShare: 0, meanLog: Number.NaN, sigmaLog: Number.NaN, errorRate: undefined };
  private readonly context: PatternContext;
  private readonly readContext: PatternContext;
  /** Per verdict, the shortest and longest horizon (buckets) that showed it at the last judging: reused, as judging runs once a second per operation. */
  private readonly shortest = { degraded: 0, slow: 0, failing: 0, outage: 0 };
  private readonly longest = { degraded: 0, slow: 0, failing: 0, outage: 0 };
  /** The learned normals verdicts are judged against (see `judgeAgainst`). */
  normals: NormalMemory | undefined;

  readonly latencyDegradationFactor: number;
  readonly errorRateSpikeThreshold: number;
  readonly cascadeDependencyCount: number;
  private readonly options: PatternMatcherOptions;

  /** With options; or, as the spec lists it, with the three numbers first (then the other options). */
  constructor(options?: PatternMatcherOptions);
  constructor(latencyDegradationFactor?: number, errorRateSpikeThreshold?: number, cascadeDependencyCount?: number, options?: PatternMatcherOptions);
  constructor(first?: number | PatternMatcherOptions, spikeThreshold?: number, cascadeCount?: number, rest: PatternMatcherOptions = {}) {
    const options = (this.options = typeof first === 'object' ? first : { ...rest, latencyDegradationFactor: first, errorRateSpikeThreshold: spikeThreshold, cascadeDependencyCount: cascadeCount });
    const latencyDegradationFactor = (this.latencyDegradationFactor = options.latencyDegradationFactor ?? 1.5);
    this.errorRateSpikeThreshold = options.errorRateSpikeThreshold ?? 0.1;
    this.cascadeDependencyCount = options.cascadeDependencyCount ?? 2;
    const t = (this.thresholds = { ...DEFAULT_PATTERN_THRESHOLDS, ...options.thresholds });
    this.clock = options.clock ?? systemClock;
    const processStartMs = (this.processStartMs = options.processStartMs ?? this.clock.now());
    this.horizons = horizonsUpTo(t.windowMs);
    const rules: WindowRules = { bucketMs: BUCKET_MS, horizons: this.horizons, minSamples: t.minWindowSamples };
    this.windowThresholds = {
      degradationFactor: latencyDegradationFactor,
      slowFactor: t.memoryLeakLatencyFactor,
      minLatencyDeviationMs: t.minLatencyDeviationMs,
      errorRateExcess: this.errorRateSpikeThreshold,
      errorRateFloor: t.errorRateFloor,
      outageErrorRate: t.outageErrorRate,
      minSurprise: t.minSurprise,
    };
    this.operations = new BoundedMap(options.maxOperations ?? 1000, () => new OperationWindow(rules));
    this.cascade = new CascadeFailureDetector({ dependencyCount: this.cascadeDependencyCount, windowMs: t.cascadeWindowMs, maxDependencies: options.maxDependencies ?? 200 });
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
    this.detectors = [this.cascade, this.memoryLeak, this.herd, this.coldStart, new ErrorRateSpikeDetector(), new LatencyDegradationDetector()];
    this.context = { operation: '', window: undefined as unknown as OperationWindow, latencyMs: 0, isError: false, nowMs: 0, cold: false };
    this.readContext = { ...this.context };
    this.normals = options.normals;
  }

  /** Judges against these learned normals from now on (an engine given a matcher built without them). */
  judgeAgainst(normals: NormalMemory): void {
    this.normals = normals;
  }

  /** When the process's warm-up ends: traffic before it is never learned as normal, and makes no latency verdict. */
  get learnFromMs(): number {
    return this.processStartMs + Math.min(this.thresholds.warmUpMs, this.thresholds.coldStartWindowMs);
  }

  /** The longest detection horizon (ms): the learned normal keeps periods out of its memory at least this long. */
  get longestHorizonMs(): number {
    return this.horizons.at(-1)! * BUCKET_MS;
  }

  /** The operation's window, created on first use (undefined beyond the cap), for callers that keep it. */
  recentFor(operation: string): OperationWindow | undefined {
    return this.operations.getOrCreate(operation);
  }

  /**
   * Records an observation without detection: it counts in the operation's window and learned
   * normal, and in the request rate, as `detectPatterns` counts it, and the next detection judges it.
   */
  recordLatency(operation: string, latencyMs: number, isError = false): void {
    const now = this.clock.now();
    const log = logLatency(latencyMs);
    this.normals?.normalFor(operation)?.add(now, log, isError);
    this.herd.rate.add(now);
    const window = this.recentFor(operation);
    // Judging needs the caller's baseline snapshot, which only detectPatterns is given.
    if (window?.add(now, log, latencyMs, isError)) window.judgePending = true;
  }

  /** Counts a request in the request rate (which a thundering herd is judged by) and nowhere else: an operation the engine does not analyse. */
  recordRequest(): void {
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
    const normal = this.normals?.normalFor(operation);
    normal?.add(this.clock.now(), logLatency(latencyMs), isError);
    return this.detectPatternsWith(this.recentFor(operation), normal, operation, latencyMs, isError, snapshot);
  }

  /**
   * `detectPatterns` with the operation's window (`recentFor`) and normal (`normals.normalFor`, which
   * the caller has already given the observation) at hand; `log` is `logLatency(latencyMs)`.
   */
  detectPatternsWith(
    window: OperationWindow | undefined,
    normal: LearnedNormal | undefined,
    operation: string,
    latencyMs: number,
    isError: boolean,
    snapshot: BaselineSnapshot | undefined,
    log = logLatency(latencyMs),
  ): readonly IncidentPattern[] {
    const now = this.clock.now();
    this.herd.rate.add(now);
    if (!window) return NO_PATTERNS;
    if (window.add(now, log, latencyMs, isError) || window.judgePending) {
      window.judgePending = false;
      this.judge(window, normal, operation, snapshot, now);
    }
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

  /** The matcher's clock. */
  now(): number {
    return this.clock.now();
  }

  /**
   * The patterns that hold for the operation now, from its window's last verdicts (the cold start,
   * shown on its own, aside): what `Patterns` shows while an episode lasts.
   */
  patternsNow(window: OperationWindow, operation: string): readonly IncidentPattern[] {
    // Read for every operation by each health read: nothing allocated unless a pattern holds.
    const now = this.clock.now();
    const context = this.readContext;
    context.operation = operation;
    context.window = window;
    context.isError = window.failing.holds || window.outage.holds;
    context.nowMs = now;
    context.cold = this.coldStart.isCold(now);
    let found: IncidentPattern[] | undefined;
    for (const detector of this.detectors) if (detector !== this.coldStart && detector.detect(context)) (found ??= []).push(detector.pattern);
    return found ?? NO_PATTERNS;
  }

  /**
   * A bucket closed: the window's verdicts over each horizon, against the configured figures
   * where set and else the learned normal as it was before the horizon began (without learned
   * normals, the rolling snapshot, which includes the window and so rarely makes a verdict).
   * Horizons are judged longest first, so each reference only grows.
   */
  private judge(window: OperationWindow, normal: LearnedNormal | undefined, operation: string, snapshot: BaselineSnapshot | undefined, now: number): void {
    const configured = this.options.configuredOf?.(operation) ?? NOTHING_CONFIGURED;
    const scratch = this.normals?.scratch;
    const cold = now < this.learnFromMs;
    window.prepare();
    if (normal && scratch) normal.beginReferences(scratch);
    const end = window.closedEndMs;
    // The shortest horizon that shows a verdict says how fast it was seen; the longest, when its evidence began.
    const { shortest, longest } = this;
    for (const kind of VERDICTS) shortest[kind] = longest[kind] = 0;
    let z = 0;
    // What counts as slow comes from the oldest reference there is: one that includes the last
    // minute or two could already hold a slow change not yet found, and would hide it.
    let slowAboveMs = Number.NaN;
    const reference = this.reference;
    for (let h = this.horizons.length - 1; h >= 0; h--) {
      const buckets = this.horizons[h]!;
      const learned = normal && scratch && normal.referenceBefore(end - buckets * BUCKET_MS, scratch) ? scratch : undefined;
      this.fillReference(reference, configured, learned, snapshot, normal !== undefined);
      if (Number.isNaN(slowAboveMs) && reference.p50Ms !== undefined) slowAboveMs = this.latencyDegradationFactor * reference.p50Ms;
      const verdicts = window.judgeHorizon(buckets, reference, this.windowThresholds, cold);
      for (const kind of VERDICTS) {
        if (!verdicts[kind]) continue;
        shortest[kind] = buckets;
        longest[kind] ||= buckets;
      }
      if (verdicts.z > 0) z = verdicts.z;
    }
    window.degraded.set(shortest.degraded > 0, end - longest.degraded * BUCKET_MS, shortest.degraded * BUCKET_MS);
    window.slowVerdict.set(shortest.slow > 0, end - longest.slow * BUCKET_MS, shortest.slow * BUCKET_MS);
    window.failing.set(shortest.failing > 0, end - longest.failing * BUCKET_MS, shortest.failing * BUCKET_MS);
    window.outage.set(shortest.outage > 0, end - longest.outage * BUCKET_MS, shortest.outage * BUCKET_MS);
    window.score = window.deviates ? Math.min(1, z / 4) : 0;
    window.slowAboveMs = Number.isNaN(slowAboveMs) ? Number.POSITIVE_INFINITY : slowAboveMs;
    window.updateForming(reference.errorRate === undefined ? Number.POSITIVE_INFINITY : reference.errorRate + this.errorRateSpikeThreshold / 2);
    if (window.deviates) {
      window.deviatedAtMs = now;
      normal?.taint(Math.min(onsetOf(window.degraded), onsetOf(window.failing), onsetOf(window.outage)));
    } else if (now - window.deviatedAtMs < this.thresholds.settleMs && !normal?.acceptedAfter(window.deviatedAtMs)) normal?.taint(window.deviatedAtMs, true);
    // The end of an error spike is a recovery as soon as its newest seconds are clean, not once the
    // longest horizon is: a herd that follows it is compared with the rate from before the spike.
    const failingNow = window.recentErrorRate(RECOVERY_BUCKETS) > (reference.errorRate ?? 0) + this.errorRateSpikeThreshold / 2;
    if (!(window.failing.holds || window.outage.holds)) window.recovering = false;
    else if (failingNow) window.recovering = true;
    else if (window.recovering) {
      window.recovering = false;
      this.herd.recordRecovery(now);
    }
  }

  /** The reference of one horizon: each figure configured where set, else learned (or, without normals, the rolling snapshot). */
  private fillReference(into: WindowReference, given: ConfiguredFigures, learned: NormalReference | undefined, snapshot: BaselineSnapshot | undefined, hasNormal: boolean): void {
    const fallback = hasNormal ? undefined : snapshot;
    const configured = this.options.learnedFirst && learned ? (given.errorsUnjudged ? ERRORS_UNJUDGED : NOTHING_CONFIGURED) : given;
    const p50 = configured.latencyP50Ms ?? learned?.percentile(0.5) ?? fallback?.p50;
    into.p50Ms = p50;
    into.slowShare = p50 === undefined ? 0 : learned ? learned.shareAbove(this.latencyDegradationFactor * p50) : CONFIGURED_SLOW_SHARE;
    if (learned) {
      into.meanLog = learned.meanLog;
      into.sigmaLog = learned.sigmaLog;
    } else {
      into.meanLog = p50 === undefined ? Number.NaN : Math.log(p50);
      into.sigmaLog = p50 !== undefined && configured.latencyP99Ms !== undefined && configured.latencyP99Ms > p50 ? Math.log(configured.latencyP99Ms / p50) / P99_Z : DEFAULT_SIGMA_LOG;
    }
    into.errorRate = configured.errorsUnjudged ? undefined : (configured.errorRate ?? learned?.errorRate ?? fallback?.errorRate);
  }
}

const ERRORS_UNJUDGED: ConfiguredFigures = Object.freeze({ ...NOTHING_CONFIGURED, errorsUnjudged: true });

/** Without a learned distribution, the share of requests assumed slower than the degradation threshold. */
const CONFIGURED_SLOW_SHARE = 0.05;
/** Without a learned distribution or a configured p99, the spread of log latency assumed. */
const DEFAULT_SIGMA_LOG = 0.5;
/** The standard normal's 99th percentile: a lognormal's p99 / p50 is exp(sigma x this). */
const P99_Z = 2.326;

const onsetOf = (verdict: Verdict): number => (verdict.holds ? verdict.onsetMs : Number.POSITIVE_INFINITY);

const VERDICTS = ['degraded', 'slow', 'failing', 'outage'] as const;
/** The newest seconds whose errors tell that an error spike is over. */
const RECOVERY_BUCKETS = 3;
