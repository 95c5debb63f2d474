/**
 * The six named incident patterns, detected from live data per operation. Every check is O(1)
 * per span (the memory trend is computed when a heap sample arrives, the herd rate only while a
 * recovery is recent, the cascade count only for failing spans).
 *
 * | pattern | fires when |
 * |---|---|
 * | latency_degradation | the geometric mean of the operation's last `recentWindowSize` latencies is at least `latencyDegradationFactor` x its baseline p50, and `minLatencyDeviationMs` above it |
 * | error_rate_spike | the error rate of the last `recentWindowSize` requests exceeds the baseline error rate by `errorRateSpikeThreshold` (operations whose error rate is watched) |
 * | cascade_failure | a failing span while `cascadeDependencyCount` or more distinct dependencies failed within `cascadeWindowMs` |
 * | memory_leak | the heap grows steadily (least-squares slope >= `memoryLeakSlopeBytesPerMinute`, R^2 >= `memoryLeakMinR2` over >= `memoryLeakMinSamples` samples) and the operation is slower (`memoryLeakLatencyFactor` x baseline p50, and `minLatencyDeviationMs` above it) or failing above baseline |
 * | thundering_herd | within `herdWindowMs` after a recovery, the last 5 s carry `herdRateMultiplier` x the average 5 s request count of the minute before (and at least `herdMinRequests`) |
 * | cold_start | within `coldStartWindowMs` of process start, one of an operation's first `coldStartRequests` requests takes `coldStartFactor` x its static p50 (`coldStartLatencyMs` without one) |
 *
 * The three constructor numbers are the spec's three parameters: latency degradation factor,
 * error rate spike threshold and cascade dependency count.
 */
import type { BaselineProvider, BaselineSnapshot } from './baseline.js';
import { BoundedMap } from './bounded-map.js';
import { systemClock, type Clock } from './clock.js';
import { logLatency } from './log-latency.js';

export const INCIDENT_PATTERNS = ['cascade_failure', 'memory_leak', 'thundering_herd', 'cold_start', 'error_rate_spike', 'latency_degradation'] as const;
export type IncidentPattern = (typeof INCIDENT_PATTERNS)[number];

export const PATTERN_DESCRIPTIONS: Record<IncidentPattern, string> = {
  cascade_failure: 'Multiple dependencies are failing at once and the failures propagate to this operation',
  memory_leak: 'Heap usage grows steadily while the operation gets slower or fails more',
  thundering_herd: 'Request rate spiked right after a recovery',
  cold_start: 'High latency on the first requests of a fresh process',
  error_rate_spike: 'Sudden increase of the error rate above baseline',
  latency_degradation: 'Sustained latency elevation above baseline',
};

export interface PatternThresholds {
  readonly recentWindowSize: number;
  readonly minRecentSamples: number;
  /** Slower by less than this (ms) is jitter, not a degradation. */
  readonly minLatencyDeviationMs: number;
  readonly cascadeWindowMs: number;
  readonly memoryLeakSlopeBytesPerMinute: number;
  readonly memoryLeakMinSamples: number;
  readonly memoryLeakMinR2: number;
  readonly memoryLeakLatencyFactor: number;
  readonly herdWindowMs: number;
  readonly herdRateMultiplier: number;
  readonly herdMinRequests: number;
  readonly coldStartWindowMs: number;
  readonly coldStartRequests: number;
  readonly coldStartFactor: number;
  readonly coldStartLatencyMs: number;
}

export const DEFAULT_PATTERN_THRESHOLDS: PatternThresholds = {
  recentWindowSize: 20,
  minRecentSamples: 10,
  minLatencyDeviationMs: 1,
  cascadeWindowMs: 60_000,
  memoryLeakSlopeBytesPerMinute: 1024 * 1024,
  memoryLeakMinSamples: 6,
  memoryLeakMinR2: 0.8,
  memoryLeakLatencyFactor: 1.2,
  herdWindowMs: 60_000,
  herdRateMultiplier: 3,
  herdMinRequests: 20,
  coldStartWindowMs: 60_000,
  coldStartRequests: 5,
  coldStartFactor: 3,
  coldStartLatencyMs: 500,
};

export interface PatternMatcherOptions {
  readonly clock?: Clock;
  readonly thresholds?: Partial<PatternThresholds>;
  /** Static baselines, for cold starts (no rolling baseline exists yet in a fresh process). */
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
}

const NO_PATTERNS: readonly IncidentPattern[] = Object.freeze([]);
const HERD_RECENT_SECONDS = 5;
const RATE_SECONDS = 60;
const HEAP_SAMPLES = 30;

/**
 * The last few observations of one operation, with running sums. The log-latency sum and the
 * observations share one buffer, as in RollingWindow: one cache line fewer per span than a double
 * field (a separate heap box) and a second array.
 */
export class RecentOperation {
  /** The sum of the log latencies at 0, then per observation its log latency and 1 for an error. */
  private readonly data: Float64Array;
  private next = 0;
  size = 0;
  private errorCount = 0;
  seen = 0;
  inErrorSpike = false;

  constructor(readonly capacity: number) {
    this.data = new Float64Array(1 + 2 * capacity);
  }

  /** `log` is `logLatency(latencyMs)`, for callers that have it already. */
  add(latencyMs: number, isError: boolean, log = logLatency(latencyMs)): void {
    const data = this.data;
    const at = 1 + 2 * this.next;
    if (this.size === this.capacity) {
      data[0] -= data[at]!;
      this.errorCount -= data[at + 1]!;
    } else this.size++;
    data[at] = log;
    data[at + 1] = isError ? 1 : 0;
    data[0] += log;
    if (isError) this.errorCount++;
    this.next = this.next + 1 === this.capacity ? 0 : this.next + 1;
    this.seen++;
  }

  geometricMean(): number {
    return Math.exp(this.data[0]! / this.size);
  }

  errorRate(): number {
    return this.errorCount / this.size;
  }
}

/** Requests per second over the last minute, service-wide, in a ring of one-second buckets. */
class RequestRate {
  private readonly counts = new Uint32Array(RATE_SECONDS);
  private second = -1;
  private firstSecond = -1;

  add(nowMs: number): void {
    this.advance(nowMs);
    this.counts[this.second % RATE_SECONDS]!++;
  }

  private advance(nowMs: number): void {
    const second = Math.floor(nowMs / 1000);
    if (this.second < 0) this.second = this.firstSecond = second;
    for (let s = this.second + 1; s <= second && s - this.second <= RATE_SECONDS; s++) this.counts[s % RATE_SECONDS] = 0;
    if (second > this.second) this.second = second;
  }

  /** Requests in the last `recentSeconds` and the average per `recentSeconds` over the rest of the minute. */
  recentAndUsual(nowMs: number, recentSeconds: number): { recent: number; usual: number } {
    this.advance(nowMs);
    let recent = 0;
    let older = 0;
    for (let back = 0; back < RATE_SECONDS; back++) {
      const count = this.counts[(this.second - back + RATE_SECONDS * 2) % RATE_SECONDS]!;
      if (back < recentSeconds) recent += count;
      else older += count;
    }
    // Seconds before the first request are not "usual" silence: average over observed ones only.
    const observed = Math.min(RATE_SECONDS, this.second - this.firstSecond + 1) - recentSeconds;
    return { recent, usual: observed > 0 ? (older / observed) * recentSeconds : Number.POSITIVE_INFINITY };
  }
}

export class PatternMatcher {
  readonly thresholds: PatternThresholds;
  private readonly clock: Clock;
  private readonly processStartMs: number;
  private readonly operations: BoundedMap<string, RecentOperation>;
  private readonly dependencyErrors: BoundedMap<string, { at: number }>;
  private readonly rate = new RequestRate();
  private readonly heap: { at: number; bytes: number }[] = [];
  private heapRising = false;
  private lastRecoveryAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly latencyDegradationFactor = 2,
    readonly errorRateSpikeThreshold = 0.25,
    readonly cascadeDependencyCount = 2,
    private readonly options: PatternMatcherOptions = {},
  ) {
    this.thresholds = { ...DEFAULT_PATTERN_THRESHOLDS, ...options.thresholds };
    this.clock = options.clock ?? systemClock;
    this.processStartMs = options.processStartMs ?? this.clock.now();
    this.operations = new BoundedMap(options.maxOperations ?? 1000, () => new RecentOperation(this.thresholds.recentWindowSize));
    this.dependencyErrors = new BoundedMap(options.maxDependencies ?? 200, () => ({ at: 0 }));
  }

  /** The operation's recent observations, created on first use (undefined beyond the cap), for callers that keep them. */
  recentFor(operation: string): RecentOperation | undefined {
    return this.operations.getOrCreate(operation);
  }

  /** Feeds a successful observation without detection. */
  recordLatency(operation: string, latencyMs: number): void {
    this.rate.add(this.clock.now());
    this.recentFor(operation)?.add(latencyMs, false);
  }

  recordDependencyError(dependency: string): void {
    const entry = this.dependencyErrors.getOrCreate(dependency);
    if (entry) entry.at = this.clock.now();
  }

  /** A dependency or the service came back: a herd may follow. */
  recordRecovery(): void {
    this.lastRecoveryAt = this.clock.now();
  }

  /** A heap-size sample (the engine samples `process.memoryUsage().heapUsed` periodically). */
  recordHeapSample(bytes: number): void {
    this.heap.push({ at: this.clock.now(), bytes });
    if (this.heap.length > HEAP_SAMPLES) this.heap.shift();
    this.heapRising = this.heapGrowsSteadily();
  }

  /** Records the observation, then returns the patterns it completes. */
  detectPatterns(operation: string, latencyMs: number, isError: boolean, snapshot: BaselineSnapshot | undefined): readonly IncidentPattern[] {
    return this.detectPatternsWith(this.recentFor(operation), operation, latencyMs, isError, snapshot);
  }

  /** `detectPatterns` with the operation's `recentFor(operation)` at hand; `log` is `logLatency(latencyMs)`, for callers that have it already. */
  detectPatternsWith(recent: RecentOperation | undefined, operation: string, latencyMs: number, isError: boolean, snapshot: BaselineSnapshot | undefined, log = logLatency(latencyMs)): readonly IncidentPattern[] {
    const now = this.clock.now();
    this.rate.add(now);
    if (!recent) return NO_PATTERNS;
    recent.add(latencyMs, isError, log);
    const t = this.thresholds;
    let found: IncidentPattern[] | undefined;
    const staticBaseline = snapshot ? undefined : this.options.staticBaselines?.getBaseline(operation);
    const baselineP50 = snapshot?.p50 ?? staticBaseline?.latencyP50Ms;
    const baselineErrorRate = snapshot?.errorRate ?? staticBaseline?.errorRate ?? 0;
    const enough = recent.size >= t.minRecentSamples;

    const recentLatency = enough && baselineP50 !== undefined ? recent.geometricMean() : undefined;
    if (recentLatency !== undefined && this.slower(recentLatency, baselineP50!, this.latencyDegradationFactor)) (found ??= []).push('latency_degradation');

    const errorExcess = enough ? recent.errorRate() - baselineErrorRate : 0;
    if (errorExcess > this.errorRateSpikeThreshold && (this.options.watchesErrorRate?.(operation) ?? true)) {
      (found ??= []).push('error_rate_spike');
      recent.inErrorSpike = true;
    } else if (recent.inErrorSpike && errorExcess < this.errorRateSpikeThreshold / 2) {
      recent.inErrorSpike = false;
      this.lastRecoveryAt = now;
    }

    if (isError && this.failingDependencies(now) >= this.cascadeDependencyCount) (found ??= []).push('cascade_failure');

    if (this.heapRising && enough) {
      const slower = recentLatency !== undefined && this.slower(recentLatency, baselineP50!, t.memoryLeakLatencyFactor);
      if (slower || errorExcess > 0) (found ??= []).push('memory_leak');
    }

    if (now - this.lastRecoveryAt <= t.herdWindowMs) {
      const { recent: lastSeconds, usual } = this.rate.recentAndUsual(now, HERD_RECENT_SECONDS);
      if (lastSeconds >= t.herdMinRequests && lastSeconds >= t.herdRateMultiplier * Math.max(usual, 1)) (found ??= []).push('thundering_herd');
    }

    if (recent.seen <= t.coldStartRequests && now - this.processStartMs <= t.coldStartWindowMs) {
      const staticP50 = this.options.staticBaselines?.getBaseline(operation)?.latencyP50Ms;
      const limit = staticP50 !== undefined ? t.coldStartFactor * staticP50 : t.coldStartLatencyMs;
      if (latencyMs >= limit) (found ??= []).push('cold_start');
    }
    return found ?? NO_PATTERNS;
  }

  /** At least `factor` x the baseline p50, and slower by at least the minimum deviation. */
  private slower(recentLatency: number, baselineP50: number, factor: number): boolean {
    return recentLatency >= factor * baselineP50 && recentLatency - baselineP50 >= this.thresholds.minLatencyDeviationMs;
  }

  private failingDependencies(now: number): number {
    let failing = 0;
    for (const [, entry] of this.dependencyErrors) if (now - entry.at <= this.thresholds.cascadeWindowMs) failing++;
    return failing;
  }

  /** Least-squares slope (bytes per minute) and R^2 of the heap samples. */
  heapTrend(): { slopeBytesPerMinute: number; r2: number; samples: number } {
    const n = this.heap.length;
    if (n < 2) return { slopeBytesPerMinute: 0, r2: 0, samples: n };
    const t0 = this.heap[0]!.at;
    let sx = 0;
    let sy = 0;
    for (const s of this.heap) {
      sx += (s.at - t0) / 60_000;
      sy += s.bytes;
    }
    const mx = sx / n;
    const my = sy / n;
    let sxx = 0;
    let sxy = 0;
    let syy = 0;
    for (const s of this.heap) {
      const dx = (s.at - t0) / 60_000 - mx;
      const dy = s.bytes - my;
      sxx += dx * dx;
      sxy += dx * dy;
      syy += dy * dy;
    }
    if (sxx === 0 || syy === 0) return { slopeBytesPerMinute: 0, r2: 0, samples: n };
    return { slopeBytesPerMinute: sxy / sxx, r2: (sxy * sxy) / (sxx * syy), samples: n };
  }

  private heapGrowsSteadily(): boolean {
    const trend = this.heapTrend();
    const t = this.thresholds;
    return trend.samples >= t.memoryLeakMinSamples && trend.slopeBytesPerMinute >= t.memoryLeakSlopeBytesPerMinute && trend.r2 >= t.memoryLeakMinR2;
  }
}
