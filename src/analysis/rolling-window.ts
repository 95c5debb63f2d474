/**
 * The last `capacity` observations of one operation: latency, its log and the error flag in a ring
 * buffer, with running sums so mean, standard deviation (also of log latency) and error rate are
 * O(1). An observation is written where the one it replaces is read, and no log is taken twice.
 * Percentiles are computed when read. Sums are recomputed from the buffer once per lap so
 * floating-point drift never accumulates.
 */
import { logLatency } from './log-latency.js';

export interface WindowStats {
  readonly count: number;
  readonly mean: number;
  readonly stddev: number;
  readonly logMean: number;
  readonly logStddev: number;
  readonly errorRate: number;
}

// The running sums and the observations share one buffer: doubles kept in object fields would
// each live in a separate heap box, and a span would touch a cache line for each.
const SUM = 0;
const SUM_SQUARES = 1;
const LOG_SUM = 2;
const LOG_SUM_SQUARES = 3;
const HEADER = 4;
/** Per observation: latency, its log, 1 for an error. */
const STRIDE = 3;

export class RollingWindow {
  private readonly data: Float64Array;
  private next = 0;
  private size = 0;
  private errorCount = 0;
  private sinceRecompute = 0;

  constructor(readonly capacity: number) {
    this.data = new Float64Array(HEADER + STRIDE * capacity);
  }

  /** Forgets every observation, keeping the buffer. */
  clear(): void {
    this.next = this.size = this.sinceRecompute = this.errorCount = 0;
    this.data.fill(0, 0, HEADER);
  }

  get count(): number {
    return this.size;
  }

  /** `log` is `logLatency(latencyMs)`, for callers that have it already. */
  add(latencyMs: number, isError: boolean, log = logLatency(latencyMs)): void {
    const data = this.data;
    const at = HEADER + STRIDE * this.next;
    if (this.size === this.capacity) {
      const old = data[at]!;
      const oldLog = data[at + 1]!;
      data[SUM] -= old;
      data[SUM_SQUARES] -= old * old;
      data[LOG_SUM] -= oldLog;
      data[LOG_SUM_SQUARES] -= oldLog * oldLog;
      this.errorCount -= data[at + 2]!;
    } else this.size++;
    data[at] = latencyMs;
    data[at + 1] = log;
    data[at + 2] = isError ? 1 : 0;
    data[SUM] += latencyMs;
    data[SUM_SQUARES] += latencyMs * latencyMs;
    data[LOG_SUM] += log;
    data[LOG_SUM_SQUARES] += log * log;
    if (isError) this.errorCount++;
    this.next = this.next + 1 === this.capacity ? 0 : this.next + 1;
    if (++this.sinceRecompute >= this.capacity) this.recompute();
  }

  private recompute(): void {
    const data = this.data;
    this.sinceRecompute = 0;
    data.fill(0, 0, HEADER);
    for (let i = 0; i < this.size; i++) {
      const value = data[HEADER + STRIDE * i]!;
      const log = data[HEADER + STRIDE * i + 1]!;
      data[SUM] += value;
      data[SUM_SQUARES] += value * value;
      data[LOG_SUM] += log;
      data[LOG_SUM_SQUARES] += log * log;
    }
  }

  // Getters for the per-span check, which must not allocate; `stats()` bundles them for reads.
  get mean(): number {
    return this.size ? this.data[SUM]! / this.size : 0;
  }

  get stddev(): number {
    const mean = this.mean;
    return this.size ? Math.sqrt(Math.max(0, this.data[SUM_SQUARES]! / this.size - mean * mean)) : 0;
  }

  get logMean(): number {
    return this.size ? this.data[LOG_SUM]! / this.size : 0;
  }

  get logStddev(): number {
    const logMean = this.logMean;
    return this.size ? Math.sqrt(Math.max(0, this.data[LOG_SUM_SQUARES]! / this.size - logMean * logMean)) : 0;
  }

  stats(): WindowStats {
    const n = this.size;
    if (n === 0) return { count: 0, mean: 0, stddev: 0, logMean: 0, logStddev: 0, errorRate: 0 };
    const mean = this.data[SUM]! / n;
    const logMean = this.data[LOG_SUM]! / n;
    return {
      count: n,
      mean,
      stddev: Math.sqrt(Math.max(0, this.data[SUM_SQUARES]! / n - mean * mean)),
      logMean,
      logStddev: Math.sqrt(Math.max(0, this.data[LOG_SUM_SQUARES]! / n - logMean * logMean)),
      errorRate: this.errorCount / n,
    };
  }

  /** Nearest-rank percentiles (q in 0..1) of the latencies in the window; sorts a copy. */
  percentiles(...qs: number[]): number[] {
    if (this.size === 0) return qs.map(() => 0);
    const sorted = new Float64Array(this.size);
    for (let i = 0; i < this.size; i++) sorted[i] = this.data[HEADER + STRIDE * i]!;
    sorted.sort();
    return qs.map((q) => sorted[Math.min(this.size - 1, Math.max(0, Math.ceil(q * this.size) - 1))]!);
  }
}
