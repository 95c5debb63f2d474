/**
 * The audit trail of agent actions: who (agent and role), what (action and target), why (reason),
 * approval, result, when. Bounded, newest last: at most `capacity` entries (the oldest is evicted,
 * counted), each with bounded strings (the tool server bounds what agents send; a result message
 * from the app's own handler is made printable and cut to MAX_DETAIL_LENGTH here, saying so).
 * get_recent_agent_actions reads it so several agents do not remediate the same thing twice.
 *
 * Persisted (docs/state.md) as the `audit` collection, one record per entry; restored entries
 * come before the ones of this run, within the same capacity. In a fleet (docs/state.md, Fleet)
 * each entry names the replica that ran the action, and other replicas' entries are merged in.
 */
import type { Clock } from '../analysis/clock.js';
import { printable } from '../shared/printable.js';
import { fields, finite, oneOf, optionalText, readAll, text } from '../shared/record-fields.js';
import { NO_SINK, type StateSink } from '../shared/state-sink.js';
import { IdSequence } from './id-sequence.js';

export type ApprovalState = 'not_required' | 'approved' | 'missing';
export type ActionOutcome = 'success' | 'failed' | 'refused';

export interface AuditEntry {
  readonly timestamp: number;
  readonly agentName: string;
  readonly role: string;
  readonly action: string;
  readonly reason: string;
  /** The approval id used, or `own credential` when the caller may approve. */
  readonly approvedBy: string | undefined;
  /** The approving agent; shown only to callers who may approve. */
  readonly approver: string | undefined;
  readonly approval: ApprovalState;
  readonly outcome: ActionOutcome;
  readonly detail: string;
  /** The replica that ran the action, in a fleet (docs/state.md, Fleet); undefined outside one. */
  readonly replica?: string;
}

export const MAX_DETAIL_LENGTH = 1000;
export const AUDIT_COLLECTION = 'audit';

function readEntry(value: unknown): AuditEntry {
  const f = fields(value);
  return Object.freeze({
    timestamp: finite(f, 'timestamp'),
    agentName: text(f, 'agentName', 1024),
    role: text(f, 'role', 1024),
    action: text(f, 'action', 4096),
    reason: text(f, 'reason', 4096),
    approvedBy: optionalText(f, 'approvedBy', 1024),
    approver: optionalText(f, 'approver', 1024),
    approval: oneOf(f, 'approval', ['not_required', 'approved', 'missing'] as const),
    outcome: oneOf(f, 'outcome', ['success', 'failed', 'refused'] as const),
    detail: printable(text(f, 'detail', MAX_DETAIL_LENGTH + 100), MAX_DETAIL_LENGTH),
    ...(f.replica !== undefined && { replica: printable(text(f, 'replica', 256), 256) }),
  });
}

export class AuditTrail {
  private entries: AuditEntry[] = [];
  /** The store key of each entry, in the same order. */
  private keys: string[] = [];
  private readonly ids = new IdSequence('AUD');
  private sink: StateSink = NO_SINK;
  /** Entries dropped to stay within the capacity. */
  evicted = 0;
  /** This replica's instance id, recorded in each entry while it is part of a fleet. */
  replica: string | undefined;

  /** Entries kept; the oldest goes first. */
  readonly capacity: number;

  constructor(
    private readonly clock: Clock,
    options: { readonly maxEntries?: number } = {},
  ) {
    this.capacity = options.maxEntries ?? 500;
  }

  record(entry: Omit<AuditEntry, 'timestamp'>): AuditEntry {
    const full = Object.freeze({ ...entry, detail: printable(entry.detail, MAX_DETAIL_LENGTH), timestamp: this.clock.now(), ...(this.replica !== undefined && { replica: this.replica }) });
    const key = this.ids.next();
    this.entries.push(full);
    this.keys.push(key);
    this.sink.put(AUDIT_COLLECTION, key, () => full);
    this.trim();
    return full;
  }

  private trim(): void {
    while (this.entries.length > this.capacity) {
      this.entries.shift();
      this.sink.delete(AUDIT_COLLECTION, this.keys.shift()!);
      this.evicted++;
    }
  }

  /** Persists every change from now on, and the entries held so far. */
  attachStore(sink: StateSink): void {
    this.sink = sink;
    for (const [i, entry] of this.entries.entries()) sink.put(AUDIT_COLLECTION, this.keys[i]!, () => entry);
  }

  /** Puts the entries of a previous run (oldest first) before this run's; returns how many did not read back. */
  restore(records: readonly { key: string; value: unknown }[]): number {
    const known = new Set(this.keys);
    const fresh = records.filter((r) => !known.has(r.key));
    const { read, skipped } = readAll(fresh, (r) => ({ key: (r as { key: string }).key, entry: readEntry((r as { value: unknown }).value) }));
    this.entries = [...read.map((r) => r.entry), ...this.entries];
    this.keys = [...read.map((r) => r.key), ...this.keys];
    this.trim();
    return skipped;
  }

  /** Another replica's entry (the store's record, read after its notice), put in time order. */
  mergeRemote(key: string, value: unknown): void {
    if (this.keys.includes(key)) return;
    const entry = readEntry(value);
    let at = this.entries.length;
    while (at > 0 && this.entries[at - 1]!.timestamp > entry.timestamp) at--;
    this.entries.splice(at, 0, entry);
    this.keys.splice(at, 0, key);
    this.trim();
  }

  /** Another replica deleted an entry's record (its bound): forgotten here too. */
  forget(key: string): void {
    const index = this.keys.indexOf(key);
    if (index < 0) return;
    this.entries.splice(index, 1);
    this.keys.splice(index, 1);
  }

  /** The last `count` entries, newest first. */
  recent(count = 20): AuditEntry[] {
    return this.entries.slice(-count).reverse();
  }

  /** The newest successful execution of an action, if any. */
  lastSuccess(action: string): AuditEntry | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i]!;
      if (entry.action === action && entry.outcome === 'success') return entry;
    }
    return undefined;
  }
}
