/**
 * Shared incident sessions (the multi-agent blackboard): a session per incident, entries typed
 * OBSERVATION, DIAGNOSIS, ACTION or RECOMMENDATION, each with the agent's name and role.
 *
 * Bounded four ways: entries per session (further ones are refused: the session is full),
 * sessions per creating credential (its own oldest is evicted, so no caller can push out the
 * others' by creating sessions), sessions (the oldest is evicted), and bytes over all sessions
 * (the oldest other sessions are evicted until the new entry fits; an entry that cannot fit even
 * then is refused first, evicting nothing). Evictions are counted. Strings are bounded by the
 * tool server (src/mcp/input-limits.ts).
 */
import { AgentError } from '../agent-error.js';
import type { Clock } from '../analysis/clock.js';
import { recordBytes } from '../memory-size.js';
import { IdSequence } from './id-sequence.js';

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

export interface SessionLimits {
  readonly maxSessions: number;
  /** Sessions one credential may have created that are kept. */
  readonly maxPerCredential: number;
  readonly maxEntries: number;
  readonly maxBytes: number;
}

export class SessionFullError extends AgentError {}

interface Stored {
  readonly session: Session;
  readonly credential: string;
  readonly entries: SessionEntry[];
  bytes: number;
}

export class SessionStore {
  private readonly sessions = new Map<string, Stored>();
  private readonly ids = new IdSequence('SES');
  private bytes = 0;
  /** Sessions dropped to stay within the count or byte bound. */
  evicted = 0;

  constructor(
    private readonly clock: Clock,
    readonly limits: SessionLimits = { maxSessions: 100, maxPerCredential: 10, maxEntries: 500, maxBytes: 16 * 1024 * 1024 },
  ) {}

  create(incidentId: string, createdBy: string, credential: string): Session {
    const id = this.ids.next();
    const entries: SessionEntry[] = [];
    const session: Session = { id, incidentId, created: this.clock.now(), createdBy, entries };
    const bytes = recordBytes(id, incidentId, createdBy, credential);
    const own = [...this.sessions].filter(([, stored]) => stored.credential === credential);
    for (const [ownId] of own.slice(0, Math.max(0, own.length - this.limits.maxPerCredential + 1))) this.evict(ownId);
    this.makeRoom(bytes, this.limits.maxSessions - 1);
    this.sessions.set(id, { session, credential, entries, bytes });
    this.bytes += bytes;
    return session;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id)?.session;
  }

  add(id: string, entry: Omit<SessionEntry, 'time'>): SessionEntry | undefined {
    const found = this.sessions.get(id);
    if (!found) return undefined;
    if (found.entries.length >= this.limits.maxEntries)
      throw new SessionFullError(`session ${id} holds the maximum of ${this.limits.maxEntries} entries (svc.limits.max-session-entries); create a new session for the incident`);
    const bytes = recordBytes(entry.type, entry.agentName, entry.role, entry.content);
    if (found.bytes + bytes <= this.limits.maxBytes) this.makeRoom(bytes, this.limits.maxSessions, id);
    if (this.bytes + bytes > this.limits.maxBytes)
      throw new SessionFullError(
        `session ${id} holds ${found.bytes} bytes and the next entry does not fit in svc.limits.max-session-bytes (${this.limits.maxBytes}); create a new session for the incident`,
      );
    const full = Object.freeze({ ...entry, time: this.clock.now() });
    found.entries.push(full);
    found.bytes += bytes;
    this.bytes += bytes;
    return full;
  }

  list(): Session[] {
    return [...this.sessions.values()].map((s) => s.session);
  }

  /** Bytes the sessions hold, as counted against `limits.maxBytes`. */
  get heldBytes(): number {
    return this.bytes;
  }

  /** Evicts the oldest sessions (but `keep`) until `bytes` more fit and at most `maxCount` remain. */
  private makeRoom(bytes: number, maxCount: number, keep?: string): void {
    for (const id of this.sessions.keys()) {
      if (this.bytes + bytes <= this.limits.maxBytes && this.sessions.size <= maxCount) return;
      if (id !== keep) this.evict(id);
    }
  }

  private evict(id: string): void {
    const stored = this.sessions.get(id)!;
    this.sessions.delete(id);
    this.bytes -= stored.bytes;
    this.evicted++;
  }
}
