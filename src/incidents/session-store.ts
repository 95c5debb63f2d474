/**
 * Shared incident sessions (the multi-agent blackboard): a session per incident, entries typed
 * OBSERVATION, DIAGNOSIS, ACTION or RECOMMENDATION, each with the agent's name and role. Bounded
 * in sessions (the oldest is dropped) and in entries per session (further ones are refused).
 */
import type { Clock } from '../analysis/clock.js';

export const SESSION_ENTRY_TYPES = ['OBSERVATION', 'DIAGNOSIS', 'ACTION', 'RECOMMENDATION'] as const;
export type SessionEntryType = (typeof SESSION_ENTRY_TYPES)[number];

export interface SessionEntry {
  readonly time: number;
  readonly type: SessionEntryType;
  readonly agentName: string;
  readonly role: string;
  readonly content: string;
}

export interface Session {
  readonly id: string;
  readonly incidentId: string;
  readonly created: number;
  readonly createdBy: string;
  readonly entries: readonly SessionEntry[];
}

export class SessionFullError extends Error {}

export class SessionStore {
  private readonly sessions = new Map<string, { session: Session; entries: SessionEntry[] }>();
  private sequence = 0;

  constructor(
    private readonly clock: Clock,
    private readonly maxSessions = 100,
    private readonly maxEntries = 500,
  ) {}

  create(incidentId: string, createdBy: string): Session {
    const id = `SES-${(++this.sequence).toString().padStart(4, '0')}`;
    const entries: SessionEntry[] = [];
    const session: Session = { id, incidentId, created: this.clock.now(), createdBy, entries };
    this.sessions.set(id, { session, entries });
    if (this.sessions.size > this.maxSessions) this.sessions.delete(this.sessions.keys().next().value!);
    return session;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id)?.session;
  }

  add(id: string, entry: Omit<SessionEntry, 'time'>): SessionEntry | undefined {
    const found = this.sessions.get(id);
    if (!found) return undefined;
    if (found.entries.length >= this.maxEntries) throw new SessionFullError(`session ${id} holds the maximum of ${this.maxEntries} entries; create a new session for the incident`);
    const full = Object.freeze({ ...entry, time: this.clock.now() });
    found.entries.push(full);
    return full;
  }

  list(): Session[] {
    return [...this.sessions.values()].map((s) => s.session);
  }
}
