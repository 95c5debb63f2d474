/**
 * The spec's per-span anomaly signal: z = (latency - mean) / stddev against the operation's
 * rolling baseline, anomalous when |z| > threshold, anomaly_score = min(1, |z| / 4). Every
 * anomalous span carries the `svc.anomaly.*` attributes.
 *
 * An anomalous span is worth a `svc.anomaly.detected` event (rate-limited by the engine) when the
 * operation's anomalies persist: its spans have been anomalous without a break for at least
 * `persistenceMs` and at least `persistence` spans, and this one is at least
 * `minLatencyDeviationMs` away from the mean. Persistence is a duration plus a minimum count, so
 * it means the same at any request rate: a stall shared by the requests in flight (a GC pause,
 * an event-loop block) makes a run as long as the stall, not as long as the requests it held.
 * Anomalies never open incidents: detections come only from patterns (./pattern-matcher.ts).
 */
import { BoundedMap } from './bounded-map.js';
import type { RollingWindow } from './rolling-window.js';

export interface AnomalyDetectorOptions {
  readonly threshold?: number;
  /** Anomalous spans without a break before an event. Default 3. */
  readonly persistence?: number;
  /** How long the anomalies must last before an event (ms). Default 1000. */
  readonly persistenceMs?: number;
  /** The smallest latency deviation (ms) worth an event. Default 1. */
  readonly minLatencyDeviationMs?: number;
  readonly maxOperations?: number;
}

/** What a check reads of the baseline window. */
type BaselineStats = Pick<RollingWindow, 'mean' | 'stddev'>;

/** One operation's current run of anomalous spans. */
export interface AnomalyRun {
  length: number;
  startedAtMs: number;
}

export interface Anomaly {
  /** Standard deviations of latency from the baseline mean. */
  readonly zScore: number;
  readonly score: number;
  /** Persistent: worth an event, not only span attributes. */
  readonly sustained: boolean;
}

const SCORE_NORMALIZER = 4;
const MIN_STDDEV = 1e-9;

export class AnomalyDetector {
  readonly threshold: number;
  readonly persistence: number;
  readonly persistenceMs: number;
  readonly minLatencyDeviationMs: number;
  private readonly runs: BoundedMap<string, AnomalyRun>;

  constructor(options: AnomalyDetectorOptions = {}) {
    this.threshold = options.threshold ?? 3;
    this.persistence = Math.max(1, options.persistence ?? 3);
    this.persistenceMs = Math.max(0, options.persistenceMs ?? 1000);
    this.minLatencyDeviationMs = options.minLatencyDeviationMs ?? 1;
    this.runs = new BoundedMap(options.maxOperations ?? 1000, () => ({ length: 0, startedAtMs: 0 }));
  }

  /** Checks a span's latency against the baseline window, before the span is recorded in it. */
  check(operation: string, latencyMs: number, stats: BaselineStats | undefined, nowMs: number): Anomaly | undefined {
    return this.checkRun(this.runFor(operation), latencyMs, stats, nowMs);
  }

  /** The operation's run of anomalous spans (undefined beyond the cap), for callers that keep it. */
  runFor(operation: string): AnomalyRun | undefined {
    return this.runs.getOrCreate(operation);
  }

  /** `check` with the operation's run at hand. */
  checkRun(run: AnomalyRun | undefined, latencyMs: number, stats: BaselineStats | undefined, nowMs: number): Anomaly | undefined {
    if (!stats) return undefined;
    const deviation = latencyMs - stats.mean;
    const zScore = deviation / Math.max(stats.stddev, MIN_STDDEV);
    if (!(Math.abs(zScore) > this.threshold)) {
      if (run) run.length = 0;
      return undefined;
    }
    const score = Math.min(1, Math.abs(zScore) / SCORE_NORMALIZER);
    if (!run) return { zScore, score, sustained: false };
    if (run.length++ === 0) run.startedAtMs = nowMs;
    const sustained = run.length >= this.persistence && nowMs - run.startedAtMs >= this.persistenceMs && Math.abs(deviation) >= this.minLatencyDeviationMs;
    return { zScore, score, sustained };
  }
}
