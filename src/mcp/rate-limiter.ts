/** A token bucket per caller: `perMinute` requests, refilled continuously. Bounded in callers. */
const MAX_CALLERS = 1000;

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one request for `caller`: 0 when allowed, else the seconds until the next is. */
  take(caller: string): number {
    const now = this.now();
    let bucket = this.buckets.get(caller);
    if (!bucket) {
      if (this.buckets.size >= MAX_CALLERS) this.buckets.delete(this.buckets.keys().next().value!);
      this.buckets.set(caller, (bucket = { tokens: this.perMinute, at: now }));
    }
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + ((now - bucket.at) / 60_000) * this.perMinute);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - bucket.tokens) / this.perMinute) * 60);
  }
}
