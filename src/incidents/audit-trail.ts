/**
 * The audit trail of agent actions: who (agent and role), what (action and target), why (reason),
 * approval, result, when. Bounded, newest last; get_recent_agent_actions reads it so several
 * agents do not remediate the same thing twice.
 */
import type { Clock } from '../analysis/clock.js';

export type ApprovalState = 'not_required' | 'approved' | 'missing';
export type ActionOutcome = 'success' | 'failed' | 'refused';

export interface AuditEntry {
  readonly timestamp: number;
  readonly agentName: string;
  readonly role: string;
  readonly action: string;
  readonly reason: string;
  readonly approvedBy: string | undefined;
  readonly approval: ApprovalState;
  readonly outcome: ActionOutcome;
  readonly detail: string;
}

export class AuditTrail {
  private readonly entries: AuditEntry[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly capacity = 500,
  ) {}

  record(entry: Omit<AuditEntry, 'timestamp'>): AuditEntry {
    const full = Object.freeze({ ...entry, timestamp: this.clock.now() });
    this.entries.push(full);
    if (this.entries.length > this.capacity) this.entries.shift();
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
