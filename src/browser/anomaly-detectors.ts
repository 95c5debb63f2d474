/**
 * The browser's anomaly detectors, each a count of occurrences within a sliding time window that
 * fires once when it reaches its threshold, then starts counting again (a burst of 10 rage clicks
 * is one rage click anomaly at threshold 3, reported on the 3rd click, and again at the 6th and
 * 9th). Time comes from the caller, so tests need no clock. Pure: no DOM.
 */

/** Keys (click targets, error messages) tracked at once; the oldest is forgotten beyond it. */
const MAX_KEYS = 50;

export class BurstDetector {
  private readonly times = new Map<string, number[]>();

  constructor(
    readonly threshold: number,
    readonly windowMs: number,
  ) {}

  /** Counts one occurrence of `key` at `nowMs`; returns the count when it reaches the threshold, else 0. */
  record(key: string, nowMs: number): number {
    let times = this.times.get(key);
    if (!times) {
      if (this.times.size >= MAX_KEYS) this.times.delete(this.times.keys().next().value!);
      this.times.set(key, (times = []));
    }
    times.push(nowMs);
    while (times.length && times[0]! <= nowMs - this.windowMs) times.shift();
    if (times.length < this.threshold) return 0;
    const count = times.length;
    times.length = 0;
    return count;
  }
}

/** A page load slower than `multiplier` x its route's baseline P50; never without a baseline. */
export function isSlowPageLoad(pageLoadMs: number, baselineP50Ms: number | undefined, multiplier: number): boolean {
  return baselineP50Ms !== undefined && pageLoadMs > baselineP50Ms * multiplier;
}

/** An API call that failed for the user: no response (network error, abort: status 0) or a 4xx/5xx. */
export function isFailedCall(status: number | undefined): boolean {
  return status === undefined || status === 0 || status >= 400;
}
