/**
 * The last `capacity` observations of one operation: latency and error flag in ring buffers,
 * with running sums so mean, standard deviation (also of log latency) and error rate are O(1).
 * Percentiles are computed when read. Sums are recomputed from the buffer once per lap so
 * floating-point drift never accumulates.
 */
export interface WindowStats {
  readonly count: number;
  readonly mean: number;
  readonly stddev: number;
  readonly logMean: number;
  readonly logStddev: number;
  readonly errorRate: number;
}

/** Latencies below this are clamped before taking logs (a 0 ms span has no logarithm). */
const MIN_LOG_LATENCY_MS = 0.001;

export class RollingWindow {
  private readonly latencies: Float64Array;
  private readonly errors: Uint8Array;
  private next = 0;
  private size = 0;
  private sum = 0;
  private sumSquares = 0;
  private logSum = 0;
  private logSumSquares = 0;
  private errorCount = 0;
  private sinceRecompute = 0;

  constructor(readonly capacity: number) {
    this.latencies = new Float64Array(capacity);
    this.errors = new Uint8Array(capacity);
  }

  /** Forgets every observation, keeping the buffers. */
  clear(): void {
    this.next = this.size = this.sinceRecompute = 0;
    this.sum = this.sumSquares = this.logSum = this.logSumSquares = this.errorCount = 0;
  }

  get count(): number {
    return this.size;
  }

  add(latencyMs: number, isError: boolean): void {
    if (this.size === this.capacity) this.remove(this.next);
    else this.size++;
    this.latencies[this.next] = latencyMs;
    this.errors[this.next] = isError ? 1 : 0;
    const log = Math.log(Math.max(latencyMs, MIN_LOG_LATENCY_MS));
    this.sum += latencyMs;
    this.sumSquares += latencyMs * latencyMs;
    this.logSum += log;
    this.logSumSquares += log * log;
    if (isError) this.errorCount++;
    this.next = (this.next + 1) % this.capacity;
    if (++this.sinceRecompute >= this.capacity) this.recompute();
  }

  private remove(index: number): void {
    const old = this.latencies[index]!;
    const log = Math.log(Math.max(old, MIN_LOG_LATENCY_MS));
    this.sum -= old;
    this.sumSquares -= old * old;
    this.logSum -= log;
    this.logSumSquares -= log * log;
    this.errorCount -= this.errors[index]!;
  }

  private recompute(): void {
    this.sinceRecompute = 0;
    this.sum = this.sumSquares = this.logSum = this.logSumSquares = 0;
    for (let i = 0; i < this.size; i++) {
      const value = this.latencies[i]!;
      const log = Math.log(Math.max(value, MIN_LOG_LATENCY_MS));
      this.sum += value;
      this.sumSquares += value * value;
      this.logSum += log;
      this.logSumSquares += log * log;
    }
  }

  // Getters for the per-span check, which must not allocate; `stats()` bundles them for reads.
  get mean(): number {
    return this.size ? this.sum / this.size : 0;
  }

  get stddev(): number {
    const mean = this.mean;
    return this.size ? Math.sqrt(Math.max(0, this.sumSquares / this.size - mean * mean)) : 0;
  }

  get logMean(): number {
    return this.size ? this.logSum / this.size : 0;
  }

  get logStddev(): number {
    const logMean = this.logMean;
    return this.size ? Math.sqrt(Math.max(0, this.logSumSquares / this.size - logMean * logMean)) : 0;
  }

  stats(): WindowStats {
    const n = this.size;
    if (n === 0) return { count: 0, mean: 0, stddev: 0, logMean: 0, logStddev: 0, errorRate: 0 };
    const mean = this.sum / n;
    const logMean = this.logSum / n;
    return {
      count: n,
      mean,
      stddev: Math.sqrt(Math.max(0, this.sumSquares / n - mean * mean)),
      logMean,
      logStddev: Math.sqrt(Math.max(0, this.logSumSquares / n - logMean * logMean)),
      errorRate: this.errorCount / n,
    };
  }

  /** Nearest-rank percentiles (q in 0..1) of the latencies in the window; sorts a copy. */
  percentiles(...qs: number[]): number[] {
    if (this.size === 0) return qs.map(() => 0);
    const sorted = this.latencies.slice(0, this.size).sort();
    return qs.map((q) => sorted[Math.min(this.size - 1, Math.max(0, Math.ceil(q * this.size) - 1))]!);
  }
}
