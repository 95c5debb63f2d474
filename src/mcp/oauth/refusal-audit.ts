/**
 * Refused access tokens in the audit trail, so operators see why an agent cannot sign in: the
 * reason, never the token. At most MAX_PER_MINUTE entries a minute; the refusals beyond are
 * counted into the next entry, so a flood of bad tokens cannot push agents' actions out of the
 * bounded trail.
 */
import type { AuditTrail } from '../../incidents/audit-trail.js';

export const MAX_PER_MINUTE = 5;
/** The agent an audit entry names for a refused token: nothing in the token is trusted. */
export const REFUSED_AGENT = 'unknown (token refused)';

export class RefusalAudit {
  private windowStart = Number.NEGATIVE_INFINITY;
  private recorded = 0;
  private unrecorded = 0;

  constructor(
    private readonly audit: AuditTrail,
    private readonly now: () => number,
  ) {}

  refused(reason: string): void {
    const now = this.now();
    if (now - this.windowStart >= 60_000) {
      this.windowStart = now;
      this.recorded = 0;
    }
    if (this.recorded >= MAX_PER_MINUTE) {
      this.unrecorded++;
      return;
    }
    this.recorded++;
    const more = this.unrecorded ? ` (and ${this.unrecorded} refusals not recorded before this one, beyond ${MAX_PER_MINUTE} a minute)` : '';
    this.unrecorded = 0;
    this.audit.record({
      agentName: REFUSED_AGENT,
      role: 'none',
      action: 'authenticate:oauth',
      reason: 'access token refused',
      approvedBy: undefined,
      approver: undefined,
      approval: 'not_required',
      outcome: 'refused',
      detail: `${reason}${more}`,
    });
  }
}
