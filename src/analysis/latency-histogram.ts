/**
 * A fixed log-scale latency histogram: bucket i holds latencies in [0.01 ms x 1.25^i,
 * 0.01 ms x 1.25^(i+1)), 75 buckets up to about 180 s (the last also takes anything above).
 * Percentiles read from it are within one bucket (+-12 %) of the true value; adding is O(1).
 */
const BASE_MS = 0.01;
const RATIO = 1.25;
export const HISTOGRAM_BUCKETS = 75;
const LOG_RATIO = Math.log(RATIO);
const LOG_BASE = Math.log(BASE_MS);

/** The bucket of a latency, from its `logLatency`. */
export function bucketOfLog(logLatency: number): number {
  if (logLatency <= LOG_BASE) return 0;
  return Math.min(HISTOGRAM_BUCKETS - 1, Math.floor((logLatency - LOG_BASE) / LOG_RATIO));
}

/** The geometric middle of a bucket, the value a percentile in it reads as. */
export function bucketValue(bucket: number): number {
  return BASE_MS * RATIO ** (bucket + 0.5);
}

export function newHistogram(): Uint32Array {
  return new Uint32Array(HISTOGRAM_BUCKETS);
}

/** Nearest-rank percentile (q in 0..1) of the sum of `histograms`; 0 when they are empty. */
export function histogramPercentile(histograms: readonly Uint32Array[], q: number): number {
  let total = 0;
  for (const h of histograms) for (let i = 0; i < HISTOGRAM_BUCKETS; i++) total += h[i]!;
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
    for (const h of histograms) seen += h[i]!;
    if (seen >= rank) return bucketValue(i);
  }
  return bucketValue(HISTOGRAM_BUCKETS - 1);
}

/**
 * Nearest-rank percentile of one histogram that holds `total` values (known to the caller, so the
 * counts are not summed first); 0 when it is empty. Ranks in the upper half are found from the top.
 */
export function percentileOfCounted(histogram: Uint32Array, total: number, q: number): number {
  if (total <= 0) return 0;
  const rank = Math.max(1, Math.ceil(q * total));
  if (rank <= total / 2) {
    for (let i = 0, seen = 0; i < HISTOGRAM_BUCKETS; i++) if ((seen += histogram[i]!) >= rank) return bucketValue(i);
    return bucketValue(HISTOGRAM_BUCKETS - 1);
  }
  const fromTop = total - rank + 1;
  for (let i = HISTOGRAM_BUCKETS - 1, seen = 0; i > 0; i--) if ((seen += histogram[i]!) >= fromTop) return bucketValue(i);
  return bucketValue(0);
}

/** `histogramPercentile` for each of `qs` (ascending), summing the histograms once and walking them once. */
export function histogramPercentiles(histograms: readonly Uint32Array[], qs: readonly number[]): number[] {
  let sum = histograms[0] ?? summed.fill(0);
  if (histograms.length > 1) {
    sum = summed.fill(0);
    for (const h of histograms) for (let i = 0; i < HISTOGRAM_BUCKETS; i++) summed[i]! += h[i]!;
  }
  let total = 0;
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) total += sum[i]!;
  const values = new Array<number>(qs.length).fill(0);
  if (total === 0) return values;
  let bucket = 0;
  let seen = sum[0]!;
  for (const [i, q] of qs.entries()) {
    const rank = Math.max(1, Math.ceil(q * total));
    while (seen < rank && bucket < HISTOGRAM_BUCKETS - 1) seen += sum[++bucket]!;
    values[i] = bucketValue(bucket);
  }
  return values;
}

/** The sum `histogramPercentiles` reads: one at a time, so one buffer serves. */
const summed = newHistogram();

/**
 * The bucket of a latency on a finer scale that splits each histogram bucket into `split` equal
 * log parts (`HISTOGRAM_BUCKETS * split` buckets of ratio 1.25^(1/split)), from its `logLatency`.
 * `| 0` puts a NaN latency in bucket 0, where every reader of the scale finds it again.
 */
export function fineBucketOfLog(logLatency: number, split: number): number {
  if (logLatency <= LOG_BASE) return 0;
  return Math.min(HISTOGRAM_BUCKETS * split - 1, Math.floor(((logLatency - LOG_BASE) * split) / LOG_RATIO)) | 0;
}
