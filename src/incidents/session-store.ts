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
 *
 * Persisted (docs/state.md) as the `sessions` collection, one record per session written when an
 * entry is added; previous runs' sessions are restored before this run's, within the same bounds.
 * In a fleet (docs/state.md, Fleet) other replicas' sessions are merged in (`mergeRemote`).
 */

import type { Clock } from '../analysis/clock.js';
import { AgentError } from '../shared/agent-error.js';
import { recordBytes } from '../shared/memory-size.js';
import { fields, finite, list, oneOf, readAll, text } from '../shared/record-fields.js';
import { NO_SINK, type StateSink } from '../shared/state-sink.js';
import type { IncidentSource } from './external-incident-id.js';
import { IdSequence } from './id-sequence.js';

export const SESSIONS_COLLECTION = 'sessions';

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
  /** Whether svc opened the incident, or an agent named one from elsewhere (external-incident-id.ts). */
  readonly incidentSource: IncidentSource;
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

const INCIDENT_SOURCES: readonly IncidentSource[] = ['svc', 'external'];

export class SessionFullError extends AgentError {}

interface Stored {
  readonly session: Session;
  readonly credential: string;
  readonly entries: SessionEntry[];
  bytes: number;
}

function entryBytes(entry: Omit<SessionEntry, 'time'>): number {
  return recordBytes(entry.type, entry.agentName, entry.role, entry.content);
}

/** An entry's identity across replicas: entries carry no id, and two identical ones at the same millisecond are one. */
function entryKey(entry: SessionEntry): string {
  return `${entry.time}\u0000${entry.agentName}\u0000${entry.type}\u0000${entry.content}`;
}

function readStored(value: unknown, maxEntries: number): Stored {
  const f = fields(value);
  const id = text(f, 'id', 256);
  const incidentId = text(f, 'incidentId', 1024);
  const createdBy = text(f, 'createdBy', 1024);
  const credential = text(f, 'credential', 1024);
  const entries: SessionEntry[] = list(f, 'entries', maxEntries).map((e) => {
    const ef = fields(e);
    return Object.freeze({
      time: finite(ef, 'time'),
      type: oneOf(ef, 'type', SESSION_ENTRY_TYPES),
      agentName: text(ef, 'agentName', 1024),
      role: text(ef, 'role', 1024),
      content: text(ef, 'content', 1_048_576),
    });
  });
  // Records written before external incidents were accepted have no source: svc's.
  const incidentSource = f.incidentSource === undefined ? 'svc' : oneOf(f, 'incidentSource', INCIDENT_SOURCES);
  const session: Session = { id, incidentId, incidentSource, created: finite(f, 'created'), createdBy, entries };
  const bytes = recordBytes(id, incidentId, createdBy, credential) + entries.reduce((sum, e) => sum + entryBytes(e), 0);
  return { session, credential, entries, bytes };
}

export class SessionStore {
  private sessions = new Map<string, Stored>();
  private sink: StateSink = NO_SINK;
  private readonly ids = new IdSequence('SES');
  private bytes = 0;
  /** Sessions dropped to stay within the count or byte bound. */
  evicted = 0;

  constructor(
    private readonly clock: Clock,
    readonly limits: SessionLimits = { maxSessions: 100, maxPerCredential: 10, maxEntries: 500, maxBytes: 16 * 1024 * 1024 },
  ) {}

  create(incidentId: string, createdBy: string, credential: string, incidentSource: IncidentSource = 'svc'): Session {
    const id = this.ids.next();
    const entries: SessionEntry[] = [];
    const session: Session = { id, incidentId, incidentSource, created: this.clock.now(), createdBy, entries };
    const bytes = recordBytes(id, incidentId, createdBy, credential);
    const own = [...this.sessions].filter(([, stored]) => stored.credential === credential);
    for (const [ownId] of own.slice(0, Math.max(0, own.length - this.limits.maxPerCredential + 1))) this.evict(ownId);
    this.makeRoom(bytes, this.limits.maxSessions - 1);
    const stored = { session, credential, entries, bytes };
    this.sessions.set(id, stored);
    this.bytes += bytes;
    this.changed(stored);
    return session;
  }

  private changed(stored: Stored): void {
    this.sink.put(SESSIONS_COLLECTION, stored.session.id, () => ({ ...stored.session, credential: stored.credential, entries: stored.entries }));
  }

  /** Persists every change from now on, and the sessions held so far. */
  attachStore(sink: StateSink): void {
    this.sink = sink;
    for (const stored of this.sessions.values()) this.changed(stored);
  }

  /**
   * Puts the sessions of previous runs (oldest first) before this run's, then applies the bounds
   * (count, per credential, entries, bytes) as if they had been created in that order; returns
   * how many did not read back.
   */
  restore(records: readonly { key: string; value: unknown }[]): number {
    const { read, skipped } = readAll(
      records.filter((r) => !this.sessions.has(r.key)),
      (r) => readStored((r as { value: unknown }).value, this.limits.maxEntries),
    );
    const current = this.sessions;
    this.sessions = new Map();
    for (const stored of read) this.sessions.set(stored.session.id, stored);
    for (const [id, stored] of current) this.sessions.set(id, stored);
    this.bytes = 0;
    for (const stored of this.sessions.values()) this.bytes += stored.bytes;
    const perCredential = new Map<string, string[]>();
    for (const [id, stored] of this.sessions) perCredential.set(stored.credential, [...(perCredential.get(stored.credential) ?? []), id]);
    for (const ids of perCredential.values()) for (const id of ids.slice(0, Math.max(0, ids.length - this.limits.maxPerCredential))) this.evict(id);
    const newest = [...this.sessions.keys()].at(-1);
    this.makeRoom(0, this.limits.maxSessions, newest);
    return skipped;
  }

  /**
   * Another replica wrote a session (the store's record, read after its notice): a new one is
   * added as the newest, within the same bounds; a known one gets the entries it lacks (entries
   * added on two replicas at once are both kept, in time order). Returns whether this replica
   * holds entries the record lacks (then its copy is queued to be written).
   */
  mergeRemote(value: unknown): boolean {
    const remote = readStored(value, this.limits.maxEntries);
    const local = this.sessions.get(remote.session.id);
    if (!local) {
      const own = [...this.sessions].filter(([, stored]) => stored.credential === remote.credential);
      for (const [ownId] of own.slice(0, Math.max(0, own.length - this.limits.maxPerCredential + 1))) this.evict(ownId, false);
      if (remote.bytes > this.limits.maxBytes) return false;
      this.makeRoom(remote.bytes, this.limits.maxSessions - 1, undefined, false);
      this.sessions.set(remote.session.id, remote);
      this.bytes += remote.bytes;
      return false;
    }
    const known = new Set(local.entries.map(entryKey));
    const missing = remote.entries.filter((e) => !known.has(entryKey(e)));
    const room = this.limits.maxEntries - local.entries.length;
    for (const entry of missing.slice(0, Math.max(0, room))) {
      local.entries.push(entry);
      local.bytes += entryBytes(entry);
      this.bytes += entryBytes(entry);
    }
    if (missing.length) local.entries.sort((a, b) => a.time - b.time);
    const ahead = local.entries.length > remote.entries.length;
    if (ahead) this.changed(local);
    return ahead;
  }

  /** Another replica deleted a session's record (evicted there): forgotten here too. */
  forget(id: string): void {
    if (this.sessions.has(id)) this.evict(id, false);
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id)?.session;
  }

  add(id: string, entry: Omit<SessionEntry, 'time'>): SessionEntry | undefined {
    const found = this.sessions.get(id);
    if (!found) return undefined;
    if (found.entries.length >= this.limits.maxEntries)
      throw new SessionFullError(`session ${id} holds the maximum of ${this.limits.maxEntries} entries (svc.limits.max-session-entries); create a new session for the incident`);
    const bytes = entryBytes(entry);
    if (found.bytes + bytes <= this.limits.maxBytes) this.makeRoom(bytes, this.limits.maxSessions, id);
    if (this.bytes + bytes > this.limits.maxBytes)
      throw new SessionFullError(
        `session ${id} holds ${found.bytes} bytes and the next entry does not fit in svc.limits.max-session-bytes (${this.limits.maxBytes}); create a new session for the incident`,
      );
    const full = Object.freeze({ ...entry, time: this.clock.now() });
    found.entries.push(full);
    found.bytes += bytes;
    this.bytes += bytes;
    this.changed(found);
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
  private makeRoom(bytes: number, maxCount: number, keep?: string, deleteStored = true): void {
    for (const id of this.sessions.keys()) {
      if (this.bytes + bytes <= this.limits.maxBytes && this.sessions.size <= maxCount) return;
      if (id !== keep) this.evict(id, deleteStored);
    }
  }

  /** `deleteStored` false: the record stays in the store (another replica's bounds decide there). */
  private evict(id: string, deleteStored = true): void {
    const stored = this.sessions.get(id)!;
    this.sessions.delete(id);
    this.bytes -= stored.bytes;
    this.evicted++;
    if (deleteStored) this.sink.delete(SESSIONS_COLLECTION, id);
  }
}
