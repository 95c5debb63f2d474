/**
 * Replicas of one service on one Redis store are one fleet (docs/state.md, Fleet). This keeps
 * what agents and incidents leave behind the same on every replica:
 *
 * - sessions, the audit trail and incidents: each replica writes its changes to the store as
 *   before (within PROMPT_MS for these collections), then names the written records on the fleet
 *   channel; the others read those records from the store (the record of truth) and merge them
 *   into their own (SessionStore, AuditTrail, IncidentTracker `mergeRemote`). Tools keep reading
 *   local memory: no tool call waits on Redis.
 * - one incident per operation: claimed atomically in Redis (incident-claims.ts).
 * - remediation: a fleet-wide action executed on one replica is announced at once and applied
 *   by every other (Remediation.applyFromFleet); the executing replica audits it, once, with its
 *   instance id.
 * - after the subscriber or the store's own connection reconnects (notices may have been missed,
 *   reads made meanwhile failed), the shared collections and the remediation flags are read from
 *   the store again and merged.
 */
import type { AuditTrail } from '../incidents/audit-trail.js';
import { AUDIT_COLLECTION } from '../incidents/audit-trail.js';
import { INCIDENTS_COLLECTION, type IncidentTracker } from '../incidents/incident-tracker.js';
import { type FleetRemediation, REMEDIATION_COLLECTION, type Remediation } from '../incidents/remediation.js';
import { SESSIONS_COLLECTION, type SessionStore } from '../incidents/session-store.js';
import type { RedisStore } from '../store/redis-store.js';
import type { Mutation } from '../store/state-store.js';
import type { StateWriter } from '../store/state-writer.js';
import { DEFERRED, REFUSED, readFields } from './bounded-read.js';
import { FleetChannel, runSafely } from './fleet-channel.js';
import { IncidentClaims } from './incident-claims.js';

/**
 * The collections every replica shares; the others (changes, verifications) stay per replica.
 * Remediation records (flags, opened breakers) back the immediate broadcast up: a replica that
 * missed it still applies them when the originator's write is announced, or at its next resync.
 */
export const FLEET_COLLECTIONS: readonly string[] = [SESSIONS_COLLECTION, AUDIT_COLLECTION, INCIDENTS_COLLECTION, REMEDIATION_COLLECTION];
/** Records named per notice: a batch is announced in several notices, each well under MAX_MESSAGE_BYTES. */
const CHANGES_PER_NOTICE = 100;
const MAX_KEY_CHARS = 300;
/** Records named by notices and not read yet, at most; more are dropped (counted) until the reads catch up. */
const MAX_UNREAD = 10_000;
/** Records named per read; each read sends about READ_BUDGET_BYTES at most (always one record), the rest at the next. */
const READ_CHUNK = 500;
const READ_BUDGET_BYTES = 16 * 1024 * 1024;
/** A record larger is refused in Redis (counted), but for sessions (see maxRecordBytes). */
const MAX_RECORD_BYTES = 4 * 1024 * 1024;

export interface FleetParts {
  readonly audit?: AuditTrail;
  readonly sessions?: SessionStore;
  readonly incidents?: IncidentTracker;
  readonly remediation?: Remediation;
}

/** [collection, key] of a written record, or [collection, key, 1] of a deleted one. */
type Change = [string, string] | [string, string, 1];

export class FleetSync {
  private parts: FleetParts = {};
  private readonly channel: FleetChannel;
  readonly claims: IncidentClaims;
  private started: Promise<void> | undefined;
  /** Records read after a notice, and remediations applied, from other replicas. */
  merged = 0;
  applied = 0;
  resyncs = 0;
  /** Records refused in Redis as larger than allowed or not strings. */
  refused = 0;
  /** Records named while MAX_UNREAD were waiting: not read one by one (a resync reads them all once the reads catch up). */
  dropped = 0;
  /** Collection → keys of records named by notices and not read yet. */
  private readonly unread = new Map<string, Set<string>>();
  private unreadCount = 0;
  private fetching = false;
  private resyncing: Promise<void> | undefined;
  private resyncAgain = false;
  /** Records were dropped: the shared collections are read whole once the reads catch up. */
  private overflowed = false;

  constructor(
    private readonly store: RedisStore,
    private readonly writer: StateWriter,
    readonly instanceId: string,
    private readonly report: (line: string) => void,
    /** Whether the store answered at start (its records were then loaded by restoreState). */
    private readonly storeReady: Promise<boolean>,
  ) {
    this.channel = new FleetChannel(store, {
      instanceId,
      onMessage: (message) => this.receive(message),
      onReconnect: () => void this.resync(),
      onMissed: () => void this.resync(),
    });
    this.claims = new IncidentClaims(store, instanceId, () => this.parts.incidents);
  }

  /**
   * From now on these parts are the fleet's: their changes are announced, other replicas' merged
   * in, remediations broadcast. Subscribes once; `subscribed` resolves when it did (or failed).
   */
  attach(parts: FleetParts): void {
    this.parts = parts;
    if (parts.audit) parts.audit.replica = this.instanceId;
    parts.incidents?.joinFleet(this.claims);
    if (parts.remediation) parts.remediation.onFleetAction = (action) => this.channel.publish('remediation', { action });
    this.writer.prompt = new Set(FLEET_COLLECTIONS);
    this.writer.onWritten = (mutations) => this.announce(mutations);
    if (this.started) return;
    // Reads fail at once while this replica's own connection is away, and the subscriber's may be back first: read again when it is.
    this.store.onReady(() => void this.resync());
    this.started = this.channel.start().then(
      // A store that was down at start: the shared state is read once it answers.
      async () => {
        if (!(await this.storeReady)) void this.resync();
      },
      (error: unknown) => {
        this.report(`fleet: ${this.store.description} did not answer the subscription (${error instanceof Error ? error.message : String(error)}); other replicas' changes are read once it answers`);
      },
    );
  }

  /** Resolves once subscribed to the fleet channel (or known not to be): loads may begin without missing a change. */
  get subscribed(): Promise<void> {
    return this.started ?? Promise.resolve();
  }

  private announce(mutations: readonly Mutation[]): void {
    const changes: Change[] = [];
    for (const m of mutations) {
      if (!FLEET_COLLECTIONS.includes(m.collection) || m.key.length > MAX_KEY_CHARS) continue;
      changes.push(m.value === undefined ? [m.collection, m.key, 1] : [m.collection, m.key]);
    }
    for (let i = 0; i < changes.length; i += CHANGES_PER_NOTICE) this.channel.publish('records', { changes: changes.slice(i, i + CHANGES_PER_NOTICE) });
  }

  private receive(message: { readonly kind: string } & Record<string, unknown>): void {
    if (message.kind === 'remediation') {
      const action = readRemediation(message.action);
      if (!action || !this.parts.remediation) return;
      this.applied++;
      void this.parts.remediation.applyFromFleet(action).catch(() => undefined);
    } else if (message.kind === 'records' && Array.isArray(message.changes)) {
      for (const change of message.changes.slice(0, CHANGES_PER_NOTICE)) if (isChange(change)) this.note(change);
      void this.fetch();
    }
  }

  /** A deleted record is forgotten at once; a written one waits, named once, for the next read. */
  private note([collection, key, deleted]: Change): void {
    const keys = this.unread.get(collection);
    if (deleted) {
      if (keys?.delete(key)) this.unreadCount--;
      this.forget(collection, key);
    } else if (!keys?.has(key)) {
      if (this.unreadCount >= MAX_UNREAD) {
        this.dropped++;
        this.overflowed = true;
        return;
      }
      if (keys) keys.add(key);
      else this.unread.set(collection, new Set([key]));
      this.unreadCount++;
    }
  }

  /**
   * Reads the records named since the last read and merges them, READ_CHUNK keys per read, one
   * read at a time: a flood of notices coalesces into few reads instead of one read in flight each.
   */
  private async fetch(): Promise<void> {
    if (this.fetching) return;
    this.fetching = true;
    try {
      for (let next = this.takeUnread(); next; next = this.takeUnread()) {
        const [collection, keys] = next;
        const values = await runSafely(this.store, (client) => readFields(client, this.store.key(collection), keys, this.maxRecordBytes(collection), READ_BUDGET_BYTES));
        for (const [i, key] of keys.entries()) {
          const value = values[i];
          if (typeof value === 'string') this.merge(collection, key, value);
          else if (value === REFUSED) this.refused++;
          else if (value === DEFERRED) this.note([collection, key]);
        }
      }
    } catch {
      // Redis went away: the reconnects read the shared collections again
      this.unread.clear();
      this.unreadCount = 0;
    } finally {
      this.fetching = false;
    }
    if (this.overflowed) {
      this.overflowed = false;
      await this.resync();
    }
  }

  /** A session may hold what all sessions may (`limits.max-session-bytes`); other records are far smaller. */
  private maxRecordBytes(collection: string): number {
    return collection === SESSIONS_COLLECTION ? (this.parts.sessions?.limits.maxBytes ?? MAX_RECORD_BYTES) : MAX_RECORD_BYTES;
  }

  private takeUnread(): [string, string[]] | undefined {
    for (const [collection, set] of this.unread) {
      const keys = [...set].slice(0, READ_CHUNK);
      for (const key of keys) set.delete(key);
      if (set.size === 0) this.unread.delete(collection);
      this.unreadCount -= keys.length;
      return [collection, keys];
    }
    return undefined;
  }

  private merge(collection: string, key: string, text: string): void {
    try {
      const value: unknown = JSON.parse(text);
      if (collection === AUDIT_COLLECTION) this.parts.audit?.mergeRemote(key, value);
      else if (collection === SESSIONS_COLLECTION) this.parts.sessions?.mergeRemote(value);
      else if (collection === INCIDENTS_COLLECTION) this.parts.incidents?.mergeRemote(value);
      else if (collection === REMEDIATION_COLLECTION) this.parts.remediation?.mergeRemote(value);
      this.merged++;
    } catch {
      // a record that does not read back is skipped, as at restore
    }
  }

  private forget(collection: string, key: string): void {
    if (collection === AUDIT_COLLECTION) this.parts.audit?.forget(key);
    else if (collection === SESSIONS_COLLECTION) this.parts.sessions?.forget(key);
    else if (collection === INCIDENTS_COLLECTION) this.parts.incidents?.forget(key);
    else if (collection === REMEDIATION_COLLECTION) this.parts.remediation?.forget(key);
  }

  /**
   * Reads the shared collections and the remediation flags again (after notices may have been
   * missed). One at a time: asked again meanwhile, it runs once more after (a Redis that keeps
   * dropping the connection, or a flood, costs one read of the collections at a time).
   */
  resync(): Promise<void> {
    if (this.resyncing) {
      this.resyncAgain = true;
      return this.resyncing;
    }
    this.resyncing = (async () => {
      do {
        this.resyncAgain = false;
        await this.readAll();
      } while (this.resyncAgain);
    })().finally(() => {
      this.resyncing = undefined;
    });
    return this.resyncing;
  }

  private async readAll(): Promise<void> {
    this.resyncs++;
    try {
      for (const collection of [SESSIONS_COLLECTION, AUDIT_COLLECTION, INCIDENTS_COLLECTION]) for (const { key, value } of await this.store.load(collection)) this.merge(collection, key, value);
      // This replica's own changes made while Redis was away go first, so the store's flags include them.
      await this.writer.flush();
      const records = await this.store.load(REMEDIATION_COLLECTION);
      const parsed = records.flatMap(({ key, value }) => parse(key, value));
      if (this.writer.status().pending === 0) this.parts.remediation?.reconcile(parsed);
      else for (const { value } of parsed) this.parts.remediation?.mergeRemote(value);
      if (this.parts.incidents) this.parts.incidents.joinFleet(this.claims);
    } catch {
      // Redis went away again: the next reconnect reads again
    }
  }

  async close(): Promise<void> {
    this.writer.onWritten = undefined;
    await this.channel.close();
  }
}

function parse(key: string, text: string): { key: string; value: unknown }[] {
  try {
    return [{ key, value: JSON.parse(text) }];
  } catch {
    return [];
  }
}

function isChange(value: unknown): value is Change {
  return (
    Array.isArray(value) && (value.length === 2 || (value.length === 3 && value[2] === 1)) && FLEET_COLLECTIONS.includes(value[0]) && typeof value[1] === 'string' && value[1].length <= MAX_KEY_CHARS
  );
}

function readRemediation(value: unknown): FleetRemediation | undefined {
  const v = value as Partial<Record<keyof FleetRemediation, unknown>> | null;
  if (typeof v?.action !== 'string' || typeof v.reason !== 'string' || typeof v.agentName !== 'string' || typeof v.role !== 'string') return undefined;
  return { action: v.action.slice(0, 2048), reason: v.reason.slice(0, 4096), agentName: v.agentName.slice(0, 256), role: v.role.slice(0, 256) };
}
