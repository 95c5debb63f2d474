/**
 * thundering_herd: a request spike right after a recovery. Within `windowMs` after a recovery
 * (a dependency back to healthy, or an operation's error spike ending), the last `recentMs`
 * carry at least `rateMultiplier` x the usual count per `recentMs`, and at least `minRequests`.
 * The usual rate is the median second of the minute before the recovery, so a flood is named for
 * as long as it lasts (past `windowMs` too), not only until its own requests raise the average,
 * and a recovery noticed after its flood began still finds the rate from before it. The request
 * rate is a service-wide ring of one-second buckets, advanced by the clock; it is read only while
 * a recovery is recent or a herd goes on.
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

  /** Requests in the last `seconds`. */
  recent(nowMs: number, seconds: number): number {
    return this.ring.sum(nowMs, 0, seconds);
  }

  /** Requests in the median whole second of the minute observed up to `nowMs`; Infinity before a whole second was. */
  perSecond(nowMs: number): number {
    const observed = Math.min(RATE_SECONDS - 1, Math.floor(nowMs / 1000) - this.firstSecond);
    if (!(observed > 0)) return Number.POSITIVE_INFINITY;
    // The median of the whole seconds observed, not the mean: a recovery is often noticed after its
    // flood began (an error spike's verdict ends a few seconds late), and the flood must not count as usual.
    const counts = this.ring
      .buckets(nowMs, observed + 1)
      .slice(0, -1)
      .map((b) => this.ring.get(b.slot))
      .sort((a, b) => a - b);
    return counts[counts.length >> 1]!;
  }
}

export class ThunderingHerdDetector implements PatternDetector {
  readonly pattern = 'thundering_herd' as const;
  readonly rate = new RequestRate();
  private lastRecoveryAt = Number.NEGATIVE_INFINITY;
  /** Requests per second in the minute before the last recovery (its median second). */
  private usualPerSecond = Number.POSITIVE_INFINITY;
  /** Whether the herd held at the last request: it goes on past the window while it lasts. */
  private flooding = false;
  private readonly recentSeconds: number;

  constructor(private readonly options: ThunderingHerdOptions) {
    this.recentSeconds = Math.max(1, Math.min(RATE_SECONDS / 2, Math.round(options.recentMs / 1000)));
  }

  recordRecovery(nowMs: number): void {
    this.lastRecoveryAt = nowMs;
    // A recovery during a herd (its own requests ending an error spike) keeps the rate from before.
    if (!this.flooding) this.usualPerSecond = this.rate.perSecond(nowMs);
  }

  detect(context: PatternContext): boolean {
    if (context.nowMs - this.lastRecoveryAt > this.options.windowMs && !this.flooding) return false;
    const recent = this.rate.recent(context.nowMs, this.recentSeconds);
    const usual = this.usualPerSecond * this.recentSeconds;
    this.flooding = recent >= this.options.minRequests && recent >= this.options.rateMultiplier * Math.max(usual, 1);
    return this.flooding;
  }
}
