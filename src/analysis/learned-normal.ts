/**
 * What an operation's latency and error rate normally are, learned over hours: the long memory
 * that patterns, health, incidents and verification judge against (docs/analysis.md, Baselines).
 *
 * Traffic is gathered in periods (`periodMs`, 10 s). A period waits `probationPeriods` periods
 * before it is learned, so a fault found only after a minute of evidence is still kept out: when
 * the operation's window finds a fault, every waiting period from its onset is tainted. An
 * untainted period is then folded into the learned histogram, which forgets with time constant
 * `horizonMs` (hours); a tainted one goes to the held evidence instead. A fault therefore never
 * becomes normal while it lasts: only when it has been seen for `acceptAfterMs` of traffic (time
 * without requests, or after the fault stopped, does not count) and is still seen does the held
 * evidence become the new normal (or when an agent resets the baseline); never an error rate of
 * `maxAcceptedErrorRate` or more (an outage stays one).
 *
 * The histogram is latency-histogram.ts's log scale (75 buckets, ratio 1.25), weighted; percentiles
 * interpolate within a bucket. Per span: one bucket increment and three additions. Learned state
 * is a record of about 1.4 KB for the state store (`toRecord`, `mergeRecord`).
 */
import { HISTOGRAM_BUCKETS } from './latency-histogram.js';

const BASE_MS = 0.01;
const LOG_BASE = Math.log(BASE_MS);
const LOG_RATIO = Math.log(1.25);

// Per histogram: 75 bucket weights, then these sums.
const COUNT = HISTOGRAM_BUCKETS;
const ERRORS = COUNT + 1;
const LOG_SUM = COUNT + 2;
const LOG_SQUARES = COUNT + 3;
const WIDTH = COUNT + 4;
/** A period's bucket counts saturate here (Uint16): 6,500 requests a second per operation. */
const MAX_PERIOD_COUNT = 65_535;

export const NORMAL_RECORD_VERSION = 1;

export interface NormalRules {
  /** How long the learned histogram remembers: its time constant (svc.baselines.horizon). */
  readonly horizonMs: number;
  /** A deviation lasting this long becomes the new normal (svc.baselines.accept-after). */
  readonly acceptAfterMs: number;
  readonly periodMs: number;
  /** Periods that wait before they are learned (the current one included). */
  readonly probationPeriods: number;
  /** Samples a normal needs before it judges anything. */
  readonly minSamples: number;
  /** Traffic before this (the process's cold-start window) is never learned. */
  readonly learnFromMs: number;
  /** Held evidence failing this much is never accepted as normal (the outage error rate). */
  readonly maxAcceptedErrorRate: number;
}

/** How a waiting period is tainted (0: not at all): in the settling after a fault, or by the fault itself. */
const SETTLING = 1;
const FAULT = 2;

/** Where an operation's normal stands, for the tools (a class for the reason OperationHealth gives: each health read makes one per operation). */
export class NormalState {
  constructor(
    /** Samples learned (decayed) plus those waiting in probation. */
    readonly samples: number,
    /** How long the learned part covers, at most the horizon; 0 while nothing was learned yet. */
    readonly learnedOverMs: number,
    /** Since when a deviation has kept the normal from learning; undefined while it learns. */
    readonly frozenSince: number | undefined,
    /** When the deviation becomes the new normal if it lasts; undefined while it learns. */
    readonly acceptAt: number | undefined,
  ) {}
}

/**
 * The normal figures a window is judged against: the learned histogram plus the untainted
 * periods in probation that ended before the judged window began. One scratch object serves every
 * operation's judging (it is read before the next is built).
 */
export class NormalReference {
  readonly weights = new Float64Array(WIDTH);
  samples = 0;

  get errorRate(): number {
    return this.weights[ERRORS]! / this.samples;
  }

  get meanLog(): number {
    return this.weights[LOG_SUM]! / this.samples;
  }

  /** Standard deviation of log latency (at least 0.05: a perfectly steady operation is not infinitely sure). */
  get sigmaLog(): number {
    const mean = this.meanLog;
    return Math.max(0.05, Math.sqrt(Math.max(0, this.weights[LOG_SQUARES]! / this.samples - mean * mean)));
  }

  percentile(q: number): number {
    return percentileOf(this.weights, q);
  }

  /** The share of normal requests slower than `ms`. */
  shareAbove(ms: number): number {
    const w = this.weights;
    const total = w[COUNT]!;
    if (!(total > 0)) return 0;
    const position = (Math.log(ms) - LOG_BASE) / LOG_RATIO;
    if (position <= 0) return 1;
    const bucket = Math.floor(position);
    if (bucket >= HISTOGRAM_BUCKETS) return 0;
    let above = w[bucket]! * (1 - (position - bucket));
    for (let i = bucket + 1; i < HISTOGRAM_BUCKETS; i++) above += w[i]!;
    return Math.min(1, above / total);
  }
}

/** Nearest-rank percentile of a weighted histogram, interpolated geometrically within its bucket. */
function percentileOf(w: Float64Array, q: number): number {
  const total = w[COUNT]!;
  if (!(total > 0)) return 0;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
    const weight = w[i]!;
    if (weight > 0 && seen + weight >= rank) return BASE_MS * Math.exp(LOG_RATIO * (i + Math.min(1, Math.max(0, (rank - seen) / weight))));
    seen += weight;
  }
  return BASE_MS * Math.exp(LOG_RATIO * HISTOGRAM_BUCKETS);
}

export class LearnedNormal {
  /** The learned histogram, decayed to `learnedAt`. */
  private readonly learned = new Float64Array(WIDTH);
  private learnedAt = Number.NaN;
  private firstLearnedAt = Number.NaN;
  /** Tainted periods of the current deviation, decayed to `heldAt`. */
  private readonly held = new Float64Array(WIDTH);
  private heldAt = Number.NaN;
  private heldSince = Number.NaN;
  /** How long the held fault was seen, in periods with traffic: what acceptance counts. */
  private heldForMs = 0;
  private acceptedAt = Number.NaN;
  /** Whether what is kept as a record changed since `takeChanged` (learned, held or accepted). */
  private changed = false;
  /** Start of the run of expired periods with traffic and no fault that goes on to the newest expired one; NaN after a faulty one. */
  private normalRunSince = Number.NaN;
  private readonly periodCounts: Uint16Array;
  private readonly periodSums: Float64Array;
  private readonly periodStart: Float64Array;
  private readonly periodTainted: Uint8Array;
  private current = 0;
  private currentEnd = Number.NEGATIVE_INFINITY;
  /** The periods a reference takes, oldest first, and how many are added so far (see `referenceBefore`). */
  private readonly referenceOrder: Int32Array;
  private referenceCount = 0;
  private referenced = 0;

  constructor(private readonly rules: NormalRules) {
    const periods = rules.probationPeriods;
    this.periodCounts = new Uint16Array(periods * HISTOGRAM_BUCKETS);
    this.periodSums = new Float64Array(periods * 4);
    this.periodStart = new Float64Array(periods).fill(Number.NaN);
    this.periodTainted = new Uint8Array(periods);
    this.referenceOrder = new Int32Array(periods);
  }

  /**
   * One request; `log` is `logLatency(latencyMs)`. A latency that is not a number is left out; so
   * is a request whose latency bucket already holds MAX_PERIOD_COUNT in this period (6,500 a second
   * in one bucket), so the period's counts and sums stay the same requests.
   */
  add(nowMs: number, log: number, isError: boolean): void {
    if (Number.isNaN(log)) return;
    if (nowMs >= this.currentEnd) this.rollTo(nowMs);
    const bucket = log <= LOG_BASE ? 0 : Math.min(HISTOGRAM_BUCKETS - 1, Math.floor((log - LOG_BASE) / LOG_RATIO));
    const at = this.current * HISTOGRAM_BUCKETS + bucket;
    if (this.periodCounts[at]! >= MAX_PERIOD_COUNT) return;
    this.periodCounts[at]!++;
    const sums = this.current * 4;
    const s = this.periodSums;
    s[sums]!++;
    if (isError) s[sums + 1]!++;
    s[sums + 2] += log;
    s[sums + 3] += log * log;
  }

  /**
   * A fault was found that began at `fromMs` (`settling`: one ended then, and the operation has
   * not been back for long): the waiting periods from then on (and the current one) will not be
   * learned. Only periods the fault itself was seen in count towards its acceptance.
   */
  taint(fromMs: number, settling = false): void {
    const { periodMs, probationPeriods } = this.rules;
    const kind = settling ? SETTLING : FAULT;
    for (let i = 0; i < probationPeriods; i++) if (this.periodStart[i]! + periodMs > fromMs && this.periodTainted[i]! < kind) this.periodTainted[i] = kind;
  }

  /** Forgets everything at `nowMs`: the operation learns again from its next requests (an agent's reset_baseline). */
  reset(nowMs: number): void {
    this.changed = true;
    this.learned.fill(0);
    this.held.fill(0);
    this.learnedAt = this.firstLearnedAt = this.heldAt = this.heldSince = this.normalRunSince = Number.NaN;
    this.heldForMs = 0;
    // A fault seen before the reset is over: nothing settles after it.
    this.acceptedAt = nowMs;
    this.periodCounts.fill(0);
    this.periodSums.fill(0);
    this.periodTainted.fill(0);
    this.periodStart.fill(Number.NaN);
    this.currentEnd = Number.NEGATIVE_INFINITY;
  }

  /**
   * Where the normal stands at `nowMs`: samples learned (decayed) and gathered in waiting periods
   * without a fault (the current one too: a reference takes a period once it ended), and since when.
   */
  state(nowMs: number): NormalState {
    const frozen = Number.isNaN(this.heldSince) ? this.oldestTaintedStart() : this.heldSince;
    const seenFor = this.faultSeenForMs();
    let samples = this.learned[COUNT]!;
    let since = this.firstLearnedAt;
    for (let i = 0; i < this.rules.probationPeriods; i++) {
      if (this.periodTainted[i] || !this.learnable(i)) continue;
      samples += this.periodSums[i * 4]!;
      if (!(since <= this.periodStart[i]!)) since = this.periodStart[i]!;
    }
    return new NormalState(
      Math.round(samples),
      Number.isNaN(since) ? 0 : Math.min(this.rules.horizonMs, Math.max(0, nowMs - since)),
      frozen,
      frozen === undefined ? undefined : nowMs + Math.max(0, this.rules.acceptAfterMs - seenFor),
    );
  }

  /**
   * Since when the operation's traffic right before `atMs` was normal (periods with requests, no
   * fault, past the warm-up), back to the last fault this process saw; undefined when the period
   * just before was faulty or in the warm-up, or there was no traffic. Incidents read it to tell a
   * fault that began with a change from one that came after a stretch of normal traffic.
   */
  normalSince(atMs: number): number | undefined {
    const { periodMs, probationPeriods } = this.rules;
    let since: number | undefined;
    // Newest first among the waiting periods that ended by `atMs` (a dozen: a scan per step, nothing allocated).
    for (let before = atMs; ; ) {
      let slot = -1;
      for (let i = 0; i < probationPeriods; i++) {
        const end = this.periodStart[i]! + periodMs;
        if (end <= before && this.periodSums[i * 4]! > 0 && (slot < 0 || this.periodStart[i]! > this.periodStart[slot]!)) slot = i;
      }
      if (slot < 0) break;
      if (this.periodTainted[slot] || !this.learnable(slot)) return since;
      since = this.periodStart[slot]!;
      before = since;
    }
    // Older than the waiting periods: the run of learned ones, if it reaches this far back.
    if (Number.isNaN(this.normalRunSince) || this.normalRunSince > (since ?? atMs)) return since;
    return this.normalRunSince;
  }

  /** Starts building references for one judging: call `referenceBefore` with rising cutoffs. */
  beginReferences(into: NormalReference): void {
    into.weights.set(this.learned);
    into.samples = this.learned[COUNT]!;
    this.referenced = 0;
    // Insertion by start time: a dozen periods, and no array allocated per read.
    const order = this.referenceOrder;
    let count = 0;
    for (let i = 0; i < this.rules.probationPeriods; i++) {
      if (this.periodTainted[i] || !this.learnable(i)) continue;
      let at = count++;
      while (at > 0 && this.periodStart[order[at - 1]!]! > this.periodStart[i]!) {
        order[at] = order[at - 1]!;
        at--;
      }
      order[at] = i;
    }
    this.referenceCount = count;
  }

  /**
   * `into` (begun with `beginReferences`) with the waiting periods that ended by `cutoffMs` added;
   * false while it holds fewer than the minimum samples.
   */
  referenceBefore(cutoffMs: number, into: NormalReference): boolean {
    const order = this.referenceOrder;
    const w = into.weights;
    while (this.referenced < this.referenceCount) {
      const slot = order[this.referenced]!;
      if (this.periodStart[slot]! + this.rules.periodMs > cutoffMs) break;
      this.addCounts(w, slot);
      this.referenced++;
    }
    into.samples = w[COUNT]!;
    return into.samples >= this.rules.minSamples;
  }

  /**
   * The normal as a record for the state store (bounded: two lists of 79 numbers and a few times):
   * the learned part with the waiting periods that ended without a fault, so a process that stops
   * before its first periods served their probation still leaves its normal behind.
   */
  toRecord(): NormalRecord | undefined {
    const learned = Float64Array.from(this.learned);
    let learnedAt = this.learnedAt;
    let firstLearnedAt = this.firstLearnedAt;
    for (let i = 0; i < this.rules.probationPeriods; i++) {
      if (i === this.current || this.periodTainted[i] || !this.learnable(i)) continue;
      learnedAt = this.addPeriod(learned, learnedAt, i, this.periodStart[i]! + this.rules.periodMs);
      if (!(firstLearnedAt <= this.periodStart[i]!)) firstLearnedAt = this.periodStart[i]!;
    }
    if (!(learned[COUNT]! > 0)) return undefined;
    return {
      v: NORMAL_RECORD_VERSION,
      learned: Array.from(learned),
      learnedAt,
      firstLearnedAt,
      ...(this.held[COUNT]! > 0 && { held: Array.from(this.held), heldAt: this.heldAt, heldSince: this.heldSince, heldForMs: this.heldForMs }),
      ...(!Number.isNaN(this.acceptedAt) && { acceptedAt: this.acceptedAt }),
    };
  }

  /**
   * Adds a stored normal (a previous run's, or another replica's) to what this one learned: both
   * decayed to the later of their times, then summed. A deviation held in the record continues.
   */
  mergeRecord(record: NormalRecord): void {
    this.changed = true;
    this.learnedAt = mergeDecayed(this.learned, this.learnedAt, record.learned, record.learnedAt, this.rules.horizonMs);
    this.firstLearnedAt = Number.isNaN(this.firstLearnedAt) ? record.firstLearnedAt : Math.min(this.firstLearnedAt, record.firstLearnedAt);
    if (record.held && record.heldAt !== undefined && record.heldSince !== undefined) {
      this.heldAt = mergeDecayed(this.held, this.heldAt, record.held, record.heldAt, this.rules.horizonMs);
      this.heldSince = Number.isNaN(this.heldSince) ? record.heldSince : Math.min(this.heldSince, record.heldSince);
      this.heldForMs = Math.max(this.heldForMs, record.heldForMs ?? 0);
    }
    if (record.acceptedAt !== undefined && !(this.acceptedAt >= record.acceptedAt)) this.acceptedAt = record.acceptedAt;
  }

  private learnable(slot: number): boolean {
    const start = this.periodStart[slot]!;
    return start + this.rules.periodMs > this.rules.learnFromMs && this.periodSums[slot * 4]! > 0;
  }

  private oldestTaintedStart(): number | undefined {
    let oldest: number | undefined;
    for (let i = 0; i < this.rules.probationPeriods; i++) {
      if (this.periodTainted[i] && this.periodSums[i * 4]! > 0 && (oldest === undefined || this.periodStart[i]! < oldest)) oldest = this.periodStart[i]!;
    }
    return oldest;
  }

  private rollTo(nowMs: number): void {
    const { periodMs, probationPeriods } = this.rules;
    const start = Math.floor(nowMs / periodMs) * periodMs;
    if (this.currentEnd === Number.NEGATIVE_INFINITY) {
      this.periodStart[this.current] = start;
      this.currentEnd = start + periodMs;
      return;
    }
    const steps = Math.min(probationPeriods, Math.floor((nowMs - this.currentEnd) / periodMs) + 1);
    // Oldest first: each slot the ring moves into holds the period that waited longest.
    for (let i = 0; i < steps; i++) {
      this.current = (this.current + 1) % probationPeriods;
      this.expire(this.current);
    }
    this.periodStart[this.current] = start;
    this.currentEnd = start + periodMs;
    // The period that just ended is in the record now (toRecord).
    this.changed = true;
    if (this.faultSeenForMs() >= this.rules.acceptAfterMs && this.faultStillSeen() && this.heldErrorRate() < this.rules.maxAcceptedErrorRate) this.accept(start);
  }

  /** How long the held fault was seen: its expired periods and the waiting ones with traffic. */
  private faultSeenForMs(): number {
    let ms = this.heldForMs;
    for (let i = 0; i < this.rules.probationPeriods; i++) if (this.periodTainted[i] === FAULT && this.learnable(i)) ms += this.rules.periodMs;
    return ms;
  }

  /** Whether the newest ended period with traffic saw the fault. */
  private faultStillSeen(): boolean {
    let newest = -1;
    for (let i = 0; i < this.rules.probationPeriods; i++) {
      if (i !== this.current && this.learnable(i) && (newest < 0 || this.periodStart[i]! > this.periodStart[newest]!)) newest = i;
    }
    return newest >= 0 && this.periodTainted[newest] === FAULT;
  }

  /** The error rate of what acceptance would make normal: the held evidence and the waiting fault periods. */
  private heldErrorRate(): number {
    let count = this.held[COUNT]!;
    let errors = this.held[ERRORS]!;
    for (let i = 0; i < this.rules.probationPeriods; i++) {
      if (this.periodTainted[i] !== FAULT || !this.learnable(i)) continue;
      count += this.periodSums[i * 4]!;
      errors += this.periodSums[i * 4 + 1]!;
    }
    return count > 0 ? errors / count : 0;
  }

  /** The period in `slot` has waited its probation: learned, held, or (in the cold-start window) dropped; the slot is cleared. */
  private expire(slot: number): void {
    if (this.learnable(slot)) {
      if (this.periodTainted[slot]) this.normalRunSince = Number.NaN;
      else if (Number.isNaN(this.normalRunSince)) this.normalRunSince = this.periodStart[slot]!;
    }
    if (this.learnable(slot)) {
      const end = this.periodStart[slot]! + this.rules.periodMs;
      if (this.periodTainted[slot]) {
        if (Number.isNaN(this.heldSince)) this.heldSince = this.periodStart[slot]!;
        if (this.periodTainted[slot] === FAULT) this.heldForMs += this.rules.periodMs;
        this.heldAt = this.fold(this.held, this.heldAt, slot, end);
      } else {
        this.learnedAt = this.fold(this.learned, this.learnedAt, slot, end);
        if (Number.isNaN(this.firstLearnedAt)) this.firstLearnedAt = this.periodStart[slot]!;
        // Back to normal: the deviation ended before it was accepted.
        this.held.fill(0);
        this.heldAt = this.heldSince = Number.NaN;
        this.heldForMs = 0;
      }
    }
    this.periodCounts.fill(0, slot * HISTOGRAM_BUCKETS, (slot + 1) * HISTOGRAM_BUCKETS);
    this.periodSums.fill(0, slot * 4, slot * 4 + 4);
    this.periodTainted[slot] = 0;
    this.periodStart[slot] = Number.NaN;
  }

  /**
   * The deviation lasted `acceptAfterMs`: what was held, with the periods of it still waiting, is
   * normal from now on; nothing waiting is tainted any more.
   */
  private accept(atMs: number): void {
    const since = Number.isNaN(this.heldSince) ? (this.oldestTaintedStart() ?? atMs) : this.heldSince;
    for (let slot = 0; slot < this.rules.probationPeriods; slot++) {
      if (slot === this.current || !this.periodTainted[slot] || !this.learnable(slot)) continue;
      this.heldAt = this.fold(this.held, this.heldAt, slot, this.periodStart[slot]! + this.rules.periodMs);
      this.periodCounts.fill(0, slot * HISTOGRAM_BUCKETS, (slot + 1) * HISTOGRAM_BUCKETS);
      this.periodSums.fill(0, slot * 4, slot * 4 + 4);
      this.periodStart[slot] = Number.NaN;
    }
    this.periodTainted.fill(0);
    this.learned.set(this.held);
    this.learnedAt = this.heldAt;
    this.firstLearnedAt = since;
    this.acceptedAt = atMs;
    this.held.fill(0);
    this.heldAt = this.heldSince = Number.NaN;
    this.heldForMs = 0;
  }

  /** Whether a deviation became the new normal after `ms`: what tainted the periods before is over. */
  acceptedAfter(ms: number): boolean {
    return this.acceptedAt > ms;
  }

  /** Whether the record changed since the last call (and from now on, not). */
  takeChanged(): boolean {
    const changed = this.changed;
    this.changed = false;
    return changed;
  }

  /** Decays `into` (as of `at`) to `endMs` and adds the period in `slot`; returns the new time. */
  private fold(into: Float64Array, at: number, slot: number, endMs: number): number {
    this.changed = true;
    return this.addPeriod(into, at, slot, endMs);
  }

  /** `fold` without marking the record changed (a copy's). */
  private addPeriod(into: Float64Array, at: number, slot: number, endMs: number): number {
    if (!Number.isNaN(at) && endMs > at) {
      const factor = Math.exp(-(endMs - at) / this.rules.horizonMs);
      for (let i = 0; i < WIDTH; i++) into[i]! *= factor;
    }
    this.addCounts(into, slot);
    return Number.isNaN(at) ? endMs : Math.max(at, endMs);
  }

  /** Adds the period in `slot`'s bucket counts and sums to `into`. */
  private addCounts(into: Float64Array, slot: number): void {
    const counts = slot * HISTOGRAM_BUCKETS;
    for (let b = 0; b < HISTOGRAM_BUCKETS; b++) into[b]! += this.periodCounts[counts + b]!;
    const sums = slot * 4;
    into[COUNT]! += this.periodSums[sums]!;
    into[ERRORS]! += this.periodSums[sums + 1]!;
    into[LOG_SUM]! += this.periodSums[sums + 2]!;
    into[LOG_SQUARES]! += this.periodSums[sums + 3]!;
  }
}

/** A learned normal as the state store keeps it. */
export interface NormalRecord {
  readonly v: number;
  /** 75 bucket weights, then count, errors, sum of log latency, sum of its squares. */
  readonly learned: readonly number[];
  readonly learnedAt: number;
  readonly firstLearnedAt: number;
  readonly held?: readonly number[];
  readonly heldAt?: number;
  readonly heldSince?: number;
  /** How long the held fault was seen (periods with traffic); records before it count it as 0. */
  readonly heldForMs?: number;
  readonly acceptedAt?: number;
}

/** The number of values in a record's `learned` and `held`. */
export const NORMAL_RECORD_WIDTH = WIDTH;

/** Decays `into` (as of `at`) and `other` (as of `otherAt`) to the later time and adds them; returns that time. */
function mergeDecayed(into: Float64Array, at: number, other: readonly number[], otherAt: number, horizonMs: number): number {
  if (Number.isNaN(at)) {
    into.set(other);
    return otherAt;
  }
  const later = Math.max(at, otherAt);
  const mine = Math.exp(-(later - at) / horizonMs);
  const theirs = Math.exp(-(later - otherAt) / horizonMs);
  for (let i = 0; i < WIDTH; i++) into[i] = into[i]! * mine + other[i]! * theirs;
  return later;
}
