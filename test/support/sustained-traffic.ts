/**
 * Traffic spread over time on a fake clock, for tests whose faults must be sustained: the pattern
 * detectors judge horizons of one-second buckets in thirds and call a fault sustained only when
 * every third deviates, so a fault is a rate of requests held for seconds, never an instant burst.
 */
export interface TrafficTarget {
  readonly clock: { advance(ms: number): unknown };
  request(route: string, latencyMs: number, isError?: boolean): unknown;
}

export interface TrafficShape {
  /** Requests per second, evenly spaced (default 2: one every 500 ms). */
  readonly perSecond?: number;
  readonly seconds: number;
  readonly latencyMs?: number;
  /** Fraction of the requests that fail, spread evenly (0.5: every second request). */
  readonly errorRate?: number;
}

/** Sends `perSecond` x `seconds` requests of `route`, advancing the clock after each; returns how many. */
export function traffic(h: TrafficTarget, route: string, { perSecond = 2, seconds, latencyMs = 20, errorRate = 0 }: TrafficShape): number {
  const requests = Math.round(perSecond * seconds);
  const gapMs = 1000 / perSecond;
  for (let i = 0; i < requests; i++) {
    // Failure i is the one that makes floor(i x rate) step up: evenly spread, exact over any run.
    const isError = Math.floor((i + 1) * errorRate) > Math.floor(i * errorRate);
    h.request(route, latencyMs, isError);
    h.clock.advance(gapMs);
  }
  return requests;
}

/** How long a fault is held in these tests: long enough to be seen at 2 req/s with time to spare. */
export const FAULT_SECONDS = 40;

/** 30 % of the requests failing at 2 req/s for `seconds` (default 40 s): an error-rate spike, not an outage. */
export function failingFor(h: TrafficTarget, route: string, seconds = FAULT_SECONDS): number {
  return traffic(h, route, { seconds, errorRate: 0.3 });
}
