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

/**
 * Reads its source once per held span: the engine holds it while it analyses a span, so the
 * components that need the time share one clock read (each read costs about 30 ns, and five
 * components ask). Outside a hold it reads the source.
 */
export class SpanClock implements Clock {
  private held: number | undefined;

  constructor(private readonly source: Clock) {}

  now(): number {
    return this.held ?? this.source.now();
  }

  hold(): number {
    return (this.held = this.source.now());
  }

  release(): void {
    this.held = undefined;
  }
}
