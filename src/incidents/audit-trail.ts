/**
 * The audit trail of agent actions: who (agent and role), what (action and target), why (reason),
 * approval, result, when. Bounded, newest last: at most `capacity` entries (the oldest is evicted,
 * counted), each with bounded strings (the tool server bounds what agents send; a result message
 * from the app's own handler is made printable and cut to MAX_DETAIL_LENGTH here, saying so).
 * get_recent_agent_actions reads it so several agents do not remediate the same thing twice.
 */
import type { Clock } from '../analysis/clock.js';
import { printable } from '../printable.js';

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
}

export const MAX_DETAIL_LENGTH = 1000;

export class AuditTrail {
  private readonly entries: AuditEntry[] = [];
  /** Entries dropped to stay within the capacity. */
  evicted = 0;

  constructor(
    private readonly clock: Clock,
    readonly capacity = 500,
  ) {}

  record(entry: Omit<AuditEntry, 'timestamp'>): AuditEntry {
    const full = Object.freeze({ ...entry, detail: printable(entry.detail, MAX_DETAIL_LENGTH), timestamp: this.clock.now() });
    this.entries.push(full);
    if (this.entries.length > this.capacity) {
      this.entries.shift();
      this.evicted++;
    }
    return full;
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
