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
  /** Counts changes, so percentiles read twice without a change in between are sorted once. */
  private writes = 0;
  private percentilesOf: { writes: number; qs: string; values: number[] } | undefined;

  constructor(readonly capacity: number) {
    this.data = new Float64Array(HEADER + STRIDE * capacity);
  }

  /** Forgets every observation, keeping the buffer. */
  clear(): void {
    this.next = this.size = this.sinceRecompute = this.errorCount = 0;
    this.writes++;
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
    this.writes++;
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

  /**
   * Nearest-rank percentiles (q in 0..1) of the latencies in the window, selected in a copy, once
   * per change of the window: the tools read every operation's baseline at each call, and sorting
   * 500 windows of 1000 latencies took 12 ms (bench/mcp-session.mjs).
   */
  percentiles(...qs: number[]): number[] {
    if (this.size === 0) return qs.map(() => 0);
    const key = qs.join(',');
    const cached = this.percentilesOf;
    if (cached && cached.writes === this.writes && cached.qs === key) return [...cached.values];
    const n = this.size;
    if (scratch.length < n) scratch = new Float64Array(Math.max(n, this.capacity));
    for (let i = 0; i < n; i++) scratch[i] = this.data[HEADER + STRIDE * i]!;
    const ranks = qs.map((q) => Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1)));
    const values = new Array<number>(qs.length);
    // Ascending ranks: once the k-th is in place, every larger one is to its right.
    let from = 0;
    for (const i of ranks.map((_, index) => index).sort((a, b) => ranks[a]! - ranks[b]!)) {
      values[i] = select(scratch, from, n - 1, ranks[i]!);
      from = ranks[i]!;
    }
    this.percentilesOf = { writes: this.writes, qs: key, values };
    return [...values];
  }
}

/** One buffer for every window's percentiles: reads happen one at a time, and no window keeps a copy. */
let scratch = new Float64Array(0);

/**
 * The value of rank `k` of `a[lo..hi]` (quickselect, Hoare partition): on return `a[k]` holds it,
 * smaller or equal values before it, larger or equal after. About four times faster than sorting
 * 1000 latencies, the same values as the nearest-rank of the sorted window.
 */
function select(a: Float64Array, lo: number, hi: number, k: number): number {
  while (hi > lo) {
    const pivot = a[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const swap = a[i]!;
        a[i] = a[j]!;
        a[j] = swap;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k]!;
  }
  return a[k]!;
}
