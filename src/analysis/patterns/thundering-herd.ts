/**
 * thundering_herd: a request spike right after a recovery. Within `windowMs` after a recovery
 * (a dependency back to healthy, or an operation's error spike ending), the last `recentMs`
 * carry at least `rateMultiplier` x the usual count per `recentMs` over the minute before, and
 * at least `minRequests`. The request rate is a service-wide ring of one-second buckets,
 * advanced by the clock; it is read only while a recovery is recent.
 */
import { TimeRing } from '../time-ring.js';
import type { PatternContext, PatternDetector } from './pattern-detector.js';

export interface ThunderingHerdOptions {
  readonly windowMs: number;
  readonly recentMs: number;
  readonly rateMultiplier: number;
  readonly minRequests: number;
}

const RATE_SECONDS = 60;

/** Requests per second over the last minute, in a time ring of one-second buckets. */
export class RequestRate {
  private readonly ring = new TimeRing(1000, RATE_SECONDS);
  private firstSecond = Number.NaN;

  add(nowMs: number): void {
    if (Number.isNaN(this.firstSecond)) this.firstSecond = Math.floor(nowMs / 1000);
    this.ring.add(nowMs);
  }

  /** Requests in the last `recentSeconds` and the average per `recentSeconds` over the rest of the minute observed. */
  recentAndUsual(nowMs: number, recentSeconds: number): { recent: number; usual: number } {
    const recent = this.ring.sum(nowMs, 0, recentSeconds);
    const older = this.ring.total(nowMs) - recent;
    const observed = Math.min(RATE_SECONDS, Math.floor(nowMs / 1000) - this.firstSecond + 1) - recentSeconds;
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
