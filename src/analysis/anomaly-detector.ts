/**
 * Latency anomalies by z-score against the operation's rolling baseline.
 *
 * - `zscore` mode is the spec's plain rule: z = (latency - mean) / stddev, anomalous when
 *   |z| > threshold, and every anomalous span is worth an event.
 * - `robust` mode (the default) takes z on log latency, which suits the heavy right tail of
 *   real latencies, and calls a detection sustained (worth an event or an incident) only after
 *   `persistence` consecutive anomalous spans of the operation that are also at least
 *   `minLatencyDeviationMs` away from the baseline's typical (geometric mean) latency, so
 *   sub-millisecond jitter of a fast operation never makes an event. Single outliers still get
 *   the span attributes, but never an event. bench/false-positives.mjs measures both modes.
 *
 * In both modes anomaly_score = min(1, |z| / 4).
 */
import { BoundedMap } from './bounded-map.js';
import { logLatency } from './log-latency.js';
import type { RollingWindow } from './rolling-window.js';

export type AnomalyMode = 'robust' | 'zscore';
export const ANOMALY_MODES = ['robust', 'zscore'] as const;

export interface AnomalyDetectorOptions {
  readonly mode?: AnomalyMode;
  readonly threshold?: number;
  /** Consecutive anomalous spans before a detection is sustained (robust mode). */
  readonly persistence?: number;
  /** Robust mode: the smallest latency deviation (ms) that counts toward persistence. */
  readonly minLatencyDeviationMs?: number;
  readonly maxOperations?: number;
}

/** What a check reads of the baseline window. */
type BaselineStats = Pick<RollingWindow, 'mean' | 'stddev' | 'logMean' | 'logStddev'>;

/** Consecutive anomalous spans of one operation so far. */
export interface AnomalyRun {
  length: number;
}

export interface Anomaly {
  /** Standard deviations from the baseline: of latency (zscore mode) or of log latency (robust mode). */
  readonly zScore: number;
  readonly score: number;
  /** Worth an event or an incident, not only a span attribute. */
  readonly sustained: boolean;
}

const SCORE_NORMALIZER = 4;
const MIN_STDDEV = 1e-9;

export class AnomalyDetector {
  readonly mode: AnomalyMode;
  readonly threshold: number;
  readonly persistence: number;
  readonly minLatencyDeviationMs: number;
  private readonly runs: BoundedMap<string, AnomalyRun>;

  constructor(options: AnomalyDetectorOptions = {}) {
    this.mode = options.mode ?? 'robust';
    this.threshold = options.threshold ?? 3;
    this.persistence = this.mode === 'robust' ? Math.max(1, options.persistence ?? 3) : 1;
    this.minLatencyDeviationMs = this.mode === 'robust' ? (options.minLatencyDeviationMs ?? 1) : 0;
    this.runs = new BoundedMap(options.maxOperations ?? 1000, () => ({ length: 0 }));
  }

  /** Checks a span's latency against the baseline window, before the span is recorded in it. */
  check(operation: string, latencyMs: number, stats: BaselineStats | undefined): Anomaly | undefined {
    return this.checkRun(this.runFor(operation), latencyMs, stats);
  }

  /** The operation's run of anomalous spans (undefined without persistence or beyond the cap), for callers that keep it. */
  runFor(operation: string): AnomalyRun | undefined {
    return this.persistence > 1 ? this.runs.getOrCreate(operation) : undefined;
  }

  /** `check` with the operation's run at hand; `log` is `logLatency(latencyMs)`, for callers that have it already. */
  checkRun(run: AnomalyRun | undefined, latencyMs: number, stats: BaselineStats | undefined, log = logLatency(latencyMs)): Anomaly | undefined {
    if (!stats) return undefined;
    const zScore =
      this.mode === 'zscore'
        ? (latencyMs - stats.mean) / Math.max(stats.stddev, MIN_STDDEV)
        : (log - stats.logMean) / Math.max(stats.logStddev, MIN_STDDEV);
    const anomalous = Math.abs(zScore) > this.threshold;
    if (!anomalous) {
      if (run) run.length = 0;
      return undefined;
    }
    const score = Math.min(1, Math.abs(zScore) / SCORE_NORMALIZER);
    if (this.minLatencyDeviationMs > 0 && Math.abs(latencyMs - Math.exp(stats.logMean)) < this.minLatencyDeviationMs) {
      if (run) run.length = 0;
      return { zScore, score, sustained: false };
    }
    const length = run ? ++run.length : 1;
    return { zScore, score, sustained: length >= this.persistence };
  }
}
