/**
 * The last `capacity` observations of one operation: latency, its log and the error flag in a ring
 * buffer, with running sums so mean, standard deviation (also of log latency) and error rate are
 * O(1). An observation is written where the one it replaces is read, and no log is taken twice.
 * Sums are recomputed from the buffer once per lap so floating-point drift never accumulates.
 *
 * Percentiles are exact (nearest rank) and cheap to read: the observations are also kept in a log
 * histogram of 300 buckets (ratio 1.057) whose buckets are queues of ring slots, oldest first,
 * with a count per 4 buckets (the latency histogram's 75). The observation that leaves is the
 * oldest of all, so the head of its bucket's queue; its bucket is known from its stored log. A read
 * walks the counts to the bucket holding a rank and selects the rank among that bucket's few
 * latencies, never copying the window (docs/analysis.md, Baselines). A NaN latency is in bucket 0
 * and ranks below every other.
 *
 * The values last read (p50 and p99 for a baseline) are tracked: for each, how many observations
 * are below it and equal to it, and its neighbours, the nearest values above and below it in the
 * window with how many observations equal each, kept as observations enter and leave (a few
 * comparisons in the buffer's header). A neighbour whose last observation left is unknown until a
 * scan finds one again: a latency entering beyond it need not be the nearest. A read whose rank
 * still falls on the tracked value returns it without touching a bucket; one whose rank moved by
 * one place moves to the neighbour there, reading no bucket, or when that is unknown scans the
 * tracked value's bucket (and the next with any) for the next value and the one after it. Only a
 * larger move walks the counts and selects again, taking the neighbours from the selected bucket.
 * With 500 windows of 1000 latencies and cold caches, a p50 and p99 read after one add takes about
 * 0.6 µs instead of 1.2 µs, the add about 40 ns more (2026-11-23, load 1.3-2.8; docs/analysis.md,
 * Baselines).
 */
import { fineBucketOfLog, HISTOGRAM_BUCKETS } from './latency-histogram.js';
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
/** Values tracked: the first ones a read asks for (a baseline reads two). */
const TRACKED = 2;
/**
 * The tracked values follow the sums, field by field (one per tracked value): the values (NaN:
 * none), how many observations are below each and equal to it, its neighbours (the nearest values
 * above and below it in the window; NaN: unknown, found by a scan when needed), and how many
 * observations equal each neighbour. A read of an unchanged window touches the first three fields;
 * an add the values, counts below and neighbours, and a count of equal observations on a tie only.
 */
const VALUE = 4;
const BELOW = VALUE + TRACKED;
const EQUAL = BELOW + TRACKED;
const UP = EQUAL + TRACKED;
const DOWN = UP + TRACKED;
const UP_EQUAL = DOWN + TRACKED;
const DOWN_EQUAL = UP_EQUAL + TRACKED;
const HEADER = DOWN_EQUAL + TRACKED;
/** Per observation: latency, its log, 1 for an error. */
const STRIDE = 3;
/** Each latency-histogram bucket (ratio 1.25) split in four: few latencies share a bucket. */
const SPLIT = 4;
const BUCKETS = HISTOGRAM_BUCKETS * SPLIT;
const COUNT = 0;
const HEAD = 1;
const TAIL = 2;
const BUCKET_STRIDE = 3;
/** Slot indexes and counts are 16-bit. */
const MAX_CAPACITY = 0xffff;

export class RollingWindow {
  private readonly data: Float64Array;
  /**
   * Per bucket, side by side so an add touches one cache line per bucket: how many observations
   * (at COUNT), the slots of its oldest (HEAD) and newest (TAIL). Per slot: the next newer slot of its bucket.
   */
  private readonly buckets = new Uint16Array(BUCKET_STRIDE * BUCKETS);
  private readonly nextInBucket: Uint16Array;
  /** Observations per latency-histogram bucket (SPLIT buckets each), so a read walks 75 counts, not 300. */
  private readonly coarseCount = new Uint16Array(HISTOGRAM_BUCKETS);
  private next = 0;
  private size = 0;
  private errorCount = 0;
  private sinceRecompute = 0;

  constructor(readonly capacity: number) {
    if (!(capacity >= 1 && capacity <= MAX_CAPACITY)) throw new RangeError(`a rolling window holds 1 to ${MAX_CAPACITY} observations, not ${capacity}`);
    this.data = new Float64Array(HEADER + STRIDE * capacity);
    this.nextInBucket = new Uint16Array(capacity);
    this.untrack();
  }

  private untrack(): void {
    for (let t = 0; t < TRACKED; t++) this.data[t + VALUE] = Number.NaN;
  }

  /** Forgets every observation, keeping the buffer. */
  clear(): void {
    this.next = this.size = this.sinceRecompute = this.errorCount = 0;
    this.data.fill(0, 0, HEADER);
    this.untrack();
    this.buckets.fill(0);
    this.coarseCount.fill(0);
  }

  get count(): number {
    return this.size;
  }

  get errorRate(): number {
    return this.size ? this.errorCount / this.size : 0;
  }

  /** `log` is `logLatency(latencyMs)`, for callers that have it already. */
  add(latencyMs: number, isError: boolean, log = logLatency(latencyMs)): void {
    const data = this.data;
    const buckets = this.buckets;
    const slot = this.next;
    const at = HEADER + STRIDE * slot;
    if (this.size === this.capacity) {
      const old = data[at]!;
      const oldLog = data[at + 1]!;
      const oldBucket = fineBucketOfLog(oldLog, SPLIT);
      this.coarseCount[(oldBucket / SPLIT) | 0]!--;
      buckets[BUCKET_STRIDE * oldBucket + COUNT]!--;
      buckets[BUCKET_STRIDE * oldBucket + HEAD] = this.nextInBucket[slot]!;
      data[SUM] -= old;
      data[SUM_SQUARES] -= old * old;
      data[LOG_SUM] -= oldLog;
      data[LOG_SUM_SQUARES] -= oldLog * oldLog;
      this.errorCount -= data[at + 2]!;
      for (let t = 0; t < TRACKED; t++) this.leave(t, old);
    } else this.size++;
    for (let t = 0; t < TRACKED; t++) this.enter(t, latencyMs);
    data[at] = latencyMs;
    data[at + 1] = log;
    data[at + 2] = isError ? 1 : 0;
    const bucket = fineBucketOfLog(log, SPLIT);
    this.coarseCount[(bucket / SPLIT) | 0]!++;
    const entry = BUCKET_STRIDE * bucket;
    if (buckets[entry + COUNT]!++ === 0) buckets[entry + HEAD] = slot;
    else this.nextInBucket[buckets[entry + TAIL]!] = slot;
    buckets[entry + TAIL] = slot;
    data[SUM] += latencyMs;
    data[SUM_SQUARES] += latencyMs * latencyMs;
    data[LOG_SUM] += log;
    data[LOG_SUM_SQUARES] += log * log;
    if (isError) this.errorCount++;
    this.next = slot + 1 === this.capacity ? 0 : slot + 1;
    if (++this.sinceRecompute >= this.capacity) this.recompute();
  }

  /**
   * Counts `latency` into the value tracked at `t`, and makes it the neighbour on its side when it
   * is nearer. An unknown (NaN) neighbour compares false: a latency beyond it may not be the nearest.
   * A NaN tracked value compares false too: nothing to keep for it.
   */
  private enter(t: number, latency: number): void {
    const data = this.data;
    const value = data[t + VALUE]!;
    if (latency < value) {
      data[t + BELOW]!++;
      if (latency === data[t + DOWN]) data[t + DOWN_EQUAL]!++;
      else if (latency > data[t + DOWN]!) {
        data[t + DOWN] = latency;
        data[t + DOWN_EQUAL] = 1;
      }
    } else if (latency > value) {
      if (latency === data[t + UP]) data[t + UP_EQUAL]!++;
      else if (latency < data[t + UP]!) {
        data[t + UP] = latency;
        data[t + UP_EQUAL] = 1;
      }
    } else if (latency === value) data[t + EQUAL]!++;
    // A NaN latency ranks below every other (bucket 0).
    else if (!Number.isNaN(value)) data[t + BELOW]!++;
  }

  /** Counts `latency` out of the value tracked at `t`; a neighbour it was the last of becomes unknown. */
  private leave(t: number, latency: number): void {
    const data = this.data;
    const value = data[t + VALUE]!;
    if (latency < value) {
      data[t + BELOW]!--;
      if (latency === data[t + DOWN] && --data[t + DOWN_EQUAL]! === 0) data[t + DOWN] = Number.NaN;
    } else if (latency > value) {
      if (latency === data[t + UP] && --data[t + UP_EQUAL]! === 0) data[t + UP] = Number.NaN;
    } else if (latency === value) data[t + EQUAL]!--;
    else if (!Number.isNaN(value)) data[t + BELOW]!--;
  }

  private recompute(): void {
    const data = this.data;
    this.sinceRecompute = 0;
    data.fill(0, 0, VALUE);
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
   * Nearest-rank percentiles (q in 0..1) of the latencies in the window: the values sorting the
   * window would give, 0 when it is empty. The first two are tracked: read again without a
   * change, or after a few, they cost a comparison, a step to a neighbour or one bucket's scan.
   */
  percentiles(...qs: number[]): readonly number[] {
    return qs.map((q, i) => this.percentile(q, i));
  }

  /** `percentiles(...)[i]` alone, without the arrays: `q` asked for in place `i` (0 and 1 are tracked). */
  percentile(q: number, i: number): number {
    const n = this.size;
    return n === 0 ? 0 : this.read(Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1)), i < TRACKED ? i : -1);
  }

  /** The latency of rank `rank`, from the value tracked at `t` when the rank is on it or next to it (-1: untracked). */
  private read(rank: number, t: number): number {
    if (t < 0) return this.valueAtRank(rank, -1);
    const data = this.data;
    const below = data[t + BELOW]!;
    const equal = data[t + EQUAL]!;
    if (!Number.isNaN(data[t + VALUE]!)) {
      if (rank >= below && rank < below + equal) return data[t + VALUE]!;
      if (rank === below + equal && this.step(t, 1)) return data[t + VALUE]!;
      if (rank === below - 1 && this.step(t, -1)) return data[t + VALUE]!;
    }
    return this.valueAtRank(rank, t);
  }

  /**
   * Moves the value tracked at `t` to the next one above it (`dir` 1) or below it (-1): the
   * neighbour there when known, else the nearest found scanning the buckets from its own on (false
   * when there is none but NaN latencies). The value left becomes the neighbour behind.
   */
  private step(t: number, dir: 1 | -1): boolean {
    const data = this.data;
    const ahead = t + (dir > 0 ? UP : DOWN);
    const aheadEqual = t + (dir > 0 ? UP_EQUAL : DOWN_EQUAL);
    const behind = t + (dir > 0 ? DOWN : UP);
    const behindEqual = t + (dir > 0 ? DOWN_EQUAL : UP_EQUAL);
    const value = data[t + VALUE]!;
    let next = data[ahead]!;
    let nextEqual = data[aheadEqual]!;
    let after = Number.NaN;
    let afterEqual = 0;
    if (Number.isNaN(next)) {
      // Keys are latencies times `dir`: the values ahead have keys above the tracked value's, the
      // next the least. The scan stops at the bucket holding it, so the second least there is the
      // value after it.
      const from = dir * value;
      let near = Number.POSITIVE_INFINITY;
      let far = Number.POSITIVE_INFINITY;
      nextEqual = 0;
      for (let bucket = fineBucketOfLog(logLatency(value), SPLIT); nextEqual === 0 && bucket >= 0 && bucket < BUCKETS; bucket += dir) {
        for (let left = this.buckets[BUCKET_STRIDE * bucket + COUNT]!, slot = this.buckets[BUCKET_STRIDE * bucket + HEAD]!; left > 0; left--, slot = this.nextInBucket[slot]!) {
          const key = dir * data[HEADER + STRIDE * slot]!;
          // Only keys ahead, and none beyond the second least so far, matter.
          if (!(key > from && key <= far)) continue;
          if (key < near) {
            far = near;
            afterEqual = nextEqual;
            near = key;
            nextEqual = 1;
          } else if (key === near) nextEqual++;
          else if (key < far) {
            far = key;
            afterEqual = 1;
          } else afterEqual++;
        }
      }
      if (nextEqual === 0) return false;
      next = dir * near;
      if (afterEqual) after = dir * far;
    }
    const equal = data[t + EQUAL]!;
    // A value no longer in the window leaves the neighbour behind as it was: nothing lies between it and the next.
    if (equal > 0) {
      data[behind] = value;
      data[behindEqual] = equal;
    }
    data[t + BELOW]! += dir > 0 ? equal : -nextEqual;
    data[t + VALUE] = next;
    data[t + EQUAL] = nextEqual;
    data[ahead] = after;
    data[aheadEqual] = afterEqual;
    return true;
  }

  /**
   * The latency of rank `rank` (0-based, ascending): the coarse then the fine counts, walked from
   * the nearer end, find its bucket; it is selected among that bucket's latencies. With `t` >= 0
   * it becomes the value tracked there.
   */
  private valueAtRank(rank: number, t: number): number {
    const coarse = this.coarseCount;
    const buckets = this.buckets;
    let bucket: number;
    let below = 0;
    if (rank < this.size / 2) {
      let c = 0;
      while (rank >= below + coarse[c]!) below += coarse[c++]!;
      bucket = c * SPLIT;
      while (rank >= below + buckets[BUCKET_STRIDE * bucket + COUNT]!) below += buckets[BUCKET_STRIDE * bucket++ + COUNT]!;
    } else {
      // From the top: `above` observations are in the buckets past the one looked at.
      const fromTop = this.size - 1 - rank;
      let above = 0;
      let c = HISTOGRAM_BUCKETS - 1;
      while (fromTop >= above + coarse[c]!) above += coarse[c--]!;
      bucket = c * SPLIT + SPLIT - 1;
      while (fromTop >= above + buckets[BUCKET_STRIDE * bucket + COUNT]!) above += buckets[BUCKET_STRIDE * bucket-- + COUNT]!;
      below = this.size - above - buckets[BUCKET_STRIDE * bucket + COUNT]!;
    }
    const count = this.copyBucket(bucket);
    // NaN latencies (in bucket 0) rank below every other: they go first, and the selection is among the rest.
    let nans = 0;
    if (bucket === 0) {
      for (let i = 0; i < count; i++) {
        if (Number.isNaN(scratch[i]!)) {
          scratch[i] = scratch[nans]!;
          scratch[nans++] = Number.NaN;
        }
      }
    }
    const value = rank - below < nans ? Number.NaN : select(scratch, nans, count - 1, rank - below);
    if (t >= 0) {
      // The bucket's latencies enter around the value (NaN: not tracked) with neighbours infinitely
      // far; the nearest of them become the neighbours. Other buckets' latencies are beyond them.
      const data = this.data;
      data[t + VALUE] = value;
      data[t + BELOW] = below + nans;
      data[t + EQUAL] = 0;
      data[t + UP] = Number.POSITIVE_INFINITY;
      data[t + DOWN] = Number.NEGATIVE_INFINITY;
      data[t + UP_EQUAL] = data[t + DOWN_EQUAL] = 0;
      for (let i = nans; i < count; i++) this.enter(t, scratch[i]!);
      if (data[t + UP_EQUAL] === 0) data[t + UP] = Number.NaN;
      if (data[t + DOWN_EQUAL] === 0) data[t + DOWN] = Number.NaN;
    }
    return value;
  }

  /** Copies the latencies in `bucket` to the start of `scratch`, following its queue; returns how many. */
  private copyBucket(bucket: number): number {
    const count = this.buckets[BUCKET_STRIDE * bucket + COUNT]!;
    if (scratch.length < count) scratch = new Float64Array(this.capacity);
    let slot = this.buckets[BUCKET_STRIDE * bucket + HEAD]!;
    for (let i = 0; i < count; i++) {
      scratch[i] = this.data[HEADER + STRIDE * slot]!;
      slot = this.nextInBucket[slot]!;
    }
    return count;
  }
}

/** One buffer for every window's percentiles: reads happen one at a time, and no window keeps a copy. */
let scratch = new Float64Array(0);

/**
 * The value of rank `k` of `a[lo..hi]` (quickselect, Hoare partition): on return `a[k]` holds it,
 * smaller or equal values before it, larger or equal after: the nearest rank of the sorted values.
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
