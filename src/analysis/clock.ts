/** Time for all analysis, injectable so tests move it instead of sleeping. Epoch milliseconds. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told: for tests, and for users' own tests of svc-based code. */
export class FakeClock implements Clock {
  constructor(private time = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.time;
  }

  advance(ms: number): this {
    this.time += ms;
    return this;
  }

  set(time: number): this {
    this.time = time;
    return this;
  }
}
