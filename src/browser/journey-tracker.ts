/**
 * Where a session is in the configured journeys. A journey starts when the user enters its first
 * step's route; entering a later step progresses it (skipping ahead counts, going back to an
 * earlier step does not end it); entering its last step completes it; entering a route outside it
 * abandons it at the furthest step reached, and so does coming back after JOURNEY_TIMEOUT_MS.
 *
 * The state lives in the injected storage (sessionStorage in a page), so a journey survives full
 * page loads. Pure: no DOM.
 */
import type { JourneyStatus } from '../frontend/attribute-names.js';
import type { ResolvedJourney } from './options.js';

/** A journey not progressed for this long is abandoned. */
export const JOURNEY_TIMEOUT_MS = 30 * 60_000;
const STORAGE_KEY = 'svc.journey';

export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface JourneyEvent {
  readonly journey: ResolvedJourney;
  readonly status: JourneyStatus;
  /** 1-based step reached (for abandoned: the furthest step reached). */
  readonly step: number;
  readonly durationMs: number;
}

interface State {
  readonly name: string;
  /** 0-based index of the furthest step reached. */
  readonly reached: number;
  readonly startedAt: number;
  readonly lastAt: number;
}

export class JourneyTracker {
  private readonly byName: ReadonlyMap<string, ResolvedJourney>;

  constructor(
    private readonly journeys: readonly ResolvedJourney[],
    private readonly storage: KeyValueStorage | undefined,
  ) {
    this.byName = new Map(journeys.map((j) => [j.name, j]));
  }

  /** The first journey that has `route` as a step, and its 1-based step: for span attributes. */
  stepOf(route: string): { journey: ResolvedJourney; step: number } | undefined {
    for (const journey of this.journeys) {
      const index = journey.steps.indexOf(route);
      if (index >= 0) return { journey, step: index + 1 };
    }
    return undefined;
  }

  /** The user entered `route` at `nowMs`: what happened to the journeys. */
  enter(route: string, nowMs: number): JourneyEvent[] {
    const events: JourneyEvent[] = [];
    let state = this.load();
    let journey = state && this.byName.get(state.name);
    if (state && (!journey || nowMs - state.lastAt > JOURNEY_TIMEOUT_MS)) {
      if (journey) events.push({ journey, status: 'abandoned', step: state.reached + 1, durationMs: state.lastAt - state.startedAt });
      state = journey = undefined;
    }
    if (state && journey) {
      const index = journey.steps.indexOf(route);
      if (index > state.reached) {
        const done = index === journey.steps.length - 1;
        events.push({ journey, status: done ? 'completed' : 'progressed', step: index + 1, durationMs: nowMs - state.startedAt });
        this.save(done ? undefined : { ...state, reached: index, lastAt: nowMs });
        return events;
      }
      if (index >= 0) {
        this.save({ ...state, lastAt: nowMs });
        return events;
      }
      events.push({ journey, status: 'abandoned', step: state.reached + 1, durationMs: nowMs - state.startedAt });
      state = undefined;
    }
    const starting = this.journeys.find((j) => j.steps[0] === route);
    if (starting) {
      events.push({ journey: starting, status: starting.steps.length === 1 ? 'completed' : 'started', step: 1, durationMs: 0 });
      this.save(starting.steps.length === 1 ? undefined : { name: starting.name, reached: 0, startedAt: nowMs, lastAt: nowMs });
    } else this.save(undefined);
    return events;
  }

  private load(): State | undefined {
    try {
      const text = this.storage?.getItem(STORAGE_KEY);
      const state = text ? (JSON.parse(text) as State) : undefined;
      return state && typeof state.name === 'string' && Number.isInteger(state.reached) && Number.isFinite(state.startedAt) && Number.isFinite(state.lastAt) ? state : undefined;
    } catch {
      return undefined;
    }
  }

  private save(state: State | undefined): void {
    try {
      if (state) this.storage?.setItem(STORAGE_KEY, JSON.stringify(state));
      else this.storage?.removeItem(STORAGE_KEY);
    } catch {
      // storage full or blocked: journeys then last one page
    }
  }
}
