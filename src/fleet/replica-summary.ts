/**
 * What a replica publishes to its fleet every `svc.fleet.publish-interval` (docs/state.md, Fleet
 * view): its id, start, the time of publishing and its own status, and per operation the requests,
 * errors and latency histogram of its recent minutes (`svc.health.recent-minutes`), with its SLOs'
 * counts. Histograms are the 75 log buckets of src/analysis/latency-histogram.ts, sent sparse
 * (bucket, count pairs): they add up across replicas, so the fleet's percentiles are those of the
 * union of their requests, never averages of percentiles.
 *
 * Bounded: at most `limits.max-operations` operations (names up to MAX_NAME_CHARS), 75 buckets
 * each, and the SLOs configured. Decoding checks every field: a malformed or oversized summary in
 * Redis is skipped, never trusted.
 */
import type { Engine } from '../analysis/engine.js';
import { HISTOGRAM_BUCKETS } from '../analysis/latency-histogram.js';
import type { MinuteCounts } from '../analysis/minute-history.js';
import type { SloCounts, SloDefinition, SloType } from '../analysis/slo-tracker.js';

export const SUMMARY_VERSION = 1;
/** Operations with longer names are left out of the summary (counted). */
export const MAX_NAME_CHARS = 1024;
/** The most a summary or a minute of a replica may hold in Redis; larger ones are not read. */
export const MAX_SUMMARY_BYTES = 4 * 1024 * 1024;
const MAX_REASON_CHARS = 200;

export type ReplicaStatus = 'HEALTHY' | 'DEGRADED' | 'CRITICAL';

/** Requests, errors and a dense latency histogram of one operation. */
export interface OperationCounts {
  readonly count: number;
  readonly errors: number;
  readonly histogram: Uint32Array;
}

/** An operation in a summary: its recent minutes, and when the replica saw its first request. */
export interface RecentOperation extends OperationCounts {
  readonly firstAt: number;
}

export interface ReplicaSlo {
  readonly definition: SloDefinition;
  readonly counts: SloCounts;
}

export interface ReplicaSummary {
  readonly id: string;
  readonly startedAt: number;
  /** When it was published (the replica's clock), epoch ms. */
  readonly seenAt: number;
  readonly status: ReplicaStatus;
  /** Its first reason, cut; absent when HEALTHY. */
  readonly reason?: string;
  readonly recentMinutes: number;
  /** Every operation it tracks, over its recent minutes (none: 0 requests). */
  readonly operations: ReadonlyMap<string, RecentOperation>;
  /** Operations it tracks but left out (names too long). */
  readonly leftOut: number;
  readonly slos: readonly ReplicaSlo[];
  /** The minutes of its history it published (src/fleet/fleet-history.ts), and the current one. */
  readonly minutes: readonly number[];
  readonly currentMinute: number;
}

/** One minute of a replica's history: per operation, requests, errors and histogram. */
export type ReplicaMinute = ReadonlyMap<string, OperationCounts>;

export function addHistogram(into: Uint32Array, from: Uint32Array): void {
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) into[i]! += from[i]!;
}

/** Bucket, count pairs of the non-empty buckets. */
function sparse(histogram: Uint32Array): number[] {
  const pairs: number[] = [];
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) if (histogram[i]) pairs.push(i, histogram[i]!);
  return pairs;
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER;
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

function dense(pairs: unknown): Uint32Array | undefined {
  if (!Array.isArray(pairs) || pairs.length % 2 !== 0 || pairs.length > 2 * HISTOGRAM_BUCKETS) return undefined;
  const histogram = new Uint32Array(HISTOGRAM_BUCKETS);
  for (let i = 0; i < pairs.length; i += 2) {
    const bucket = pairs[i];
    const count = pairs[i + 1];
    if (!isCount(bucket) || bucket >= HISTOGRAM_BUCKETS || !isCount(count) || count > 0xffffffff) return undefined;
    histogram[bucket] = count;
  }
  return histogram;
}

/** `[name, requests, errors, sparse histogram]`, with `firstAt` in a summary's rows. */
type OperationRow = [string, number, number, number[]] | [string, number, number, number[], number];

function operationRows(entries: Iterable<[string, RecentOperation]>): OperationRow[] {
  return [...entries].map(([name, c]) => [name, c.count, c.errors, sparse(c.histogram), c.firstAt]);
}

function decodeOperations(rows: unknown, maxOperations: number, withFirstAt: boolean): Map<string, RecentOperation> | undefined {
  if (!Array.isArray(rows) || rows.length > maxOperations) return undefined;
  const operations = new Map<string, RecentOperation>();
  for (const row of rows) {
    if (!Array.isArray(row) || row.length !== (withFirstAt ? 5 : 4)) return undefined;
    const [name, count, errors, pairs, firstAt = 0] = row as unknown[];
    const histogram = dense(pairs);
    if (typeof name !== 'string' || name.length > MAX_NAME_CHARS || !isCount(count) || !isCount(errors) || errors > count || !histogram || !isTime(firstAt)) return undefined;
    operations.set(name, { count, errors, histogram, firstAt });
  }
  return operations;
}

/** Per operation, the sum of `minutes` (a history's minutes with traffic). */
export function sumMinutes(minutes: readonly MinuteCounts[]): OperationCounts {
  const histogram = new Uint32Array(HISTOGRAM_BUCKETS);
  let count = 0;
  let errors = 0;
  for (const m of minutes) {
    count += m.count;
    errors += m.errors;
    addHistogram(histogram, m.histogram);
  }
  return { count, errors, histogram };
}

const MINUTE_MS = 60_000;

/**
 * This replica's summary and the minutes of its history to write, encoded: the current one, and
 * each past minute not yet written since it closed (`written`), read from its engine at `now`.
 */
export function summarizeReplica(
  engine: Engine,
  id: string,
  startedAt: number,
  now: number,
  historyMinutes: number,
  written: ReadonlySet<number>,
): { summary: ReplicaSummary; minutes: Map<number, string> } {
  const health = engine.health;
  const recentMinutes = health.recentMinutes;
  const currentMinute = Math.floor(now / MINUTE_MS) * MINUTE_MS;
  const operations = new Map<string, RecentOperation>();
  const rows = new Map<number, OperationRow[]>();
  const published = new Set<number>();
  let leftOut = 0;
  for (const name of health.operations()) {
    const history = health.historyFor(name);
    if (!history) continue;
    if (name.length > MAX_NAME_CHARS) {
      leftOut++;
      continue;
    }
    const all = history.minuteCounts(now, historyMinutes + 1);
    if (all.length === 0) continue;
    const recentFrom = currentMinute - (recentMinutes - 1) * MINUTE_MS;
    const recent = all.filter((m) => m.minuteStart >= recentFrom);
    operations.set(name, { ...sumMinutes(recent), firstAt: history.firstAt });
    for (const m of all) {
      published.add(m.minuteStart);
      if (written.has(m.minuteStart)) continue;
      let minute = rows.get(m.minuteStart);
      if (!minute) rows.set(m.minuteStart, (minute = []));
      minute.push([name, m.count, m.errors, sparse(m.histogram)]);
    }
  }
  const own = engine.healthSummary();
  const slos = engine.sloTracker.definitions().map((definition) => ({ definition, counts: engine.sloTracker.countsOf(definition.name)! }));
  const summary: ReplicaSummary = {
    id,
    startedAt,
    seenAt: now,
    status: own.status,
    ...(own.reasons[0] !== undefined && { reason: own.reasons[0].slice(0, MAX_REASON_CHARS) }),
    recentMinutes,
    operations,
    leftOut,
    slos,
    minutes: [...published].sort((a, b) => a - b),
    currentMinute,
  };
  return { summary, minutes: new Map([...rows].map(([minute, r]) => [minute, JSON.stringify(r)])) };
}

export function encodeSummary(summary: ReplicaSummary): string {
  return JSON.stringify({
    v: SUMMARY_VERSION,
    id: summary.id,
    startedAt: summary.startedAt,
    seenAt: summary.seenAt,
    status: summary.status,
    reason: summary.reason,
    recentMinutes: summary.recentMinutes,
    ops: operationRows(summary.operations),
    leftOut: summary.leftOut,
    slos: summary.slos.map(({ definition: d, counts: c }) => ({
      name: d.name,
      op: d.operationName,
      type: d.type,
      target: d.target,
      thresholdMs: d.latencyThresholdMs,
      windowMs: d.windowMs,
      minEvents: d.minEvents,
      total: c.total,
      bad: c.bad,
      windowEvents: c.windowEvents,
      observedMs: c.observedMs,
      burn: [...c.burn.fiveMinutes, ...c.burn.thirtyMinutes, ...c.burn.oneHour, ...c.burn.sixHours],
    })),
    minutes: summary.minutes,
    minute: summary.currentMinute,
  });
}

export function decodeMinute(text: string, maxOperations: number): ReplicaMinute | undefined {
  if (text.length > MAX_SUMMARY_BYTES) return undefined;
  try {
    return decodeOperations(JSON.parse(text), maxOperations, false);
  } catch {
    return undefined;
  }
}

const SLO_TYPES: readonly SloType[] = ['AVAILABILITY', 'LATENCY_P99'];
const STATUSES: readonly ReplicaStatus[] = ['HEALTHY', 'DEGRADED', 'CRITICAL'];
const MAX_SLOS = 1000;

function decodeSlo(raw: unknown): ReplicaSlo | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const s = raw as Record<string, unknown>;
  const burn = s.burn;
  if (typeof s.name !== 'string' || s.name.length > MAX_NAME_CHARS || typeof s.op !== 'string' || s.op.length > MAX_NAME_CHARS) return undefined;
  if (!SLO_TYPES.includes(s.type as SloType) || typeof s.target !== 'number' || !(s.target > 0 && s.target < 1)) return undefined;
  if (!isCount(s.total) || !isCount(s.bad) || !isTime(s.windowEvents) || !isTime(s.observedMs)) return undefined;
  if (!Array.isArray(burn) || burn.length !== 8 || !burn.every(isCount)) return undefined;
  if ((s.thresholdMs !== undefined && !isTime(s.thresholdMs)) || (s.windowMs !== undefined && !isTime(s.windowMs)) || (s.minEvents !== undefined && !isCount(s.minEvents))) return undefined;
  const b = burn as number[];
  return {
    definition: {
      name: s.name,
      operationName: s.op,
      type: s.type as SloType,
      target: s.target,
      ...(s.thresholdMs !== undefined && { latencyThresholdMs: s.thresholdMs as number }),
      ...(s.windowMs !== undefined && { windowMs: s.windowMs as number }),
      ...(s.minEvents !== undefined && { minEvents: s.minEvents as number }),
    },
    counts: {
      total: s.total,
      bad: s.bad,
      windowEvents: s.windowEvents,
      observedMs: s.observedMs,
      burn: { fiveMinutes: [b[0]!, b[1]!], thirtyMinutes: [b[2]!, b[3]!], oneHour: [b[4]!, b[5]!], sixHours: [b[6]!, b[7]!] },
    },
  };
}

/** A summary read from Redis, or undefined when it is not one this svc wrote (or is larger than allowed). */
export function decodeSummary(text: string, maxOperations: number): ReplicaSummary | undefined {
  if (text.length > MAX_SUMMARY_BYTES) return undefined;
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null || raw.v !== SUMMARY_VERSION) return undefined;
  const { id, startedAt, seenAt, status, reason, recentMinutes, leftOut, minutes, minute } = raw;
  if (typeof id !== 'string' || id.length > 256 || !isTime(startedAt) || !isTime(seenAt) || !STATUSES.includes(status as ReplicaStatus)) return undefined;
  if ((reason !== undefined && (typeof reason !== 'string' || reason.length > MAX_REASON_CHARS)) || !isCount(recentMinutes) || !isCount(leftOut) || !isTime(minute)) return undefined;
  if (!Array.isArray(minutes) || minutes.length > 1441 || !minutes.every(isTime)) return undefined;
  const operations = decodeOperations(raw.ops, maxOperations, true);
  if (!operations || !Array.isArray(raw.slos) || raw.slos.length > MAX_SLOS) return undefined;
  const slos = raw.slos.map(decodeSlo);
  if (slos.some((s) => s === undefined)) return undefined;
  return {
    id,
    startedAt,
    seenAt,
    status: status as ReplicaStatus,
    ...(reason !== undefined && { reason: reason as string }),
    recentMinutes,
    operations,
    leftOut,
    slos: slos as ReplicaSlo[],
    minutes: minutes as number[],
    currentMinute: minute,
  };
}
