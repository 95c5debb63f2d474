/**
 * Requests in flight per credential (`svc.mcp.max-concurrent-calls`): what a flood of calls makes
 * svc hold at once (request bodies, SDK servers, tool outputs being written) is bounded per
 * credential. A request beyond the cap waits its turn, first come first served, at most
 * `maxWaitMs` and behind at most `maxQueued` others; otherwise it is refused at once.
 */

export interface CallsInFlightOptions {
  readonly maxInFlight: number;
  readonly maxQueued: number;
  readonly maxWaitMs: number;
  /** Calls `fn` after `ms`; returns what cancels it. Injected by tests. */
  readonly schedule?: (fn: () => void, ms: number) => () => void;
}

/** Ends a request's turn; calling it again does nothing. */
export type Release = () => void;

interface Credential {
  inFlight: number;
  readonly queue: ((release: Release) => void)[];
}

const timer = (fn: () => void, ms: number): (() => void) => {
  const handle = setTimeout(fn, ms);
  return () => clearTimeout(handle);
};

export class CallsInFlight {
  private readonly credentials = new Map<string, Credential>();
  private readonly schedule: NonNullable<CallsInFlightOptions['schedule']>;

  constructor(private readonly options: CallsInFlightOptions) {
    this.schedule = options.schedule ?? timer;
  }

  /** Resolves with the request's release once it may run, or undefined when it is refused (the cap, the queue and the wait are full). */
  admit(credential: string): Promise<Release | undefined> {
    const state = this.credentials.get(credential) ?? { inFlight: 0, queue: [] };
    this.credentials.set(credential, state);
    if (state.inFlight < this.options.maxInFlight) {
      state.inFlight++;
      return Promise.resolve(this.releaseOf(credential, state));
    }
    if (state.queue.length >= this.options.maxQueued) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const turn = (release: Release): void => {
        cancel();
        resolve(release);
      };
      const cancel = this.schedule(() => {
        const index = state.queue.indexOf(turn);
        if (index >= 0) state.queue.splice(index, 1);
        resolve(undefined);
      }, this.options.maxWaitMs);
      state.queue.push(turn);
    });
  }

  /** Requests of `credential` running now (for tests and status). */
  inFlight(credential: string): number {
    return this.credentials.get(credential)?.inFlight ?? 0;
  }

  private releaseOf(credential: string, state: Credential): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = state.queue.shift();
      if (next) return next(this.releaseOf(credential, state));
      state.inFlight--;
      if (state.inFlight === 0) this.credentials.delete(credential);
    };
  }
}
