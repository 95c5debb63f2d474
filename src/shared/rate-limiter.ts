/** A token bucket per caller: `perMinute` requests, refilled continuously. Bounded in callers. */
export const MAX_CALLERS = 1000;

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  /** Callers whose bucket was dropped to keep MAX_CALLERS; each starts full again. */
  evicted = 0;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one request for `caller`: 0 when allowed, else the seconds until the next is. */
  take(caller: string): number {
    const bucket = this.refilled(caller);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return this.secondsUntilOne(bucket.tokens);
  }

  /** Like `take` without taking: 0 when a request would be allowed now. */
  wait(caller: string): number {
    const bucket = this.buckets.get(caller);
    if (!bucket) return 0;
    const tokens = Math.min(this.perMinute, bucket.tokens + ((this.now() - bucket.at) / 60_000) * this.perMinute);
    return tokens >= 1 ? 0 : this.secondsUntilOne(tokens);
  }

  private refilled(caller: string): { tokens: number; at: number } {
    const now = this.now();
    let bucket = this.buckets.get(caller);
    if (!bucket) {
      if (this.buckets.size >= MAX_CALLERS) {
        this.buckets.delete(this.buckets.keys().next().value!);
        this.evicted++;
      }
      this.buckets.set(caller, (bucket = { tokens: this.perMinute, at: now }));
    }
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + ((now - bucket.at) / 60_000) * this.perMinute);
    bucket.at = now;
    return bucket;
  }

  private secondsUntilOne(tokens: number): number {
    return Math.ceil(((1 - tokens) / this.perMinute) * 60);
  }
}
