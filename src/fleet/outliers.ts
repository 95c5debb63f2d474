/**
 * The outlier rule: one replica is bad while the rest of the fleet is fine. For each operation a
 * replica serves, it is compared with the union of the other replicas' requests over the recent
 * minutes (their histograms summed, so "the rest" is one population, not an average of
 * replicas). Both sides need MIN_REQUESTS requests, so a handful of requests names no one. The
 * replica is an outlier on the operation when
 * - its error rate is at least ERROR_RATE_GAP (10 points) above the rest's and at least twice it, or
 * - its p99 is at least LATENCY_FACTOR (2x) the rest's and LATENCY_GAP_MS (10 ms) above it (the
 *   histogram reads within +-12 %, so 2x is never bucket noise), and at least SLOW_SHARE (10 %) of
 *   its requests are that slow: a tail of its own, not one or two stragglers (with few requests a
 *   p99 is the slowest request).
 */
import { bucketValue, HISTOGRAM_BUCKETS, percentileOfCounted } from '../analysis/latency-histogram.js';
import { type OperationCounts, Pieces } from './replica-summary.js';

export const MIN_REQUESTS = 20;
export const ERROR_RATE_GAP = 0.1;
export const LATENCY_FACTOR = 2;
export const LATENCY_GAP_MS = 10;
export const SLOW_SHARE = 0.1;
/** Reasons kept per outlier replica, worst first. */
const MAX_REASONS = 3;

export interface OutlierReason {
  readonly operation: string;
  readonly kind: 'errors' | 'latency';
  /** This replica's error rate or p99 (ms)... */
  readonly value: number;
  /** ...against the rest of the fleet's. */
  readonly rest: number;
  readonly requests: number;
  readonly restRequests: number;
}

export interface Outlier {
  readonly replica: string;
  /** Worst first (by how far above the rest), at most three. */
  readonly reasons: readonly OutlierReason[];
  /** Operations it is an outlier on, all of them. */
  readonly operations: number;
}

const ms = (v: number): string => `${v < 10 ? v.toFixed(1) : Math.round(v)}ms`;
const pct = (v: number): string => `${(v * 100).toFixed(1)}%`;

/** `OUTLIER: POST /orders error rate 45.0% vs 0.5% on the other replicas (120 vs 230 requests)`, with how many more operations; `shown` lays names out. */
export function outlierText(outlier: Outlier, shown: (name: string) => string = (name) => name): string {
  const reasons = outlier.reasons.map((r) => outlierReasonText({ ...r, operation: shown(r.operation) }));
  const more = outlier.operations - new Set(outlier.reasons.map((r) => r.operation)).size;
  return `OUTLIER: ${reasons.join('; ')}${more > 0 ? `; and ${more} more operation${more === 1 ? '' : 's'}` : ''}`;
}

/** `POST /orders error rate 45.0% vs 0.5% on the other replicas (120 vs 230 requests)`. */
export function outlierReasonText(r: OutlierReason): string {
  const figures = r.kind === 'errors' ? `error rate ${pct(r.value)} vs ${pct(r.rest)}` : `p99 ${ms(r.value)} vs ${ms(r.rest)}`;
  return `${r.operation} ${figures} on the other replicas (${r.requests} vs ${r.restRequests} requests)`;
}

const BUCKET_VALUES = Array.from({ length: HISTOGRAM_BUCKETS }, (_, i) => bucketValue(i));

/** Requests of `histogram` in buckets read as slower than `ms`. */
function slowerThan(histogram: Uint32Array, ms: number): number {
  let count = 0;
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) if (BUCKET_VALUES[i]! >= ms) count += histogram[i]!;
  return count;
}

/**
 * Outlier replicas among `replicas` (id → operation → its recent counts), given the fleet's sum per
 * operation, each histogram holding its count of requests (decodeSummary checks it). At least two
 * replicas must serve an operation for anyone to be named on it. Runs in `pieces`.
 */
export async function findOutliers(replicas: ReadonlyMap<string, ReadonlyMap<string, OperationCounts>>, fleet: ReadonlyMap<string, OperationCounts>, pieces = new Pieces()): Promise<Outlier[]> {
  const outliers: Outlier[] = [];
  const rest = new Uint32Array(HISTOGRAM_BUCKETS);
  for (const [replica, operations] of replicas) {
    const reasons: (OutlierReason & { score: number })[] = [];
    for (const [operation, own] of operations) {
      if (pieces.due()) await pieces.next();
      const all = fleet.get(operation);
      if (!all || own.count < MIN_REQUESTS) continue;
      const restCount = all.count - own.count;
      if (restCount < MIN_REQUESTS) continue;
      const errorRate = own.errors / own.count;
      const restErrorRate = (all.errors - own.errors) / restCount;
      if (errorRate - restErrorRate >= ERROR_RATE_GAP && errorRate >= 2 * restErrorRate) {
        reasons.push({ operation, kind: 'errors', value: errorRate, rest: restErrorRate, requests: own.count, restRequests: restCount, score: errorRate - restErrorRate });
      }
      for (let i = 0; i < HISTOGRAM_BUCKETS; i++) rest[i] = all.histogram[i]! - own.histogram[i]!;
      // Walked down from the slowest bucket: the buckets below the p99 are never read.
      const p99 = percentileOfCounted(own.histogram, own.count, 0.99);
      const restP99 = percentileOfCounted(rest, restCount, 0.99);
      if (p99 >= LATENCY_FACTOR * restP99 && p99 - restP99 >= LATENCY_GAP_MS && slowerThan(own.histogram, LATENCY_FACTOR * restP99) >= SLOW_SHARE * own.count) {
        reasons.push({ operation, kind: 'latency', value: p99, rest: restP99, requests: own.count, restRequests: restCount, score: p99 / restP99 - 1 });
      }
    }
    if (reasons.length === 0) continue;
    reasons.sort((a, b) => b.score - a.score);
    outliers.push({
      replica,
      reasons: reasons.slice(0, MAX_REASONS).map(({ score: _, ...r }) => r),
      operations: new Set(reasons.map((r) => r.operation)).size,
    });
  }
  return outliers;
}
