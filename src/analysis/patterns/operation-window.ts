/**
 * One operation's recent traffic in one-second buckets, judged as fast as the evidence allows
 * (docs/analysis.md, Incident patterns). Each closed bucket is judged over a ladder of horizons
 * (3, 6, 12, 24, 48 and 96 s by default), each split in three equal thirds: a verdict holds at a
 * horizon when the whole of it holds `minSamples` requests, deviates from the operation's normal
 * beyond chance, and so does every third. "Beyond chance" is a Chernoff bound on the binomial
 * tail: n x KL(observed share || normal share) >= `minSurprise` (natural log units; the default
 * 21 is a chance below 1e-9 per judging), valid at any count, so ten requests need a far larger
 * deviation than ten thousand. A stall shared by the requests in flight (a GC pause, an
 * event-loop block, up to about 1.5 s) ends in one or two buckets, so it never makes every third
 * of any horizon deviate; a lasting change does, first at the shortest horizon its size and the traffic
 * allow: a 5x slowdown at 50 req/s in 3 s, a 2x one at 1 req/s in a minute or two.
 *
 * - latency (degraded): in every third, at least half the requests are slower than
 *   `degradationFactor` x the normal p50 (its median is above that), and over the horizon that
 *   share is beyond chance against the normal share of such requests.
 * - slow (memory_leak's slowness): every third's typical latency (geometric mean) at least
 *   `slowFactor` x the normal p50 and `minLatencyDeviationMs` above it.
 * - errors (failing): the error rate exceeds the normal one by more than `errorRateExcess` over
 *   the horizon and by half that in every third, beyond chance (the normal rate floored at
 *   `errorRateFloor`, so one error against a clean history is no spike), over horizons
 *   of 6 s or more: a burst of failures shorter than two seconds (a dependency's blip) never
 *   touches all three thirds.
 * - outage: at least `outageErrorRate` of the requests fail in every third, beyond chance against
 *   the floor alone, with or without a normal and whatever it learned.
 *
 * Per span: a comparison, four additions. Judging (once per closed bucket) walks the ring once.
 */
export interface WindowRules {
  readonly bucketMs: number;
  /** Horizons in buckets, ascending, each a multiple of 3. */
  readonly horizons: readonly number[];
  readonly minSamples: number;
}

/** Thresholds of the verdicts, shared by the windows of one matcher. */
export interface WindowThresholds {
  readonly degradationFactor: number;
  readonly slowFactor: number;
  readonly minLatencyDeviationMs: number;
  readonly errorRateExcess: number;
  readonly errorRateFloor: number;
  readonly outageErrorRate: number;
  /** How unlikely by chance a deviation over a horizon must be: n x KL divergence, in nats. */
  readonly minSurprise: number;
}

/** What a horizon is judged against; the matcher fills one per horizon. */
export interface WindowReference {
  /** Normal p50 (ms); undefined: no latency verdict. */
  p50Ms: number | undefined;
  /** The normal share of requests slower than the degradation threshold. */
  slowShare: number;
  /** Normal mean and spread of log latency, for the score; NaN when unknown. */
  meanLog: number;
  sigmaLog: number;
  /** Normal error rate; undefined: no error-rate verdict (the outage verdict needs none). */
  errorRate: number | undefined;
}

/** One verdict's state: since when it holds, and the horizon that showed it. */
export class Verdict {
  holds = false;
  /** When the evidence of the current verdict began (its horizon's start), epoch ms; NaN when it does not hold. */
  onsetMs = Number.NaN;
  /** The shortest horizon (ms) at which it holds. */
  horizonMs = 0;

  set(holds: boolean, onsetMs: number, horizonMs: number): void {
    if (holds && !this.holds) this.onsetMs = onsetMs;
    if (!holds) this.onsetMs = Number.NaN;
    this.holds = holds;
    this.horizonMs = holds ? horizonMs : 0;
  }
}

// Per bucket: [count, errors, slow requests, sum of log latency].
const COUNT = 0;
const ERRORS = 1;
const SLOW = 2;
const LOG_SUM = 3;
const STRIDE = 4;
/** The shortest horizon of the error-spike verdict, in buckets. */
const ERROR_MIN_BUCKETS = 6;

/** Sums of the newest k closed buckets, k = 0..longest horizon: one scratch for every window. */
let cumulative = new Float64Array(0);

export class OperationWindow {
  /** Float32: counts stay exact to 16 million a second, and a second's sum of log latencies to far below what a verdict reads. */
  private readonly data: Float32Array;
  private readonly slots: number;
  private current = 0;
  /** End of the current bucket, epoch ms. */
  private currentEnd = Number.NEGATIVE_INFINITY;
  /** A request slower than this counts as slow (degradation factor x the normal p50); Infinity while nothing is normal. */
  slowAboveMs = Number.POSITIVE_INFINITY;
  readonly degraded = new Verdict();
  readonly slowVerdict = new Verdict();
  readonly failing = new Verdict();
  readonly outage = new Verdict();
  /** The current deviation from normal on the spec's scale (min(1, |z| / 4)), over the verdict's horizon; 0 without a verdict. */
  score = 0;
  /** Since when the newest buckets (at least min-samples requests) have been mostly slow, or failing above normal, without a verdict yet; NaN when not. */
  latencyFormingSinceMs = Number.NaN;
  errorsFormingSinceMs = Number.NaN;
  /** When a deviating verdict last held, epoch ms. */
  deviatedAtMs = Number.NEGATIVE_INFINITY;
  /** An error verdict holds while the newest seconds still fail: its end, when they no longer do, is a recovery. */
  recovering = false;
  /** A bucket closed on a request recorded without detection (`PatternMatcher.recordLatency`): the next detection judges it. */
  judgePending = false;
  /** Cold-start record (first requests of a fresh process), while it matters. */
  coldStart: ColdStartRecord | undefined;

  constructor(private readonly rules: WindowRules) {
    this.slots = rules.horizons.at(-1)! + 1;
    this.data = new Float32Array(this.slots * STRIDE);
    if (cumulative.length < this.slots * STRIDE) cumulative = new Float64Array(this.slots * STRIDE);
  }

  /** Whether the window's latency verdict is the degradation pattern's (the matcher's detectors read these). */
  get slow(): boolean {
    return this.slowVerdict.holds;
  }

  /** Whether any verdict that keeps the normal from learning holds. */
  get deviates(): boolean {
    return this.degraded.holds || this.failing.holds || this.outage.holds;
  }

  /** Adds a request at `nowMs`; true when a bucket closed first (the caller then judges). */
  add(nowMs: number, log: number, latencyMs: number, isError: boolean): boolean {
    let closed = false;
    if (nowMs >= this.currentEnd) {
      this.roll(nowMs);
      closed = true;
    }
    const data = this.data;
    const at = this.current * STRIDE;
    data[at + COUNT]!++;
    // A latency that is not a number counts as a request, never in a sum it would spoil for the bucket's life.
    if (!Number.isNaN(log)) data[at + LOG_SUM] += log;
    if (isError) data[at + ERRORS]!++;
    if (latencyMs > this.slowAboveMs) data[at + SLOW]!++;
    return closed;
  }

  /** The end of the newest closed bucket: the judged horizons end there. */
  get closedEndMs(): number {
    return this.currentEnd - this.rules.bucketMs;
  }

  private roll(nowMs: number): void {
    const { bucketMs } = this.rules;
    const start = Math.floor(nowMs / bucketMs) * bucketMs;
    const steps = this.currentEnd === Number.NEGATIVE_INFINITY ? this.slots : Math.min(this.slots, Math.floor((nowMs - this.currentEnd) / bucketMs) + 1);
    for (let i = 0; i < steps; i++) {
      this.current = (this.current + 1) % this.slots;
      this.data.fill(0, this.current * STRIDE, this.current * STRIDE + STRIDE);
    }
    this.currentEnd = start + bucketMs;
  }

  /** Sums the closed buckets, newest first, into the shared scratch; called once before the horizons are judged. */
  prepare(): void {
    const data = this.data;
    const sums = cumulative;
    sums.fill(0, 0, STRIDE);
    for (let k = 1; k < this.slots; k++) {
      const slot = (this.current - k + this.slots) % this.slots;
      for (let f = 0; f < STRIDE; f++) sums[k * STRIDE + f] = sums[(k - 1) * STRIDE + f]! + data[slot * STRIDE + f]!;
    }
  }

  /** The error rate of the newest `buckets` closed buckets (after `prepare`); 0 without requests. */
  recentErrorRate(buckets: number): number {
    const at = Math.min(buckets, this.slots - 1) * STRIDE;
    const count = cumulative[at + COUNT]!;
    return count > 0 ? cumulative[at + ERRORS]! / count : 0;
  }

  /**
   * Judges the horizon of `buckets` closed buckets (after `prepare`) against `reference`; `cold`:
   * the process is warming up, so latency makes no verdict. Returns what held, with the deviation
   * in standard deviations of one request (0 when nothing holds).
   */
  judgeHorizon(buckets: number, reference: WindowReference, t: WindowThresholds, cold: boolean): HorizonVerdicts {
    const found = horizonVerdicts;
    found.degraded = found.slow = found.failing = found.outage = false;
    found.z = 0;
    const sums = cumulative;
    const third = buckets / 3;
    const last = buckets * STRIDE;
    const n = sums[last + COUNT]!;
    if (n < this.rules.minSamples) return found;
    let everyThirdSlow = true;
    let everyThirdTypical = true;
    let everyThirdFailing = true;
    let everyThirdOut = true;
    const base = reference.errorRate;
    for (let s = 0; s < 3; s++) {
      const from = s * third;
      const to = from + third;
      const count = sums[to * STRIDE + COUNT]! - sums[from * STRIDE + COUNT]!;
      if (count === 0) return found;
      const errors = (sums[to * STRIDE + ERRORS]! - sums[from * STRIDE + ERRORS]!) / count;
      if ((sums[to * STRIDE + SLOW]! - sums[from * STRIDE + SLOW]!) / count < 0.5) everyThirdSlow = false;
      if (reference.p50Ms !== undefined) {
        const typical = Math.exp((sums[to * STRIDE + LOG_SUM]! - sums[from * STRIDE + LOG_SUM]!) / count);
        if (!(typical >= t.slowFactor * reference.p50Ms && typical - reference.p50Ms >= t.minLatencyDeviationMs)) everyThirdTypical = false;
      }
      if (base === undefined || errors - base <= t.errorRateExcess / 2) everyThirdFailing = false;
      if (errors < t.outageErrorRate) everyThirdOut = false;
    }
    if (!cold && reference.p50Ms !== undefined) {
      const share = sums[last + SLOW]! / n;
      const normalShare = Math.min(0.5, Math.max(0.01, reference.slowShare));
      found.degraded = everyThirdSlow && share >= 0.5 && surprise(n, share, normalShare) >= t.minSurprise;
      found.slow = everyThirdTypical;
      if (found.degraded && Number.isFinite(reference.meanLog)) found.z = Math.abs(sums[last + LOG_SUM]! / n - reference.meanLog) / reference.sigmaLog;
    }
    const rate = sums[last + ERRORS]! / n;
    const floor = Math.max(t.errorRateFloor, base ?? 0);
    // An outage is judged against the floor alone: a learned rate cannot make most requests failing normal.
    found.outage = everyThirdOut && surprise(n, rate, t.errorRateFloor) >= t.minSurprise;
    if (base !== undefined) {
      found.failing = buckets >= ERROR_MIN_BUCKETS && everyThirdFailing && rate - base > t.errorRateExcess && surprise(n, rate, floor) >= t.minSurprise;
      if (found.failing || found.outage) found.z = Math.max(found.z, (rate - base) / Math.sqrt(floor * (1 - floor)));
    } else if (found.outage) found.z = Math.max(found.z, 4);
    return found;
  }

  /**
   * Since when the newest buckets (those with requests) have been mostly slow, or failing at more
   * than `errorsAbove`: evidence of a verdict still forming. Called after judging.
   */
  updateForming(errorsAbove: number): void {
    const data = this.data;
    const { bucketMs, minSamples } = this.rules;
    let slowSince = Number.NaN;
    let failingSince = Number.NaN;
    let slowRun = true;
    let failingRun = true;
    let slowRequests = 0;
    let failingRequests = 0;
    for (let k = 1; k < this.slots && (slowRun || failingRun); k++) {
      const slot = (this.current - k + this.slots) % this.slots;
      const count = data[slot * STRIDE + COUNT]!;
      if (count === 0) continue;
      const startMs = this.closedEndMs - k * bucketMs;
      if (slowRun && data[slot * STRIDE + SLOW]! / count >= 0.5) {
        slowSince = startMs;
        slowRequests += count;
      } else slowRun = false;
      if (failingRun && data[slot * STRIDE + ERRORS]! / count > errorsAbove) {
        failingSince = startMs;
        failingRequests += count;
      } else failingRun = false;
    }
    // Evidence of a few requests is chance (one slow request of a quiet operation): forming needs as many as a verdict.
    this.latencyFormingSinceMs = slowRequests >= minSamples ? slowSince : Number.NaN;
    this.errorsFormingSinceMs = failingRequests >= minSamples ? failingSince : Number.NaN;
  }
}

/**
 * n x KL(observed || expected) for a share observed among n against an expected one: the
 * Chernoff bound says a binomial count reaches the observed share by chance with probability at
 * most exp(-this). 0 when the observed share is not above the expected one.
 */
export function surprise(n: number, observed: number, expected: number): number {
  if (!(observed > expected)) return 0;
  const q = Math.min(observed, 1);
  const above = q * Math.log(q / expected);
  const below = q < 1 ? (1 - q) * Math.log((1 - q) / (1 - expected)) : 0;
  return n * (above + below);
}

/** What one horizon showed; one object reused by every judging. */
export interface HorizonVerdicts {
  degraded: boolean;
  slow: boolean;
  failing: boolean;
  outage: boolean;
  /** The deviation in standard deviations of a single request (for the score). */
  z: number;
}

const horizonVerdicts: HorizonVerdicts = { degraded: false, slow: false, failing: false, outage: false, z: 0 };

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
