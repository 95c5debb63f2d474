/**
 * What a replica publishes to its fleet every `svc.fleet.publish-interval` (docs/state.md, Fleet
 * view): its id, start, the time of publishing and its own status, and per operation the requests,
 * errors and latency histogram of its recent minutes (`svc.health.recent-minutes`), with its SLOs'
 * counts. Histograms are the 75 log buckets of src/analysis/latency-histogram.ts, sent sparse
 * (bucket, count pairs): they add up across replicas, so the fleet's percentiles are those of the
 * union of their requests, never averages of percentiles.
 *
 * Bounded: at most `limits.max-operations` operations (names up to MAX_NAME_CHARS), 75 buckets
 * each, and the SLOs configured. Decoding checks every field (a histogram must hold its count of
 * requests): a malformed or oversized summary in Redis is skipped, never trusted.
 */
import type { AnalysisEngine } from '../analysis/analysis-engine.js';
import { HISTOGRAM_BUCKETS } from '../analysis/latency-histogram.js';
import type { MinuteHistory } from '../analysis/minute-history.js';
import type { SloCounts, SloDefinition, SloType } from '../analysis/slo-tracker.js';

export const SUMMARY_VERSION = 1;
/** Operations with longer names are left out of the summary (counted). */
export const MAX_NAME_CHARS = 1024;
/** The most a summary or a minute of a replica may hold in Redis; larger ones are not read. */
export const MAX_SUMMARY_BYTES = 4 * 1024 * 1024;
export const MAX_REPLICA_ID_CHARS = 256;
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

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER;
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** The histogram of bucket, count pairs (buckets ascending) holding `total` requests, or undefined. */
function dense(pairs: unknown, total: number): Uint32Array | undefined {
  if (!Array.isArray(pairs) || pairs.length % 2 !== 0 || pairs.length > 2 * HISTOGRAM_BUCKETS) return undefined;
  const histogram = new Uint32Array(HISTOGRAM_BUCKETS);
  let sum = 0;
  let previous = -1;
  for (let i = 0; i < pairs.length; i += 2) {
    const bucket = pairs[i];
    const count = pairs[i + 1];
    if (!isCount(bucket) || bucket <= previous || bucket >= HISTOGRAM_BUCKETS || !isCount(count) || count > 0xffffffff) return undefined;
    histogram[bucket] = count;
    sum += count;
    previous = bucket;
  }
  return sum === total ? histogram : undefined;
}

function decodeOperations(rows: unknown, maxOperations: number, withFirstAt: boolean): Map<string, RecentOperation> | undefined {
  if (!Array.isArray(rows) || rows.length > maxOperations) return undefined;
  const operations = new Map<string, RecentOperation>();
  for (const row of rows) {
    if (!Array.isArray(row) || row.length !== (withFirstAt ? 5 : 4)) return undefined;
    const [name, count, errors, pairs, firstAt = 0] = row as unknown[];
    if (typeof name !== 'string' || name.length > MAX_NAME_CHARS || !isCount(count) || !isCount(errors) || errors > count || !isTime(firstAt)) return undefined;
    const histogram = dense(pairs, count);
    if (!histogram) return undefined;
    operations.set(name, { count, errors, histogram, firstAt });
  }
  return operations;
}

const MINUTE_MS = 60_000;
/**
 * Closed minutes encoded per publish at most, newest first: after an outage the backlog (up to the
 * whole history) is written over the next publishes rather than in one long piece.
 */
export const CLOSED_MINUTES_PER_PUBLISH = 2;
/** The longest a piece of a publish or a merge holds the event loop before letting others run. */
export const PIECE_MS = 1;

/** Resolves on the next turn of the event loop, after the I/O (requests, tool calls) waiting. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Splits a long task into pieces of about PIECE_MS: `if (pieces.due()) await pieces.next()`. */
export class Pieces {
  private started = performance.now();

  due(): boolean {
    return performance.now() - this.started >= PIECE_MS;
  }

  async next(): Promise<void> {
    await nextTurn();
    this.started = performance.now();
  }
}

/** `[n,c,n,c...]`: the non-empty buckets of `histogram` (plus `plus`), as JSON; one flat string, cheap to join. */
function pairsText(histogram: Uint32Array, plus?: Uint32Array): string {
  const pairs: number[] = [];
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
    const n = plus ? histogram[i]! + plus[i]! : histogram[i]!;
    if (n) pairs.push(i, n);
  }
  return `[${pairs.join(',')}]`;
}

/** What the summarizer keeps of an operation between publishes. */
interface OperationState {
  readonly nameText: string;
  /** The history's `changes` and the minute when its rows were made. */
  changes: number;
  minute: number;
  /** The sum of its closed recent minutes, as of `minute`. */
  closedCount: number;
  closedErrors: number;
  readonly closed: Uint32Array;
  /** Its row in the summary, and in the current minute ('' without traffic in it). */
  row: string;
  currentRow: string;
  /** The last minute it had traffic in (NaN until looked for). */
  lastTraffic: number;
}

/** An operation's minute copied at the snapshot, to encode in a later piece. */
interface Copied {
  readonly state: OperationState;
  readonly history: MinuteHistory;
  readonly changes: number;
  readonly firstAt: number;
  readonly count: number;
  readonly errors: number;
  readonly histogram: Uint32Array | undefined;
}

/** What a replica writes at one publish. */
export interface PublishedSummary {
  /** Its summary, encoded. */
  readonly text: string;
  readonly currentMinute: number;
  /** Minute start → the minute encoded: the current one, and closed ones not yet written. */
  readonly minutes: Map<number, string>;
}

/**
 * Builds a replica's summary at each publish, encoding straight into JSON text, in pieces of about
 * PIECE_MS between which the app runs. The summary is one snapshot at `now`: the first piece only
 * copies the current minute of each operation with requests since the last publish; later pieces
 * read closed minutes, which no request changes (MinuteHistory.minuteAt reads them by their start,
 * so a minute turning meanwhile cannot shift them), and the copies. Its own status and its SLOs'
 * counts are read in the last pieces, a few ms after `now`.
 *
 * It keeps each operation's rows: an operation without requests since the last publish (and the
 * minute not turned) is not encoded again, and the sum of its closed recent minutes is made once
 * per minute. One publish at a time (the fleet link never runs two rounds at once).
 */
export class ReplicaSummarizer {
  private readonly states = new Map<string, OperationState>();
  /** Closed minutes with traffic in some operation; every minute before `scannedTo` has been looked at. */
  private readonly closedMinutes = new Set<number>();
  /**
   * From the minute the replica started: minutes before are a previous run's, restored from the
   * state store, which that run published itself (under its id) and the fleet's history holds.
   */
  private scannedTo: number;

  constructor(
    private readonly engine: AnalysisEngine,
    private readonly id: string,
    private readonly startedAt: number,
    private readonly historyMinutes: number,
  ) {
    this.scannedTo = Math.floor(startedAt / MINUTE_MS) * MINUTE_MS;
  }

  /** The summary at `now`, and the minutes to write: the current one and closed ones not in `written`. */
  async summarize(now: number, written: ReadonlySet<number>): Promise<PublishedSummary> {
    const health = this.engine.health;
    const recentMinutes = health.recentMinutes;
    const currentMinute = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    const oldest = currentMinute - this.historyMinutes * MINUTE_MS;
    // The snapshot: one piece.
    const histories: [OperationState, MinuteHistory][] = [];
    const changed: Copied[] = [];
    let leftOut = 0;
    for (const name of health.operations()) {
      const history = health.historyFor(name);
      if (!history) continue;
      if (name.length > MAX_NAME_CHARS) {
        leftOut++;
        continue;
      }
      let state = this.states.get(name);
      if (!state) this.states.set(name, (state = newState(name)));
      histories.push([state, history]);
      if (state.minute === currentMinute && state.changes === history.changes) continue;
      const c = history.minuteAt(now, currentMinute);
      if (c) state.lastTraffic = currentMinute;
      changed.push({ state, history, changes: history.changes, firstAt: history.firstAt, count: c?.count ?? 0, errors: c?.errors ?? 0, histogram: c?.histogram.slice() });
    }

    await nextTurn();
    const pieces = new Pieces();
    for (const m of this.closedMinutes) if (m < oldest) this.closedMinutes.delete(m);
    for (let m = Math.max(this.scannedTo, oldest); m < currentMinute; m += MINUTE_MS) {
      if (pieces.due()) await pieces.next();
      if (histories.some(([, h]) => h.minuteAt(now, m))) this.closedMinutes.add(m);
    }
    this.scannedTo = Math.max(this.scannedTo, currentMinute);
    for (const c of changed) {
      if (pieces.due()) await pieces.next();
      const s = c.state;
      if (Number.isNaN(s.lastTraffic)) s.lastTraffic = lastClosedTraffic(c.history, now, currentMinute, oldest);
      if (s.minute !== currentMinute) sumClosed(s, c.history, now, currentMinute - (recentMinutes - 1) * MINUTE_MS, currentMinute);
      s.row = `[${s.nameText},${s.closedCount + c.count},${s.closedErrors + c.errors},${pairsText(s.closed, c.histogram)},${c.firstAt}]`;
      s.currentRow = c.histogram ? `[${s.nameText},${c.count},${c.errors},${pairsText(c.histogram)}]` : '';
      s.changes = c.changes;
      // Health reads the same recent minutes next: its sums are made here, in pieces, not all at once there.
      c.history.summary(now, recentMinutes);
    }
    const published = [...this.closedMinutes].sort((a, b) => a - b);
    const minutes = new Map<number, string>();
    for (const minute of published.filter((m) => !written.has(m)).slice(-CLOSED_MINUTES_PER_PUBLISH)) {
      const rows: string[] = [];
      for (const [state, history] of histories) {
        if (pieces.due()) await pieces.next();
        const c = history.minuteAt(now, minute);
        if (c) rows.push(`[${state.nameText},${c.count},${c.errors},${pairsText(c.histogram)}]`);
      }
      minutes.set(minute, `[${rows.join(',')}]`);
    }

    await pieces.next();
    const included = histories.filter(([s]) => s.lastTraffic >= oldest).map(([s]) => s);
    const currentRows = included.filter((s) => s.currentRow).map((s) => s.currentRow);
    if (currentRows.length) {
      published.push(currentMinute);
      minutes.set(currentMinute, `[${currentRows.join(',')}]`);
    }
    await pieces.next();
    const own = this.engine.healthSummary();
    await pieces.next();
    const reason = own.reasons[0]?.slice(0, MAX_REASON_CHARS);
    const head = `{"v":${SUMMARY_VERSION},"id":${JSON.stringify(this.id)},"startedAt":${this.startedAt},"seenAt":${now},"status":"${own.status}"`;
    const reasonText = reason === undefined ? '' : `,"reason":${JSON.stringify(reason)}`;
    const ops = included.map((s) => s.row).join(',');
    const text = `${head}${reasonText},"recentMinutes":${recentMinutes},"ops":[${ops}],"leftOut":${leftOut},"slos":${JSON.stringify(this.sloRows())},"minutes":${JSON.stringify(published)},"minute":${currentMinute}}`;
    return { text, currentMinute, minutes };
  }

  private sloRows() {
    const tracker = this.engine.sloTracker;
    return tracker.definitions().map((d) => {
      const c = tracker.countsOf(d.name)!;
      return {
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
      };
    });
  }
}

function newState(name: string): OperationState {
  return { nameText: JSON.stringify(name), changes: -1, minute: -1, closedCount: 0, closedErrors: 0, closed: new Uint32Array(HISTOGRAM_BUCKETS), row: '', currentRow: '', lastTraffic: Number.NaN };
}

/** The last closed minute back to `oldest` that `history` had traffic in. */
function lastClosedTraffic(history: MinuteHistory, now: number, currentMinute: number, oldest: number): number {
  for (let m = currentMinute - MINUTE_MS; m >= oldest; m -= MINUTE_MS) if (history.minuteAt(now, m)) return m;
  return Number.NEGATIVE_INFINITY;
}

/** The operation's closed minutes from `from` to `currentMinute`, summed once per minute. */
function sumClosed(state: OperationState, history: MinuteHistory, now: number, from: number, currentMinute: number): void {
  state.closed.fill(0);
  state.closedCount = 0;
  state.closedErrors = 0;
  for (let m = from; m < currentMinute; m += MINUTE_MS) {
    const counts = history.minuteAt(now, m);
    if (!counts) continue;
    state.closedCount += counts.count;
    state.closedErrors += counts.errors;
    addHistogram(state.closed, counts.histogram);
  }
  state.minute = currentMinute;
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
  if (typeof id !== 'string' || id.length > MAX_REPLICA_ID_CHARS || !isTime(startedAt) || !isTime(seenAt) || !STATUSES.includes(status as ReplicaStatus)) return undefined;
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
