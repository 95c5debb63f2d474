/**
 * One operation's recent traffic in time buckets, so that a window means the same duration at
 * 1 req/s and at 2000 req/s. The window is the last `buckets` closed buckets of `bucketMs`; the
 * bucket being filled is not part of it. When a bucket closes (on the first span after its end,
 * once per bucket, never per span) the window's verdicts are computed against a reference, and
 * the bucket that leaves the window is folded into a slowly forgetting reference of the
 * operation's own past (an exponentially weighted sum with time constant `referenceMs`).
 *
 * Per span: one comparison and three additions. Sustained means that at least all but one of
 * the window's buckets are elevated and the window holds `minSamples` requests: a stall shared
 * by the requests in flight (a GC pause, an event-loop block) touches at most two buckets.
 */
export interface WindowRules {
  readonly bucketMs: number;
  readonly buckets: number;
  readonly minSamples: number;
  readonly referenceMs: number;
  /** Buckets ending before this (the process's cold-start window) do not teach the reference. */
  readonly learnFromMs: number;
}

/** What a closing bucket is judged against. */
export interface WindowReference {
  /** Typical latency (p50); undefined: no latency verdict. */
  p50Ms: number | undefined;
  /** Baseline error rate; undefined: no error verdict. */
  errorRate: number | undefined;
}

/** Thresholds of the verdicts, shared by the windows of one matcher. */
export interface WindowThresholds {
  readonly degradationFactor: number;
  readonly slowFactor: number;
  readonly minLatencyDeviationMs: number;
  readonly errorRateExcess: number;
}

// Layout of `data`: per bucket [count, errors, logSum], then the fields below (doubles kept in
// the buffer, not as object fields, which V8 would box: one cache line fewer per span).
const COUNT = 0;
const ERRORS = 1;
const LOG_SUM = 2;
const STRIDE = 3;

export class OperationWindow {
  private readonly data: Float64Array;
  private readonly slots: number;
  private readonly end: number;
  private current = 0;
  /** Whether the buffer's bucket end is set (first span seen). */
  private started = false;
  /** Window verdicts, as of the last closed bucket. */
  degraded = false;
  slow = false;
  failing = false;
  /** Cold-start record (first requests of a fresh process), while it matters. */
  coldStart: ColdStartRecord | undefined;

  constructor(private readonly rules: WindowRules) {
    this.slots = rules.buckets + 1;
    this.end = this.slots * STRIDE;
    // + bucket end, reference count, reference log sum, reference errors
    this.data = new Float64Array(this.end + 4);
  }

  /**
   * Adds an observation at `nowMs`; returns true when a bucket closed first (the caller then
   * calls `judge`).
   */
  add(nowMs: number, log: number, isError: boolean): boolean {
    const data = this.data;
    let closed = false;
    if (nowMs >= data[this.end]! || !this.started) {
      this.roll(nowMs);
      closed = true;
    }
    const at = this.current * STRIDE;
    data[at + COUNT]!++;
    data[at + LOG_SUM] += log;
    if (isError) data[at + ERRORS]!++;
    return closed;
  }

  private roll(nowMs: number): void {
    const { bucketMs } = this.rules;
    const data = this.data;
    if (!this.started) {
      this.started = true;
      data[this.end] = (Math.floor(nowMs / bucketMs) + 1) * bucketMs;
      return;
    }
    const steps = Math.floor((nowMs - data[this.end]!) / bucketMs) + 1;
    // The oldest slots leave the window: fold them into the reference, then reuse them.
    for (let i = 0; i < Math.min(steps, this.slots); i++) {
      this.current = (this.current + 1) % this.slots;
      const at = this.current * STRIDE;
      const endedAt = data[this.end]! + (i - this.rules.buckets) * bucketMs;
      this.learn(data[at + COUNT]!, data[at + ERRORS]!, data[at + LOG_SUM]!, endedAt);
      data[at + COUNT] = data[at + ERRORS] = data[at + LOG_SUM] = 0;
    }
    if (steps > this.slots) this.decay(steps - this.slots);
    data[this.end] += steps * bucketMs;
  }

  private learn(count: number, errors: number, logSum: number, endedAtMs: number): void {
    this.decay(1);
    if (count === 0 || endedAtMs < this.rules.learnFromMs) return;
    const data = this.data;
    data[this.end + 1] += count;
    data[this.end + 2] += logSum;
    data[this.end + 3] += errors;
  }

  private decay(buckets: number): void {
    const factor = Math.exp((-buckets * this.rules.bucketMs) / this.rules.referenceMs);
    const data = this.data;
    data[this.end + 1] *= factor;
    data[this.end + 2] *= factor;
    data[this.end + 3] *= factor;
  }

  /** The operation's own typical latency (geometric mean) and error rate from before the window; undefined until it rests on `minSamples`. */
  referenceP50Ms(): number | undefined {
    const n = this.data[this.end + 1]!;
    return n >= this.rules.minSamples ? Math.exp(this.data[this.end + 2]! / n) : undefined;
  }

  referenceErrorRate(): number | undefined {
    const n = this.data[this.end + 1]!;
    return n >= this.rules.minSamples ? this.data[this.end + 3]! / n : undefined;
  }

  /** Requests in the window's closed buckets. */
  samples(): number {
    let n = 0;
    for (let s = 0; s < this.slots; s++) if (s !== this.current) n += this.data[s * STRIDE + COUNT]!;
    return n;
  }

  /** Recomputes the verdicts over the closed buckets (once per closed bucket). */
  judge(reference: WindowReference, t: WindowThresholds): void {
    const data = this.data;
    let samples = 0;
    let degraded = 0;
    let slow = 0;
    let failing = 0;
    const p50 = reference.p50Ms;
    const baseErrors = reference.errorRate;
    for (let s = 0; s < this.slots; s++) {
      if (s === this.current) continue;
      const at = s * STRIDE;
      const n = data[at + COUNT]!;
      if (n === 0) continue;
      samples += n;
      if (p50 !== undefined) {
        const typical = Math.exp(data[at + LOG_SUM]! / n);
        const deviates = typical - p50 >= t.minLatencyDeviationMs;
        if (deviates && typical >= t.degradationFactor * p50) degraded++;
        if (deviates && typical >= t.slowFactor * p50) slow++;
      }
      if (baseErrors !== undefined && data[at + ERRORS]! / n - baseErrors > t.errorRateExcess) failing++;
    }
    const needed = this.rules.buckets - 1;
    const enough = samples >= this.rules.minSamples;
    this.degraded = enough && degraded >= needed;
    this.slow = enough && slow >= needed;
    this.failing = enough && failing >= needed;
  }
}

/**
 * An operation's first requests in a fresh process: the slowest latency per slot of the
 * cold-start window, from the operation's first request.
 */
export interface ColdStartRecord {
  readonly firstAtMs: number;
  readonly slotMs: number;
  readonly maxPerSlot: Float32Array;
  /** The latency that makes a cold start a detection by itself (tightest consumer SLA, or the default). */
  readonly limitMs: number;
}
