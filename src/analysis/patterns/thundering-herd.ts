/**
 * thundering_herd: a request spike right after a recovery. Within `windowMs` after a recovery
 * (a dependency back to healthy, or an operation's error spike ending), the last `recentMs`
 * carry at least `rateMultiplier` x the usual count per `recentMs` over the minute before, and
 * at least `minRequests`. The request rate is a service-wide ring of one-second buckets,
 * advanced by the clock; it is read only while a recovery is recent.
 */
import type { PatternContext, PatternDetector } from './pattern-detector.js';

export interface ThunderingHerdOptions {
  readonly windowMs: number;
  readonly recentMs: number;
  readonly rateMultiplier: number;
  readonly minRequests: number;
}

const RATE_SECONDS = 60;

/** Requests per second over the last minute, in a ring of one-second buckets. */
export class RequestRate {
  private readonly counts = new Uint32Array(RATE_SECONDS);
  private second = -1;
  private firstSecond = -1;

  add(nowMs: number): void {
    this.advance(nowMs);
    this.counts[this.second % RATE_SECONDS]!++;
  }

  private advance(nowMs: number): void {
    const second = Math.floor(nowMs / 1000);
    if (second === this.second) return;
    if (this.second < 0) this.second = this.firstSecond = second;
    for (let s = this.second + 1; s <= second && s - this.second <= RATE_SECONDS; s++) this.counts[s % RATE_SECONDS] = 0;
    if (second > this.second) this.second = second;
  }

  /** Requests in the last `recentSeconds` and the average per `recentSeconds` over the rest of the minute observed. */
  recentAndUsual(nowMs: number, recentSeconds: number): { recent: number; usual: number } {
    this.advance(nowMs);
    let recent = 0;
    let older = 0;
    for (let back = 0; back < RATE_SECONDS; back++) {
      const count = this.counts[(this.second - back + RATE_SECONDS * 2) % RATE_SECONDS]!;
      if (back < recentSeconds) recent += count;
      else older += count;
    }
    const observed = Math.min(RATE_SECONDS, this.second - this.firstSecond + 1) - recentSeconds;
    return { recent, usual: observed > 0 ? (older / observed) * recentSeconds : Number.POSITIVE_INFINITY };
  }
}

export class ThunderingHerdDetector implements PatternDetector {
  readonly pattern = 'thundering_herd' as const;
  readonly rate = new RequestRate();
  private lastRecoveryAt = Number.NEGATIVE_INFINITY;
  private readonly recentSeconds: number;

  constructor(private readonly options: ThunderingHerdOptions) {
    this.recentSeconds = Math.max(1, Math.min(RATE_SECONDS / 2, Math.round(options.recentMs / 1000)));
  }

  recordRecovery(nowMs: number): void {
    this.lastRecoveryAt = nowMs;
  }

  detect(context: PatternContext): boolean {
    if (context.nowMs - this.lastRecoveryAt > this.options.windowMs) return false;
    const { recent, usual } = this.rate.recentAndUsual(context.nowMs, this.recentSeconds);
    return recent >= this.options.minRequests && recent >= this.options.rateMultiplier * Math.max(usual, 1);
  }
}
