/**
 * Approval as a second credential's act (DESIGN "Approval is a second credential's act").
 *
 * A caller without the right to approve who executes an action needing approval opens an
 * approval request (`APR-<tag>-<n>`) bound to that action and to its own credential. A caller
 * whose credential may approve (its role grants ADMIN, or its token's agent is listed in
 * `svc.mcp.approvers`) approves it with its own credential by executing `approve:<id>`. The
 * requester then executes the action with `approved_by: <id>`, once, within `ttlMs` of the
 * request. Bounded: at most `maxPerCredential` open requests per credential (its oldest is
 * dropped, counted).
 *
 * An approver may decline a request instead (`decline:<id>`): the requester's next execution
 * with that id is refused with who declined and why, and the request is gone. Actions of the
 * kinds in `humanApproval` (`svc.mcp.human-approval`: a built-in kind such as `enable_fallback`,
 * or a custom action's name) need approval whatever their definition says, and only a person
 * signed in on the status page approves or declines them; an agent's credential never does.
 */

import type { Clock } from '../analysis/clock.js';
import { AgentError } from '../shared/agent-error.js';
import type { Actor } from './actor.js';
import { IdSequence } from './id-sequence.js';

export interface ApprovalRequest {
  readonly id: string;
  readonly action: string;
  /** The credential that asked, and the only one that may use the approval. */
  readonly credential: string;
  readonly requestedBy: string;
  /** Why the requester wants it, for the approver to judge. */
  readonly reason: string;
  readonly requestedAt: number;
  readonly expiresAt: number;
  /** Only a person approves it (svc.mcp.human-approval). */
  readonly humanOnly: boolean;
  approvedBy?: string;
  approvedAt?: number;
  declinedBy?: string;
  declinedAt?: number;
  declineReason?: string;
}

/** Why an action cannot run without an approval, and how to obtain one. */
export class ApprovalError extends AgentError {}

export const APPROVE_PREFIX = 'approve:';
export const DECLINE_PREFIX = 'decline:';

/** Whether an action is an approver's decision (`approve:<id>`, `decline:<id>`), not a remediation. */
export function isDecision(action: string): boolean {
  return action.startsWith(APPROVE_PREFIX) || action.startsWith(DECLINE_PREFIX);
}
/** Open approval requests kept per credential. */
export const MAX_REQUESTS_PER_CREDENTIAL = 10;

export class Approvals {
  private readonly requests = new Map<string, ApprovalRequest>();
  private readonly ids = new IdSequence('APR');
  /** Requests dropped because their credential opened too many. */
  evicted = 0;

  constructor(
    private readonly clock: Clock,
    private readonly approvers: readonly string[],
    readonly ttlMs = 15 * 60_000,
    readonly maxPerCredential = MAX_REQUESTS_PER_CREDENTIAL,
    private readonly humanApproval: readonly string[] = [],
  ) {}

  /** Whether only a person may approve `action`: its kind (`enable_fallback` of `enable_fallback:GET /x`) or custom name is in svc.mcp.human-approval. */
  needsPerson(action: string): boolean {
    const separator = action.indexOf(':');
    return this.humanApproval.includes(separator > 0 ? action.slice(0, separator) : action);
  }

  /** Whether the caller's own credential may approve: its role grants ADMIN, or its token's agent is a configured approver. */
  mayApprove(caller: Actor): boolean {
    if (caller.permissions.has('ADMIN')) return true;
    return caller.tokenAgent !== undefined && this.approvers.includes(caller.tokenAgent);
  }

  /** The open request of this credential for this action, or a new one. */
  request(action: string, reason: string, caller: Actor): ApprovalRequest {
    this.expire();
    for (const open of this.requests.values()) if (open.action === action && open.credential === caller.credential && isOpen(open)) return open;
    const own = [...this.requests.values()].filter((r) => r.credential === caller.credential);
    if (own.length >= this.maxPerCredential) {
      this.requests.delete(own[0]!.id);
      this.evicted++;
    }
    const now = this.clock.now();
    const request: ApprovalRequest = {
      id: this.ids.next(),
      action,
      credential: caller.credential,
      requestedBy: caller.agentName,
      reason,
      requestedAt: now,
      expiresAt: now + this.ttlMs,
      humanOnly: this.needsPerson(action),
    };
    this.requests.set(request.id, request);
    return request;
  }

  /** Approves a request with the caller's own credential. */
  approve(id: string, approver: Actor): ApprovalRequest {
    const request = this.decidable(id, approver);
    request.approvedBy = approver.agentName;
    request.approvedAt = this.clock.now();
    return request;
  }

  /** Declines a request with the caller's own credential; the requester learns it at its next use of the id. */
  decline(id: string, approver: Actor, reason: string): ApprovalRequest {
    const request = this.decidable(id, approver);
    request.declinedBy = approver.agentName;
    request.declinedAt = this.clock.now();
    request.declineReason = reason;
    return request;
  }

  /** The open request `id`, when this approver may decide it. */
  private decidable(id: string, approver: Actor): ApprovalRequest {
    if (!this.mayApprove(approver)) throw new ApprovalError(`this credential may not approve: approving needs a role that grants ADMIN or a token listed in svc.mcp.approvers`);
    const request = this.find(id);
    if (request.humanOnly && !approver.person)
      throw new ApprovalError(`approval request ${id} is for ${request.action}, which only a person approves or declines, signed in on the status page (svc.mcp.human-approval)`);
    if (!isOpen(request)) throw new ApprovalError(`approval request ${id} is already ${request.approvedBy === undefined ? 'declined' : 'approved'}`);
    return request;
  }

  /** Uses an approval for `action` by the credential that requested it; it cannot be used again. */
  use(id: string, action: string, caller: Actor): ApprovalRequest {
    const request = this.find(id);
    if (request.action !== action || request.credential !== caller.credential)
      throw new ApprovalError(`approval ${id} is for another action or caller; execute ${action} without approved_by to request an approval of its own`);
    if (request.declinedBy !== undefined) {
      this.requests.delete(id);
      throw new ApprovalError(`approval request ${id} was declined by ${request.declinedBy}: "${request.declineReason}"; execute ${action} without approved_by to request a new approval`);
    }
    if (request.approvedBy === undefined)
      throw new ApprovalError(
        request.humanOnly
          ? `approval request ${id} is not approved yet: a person approves it on the status page (svc.mcp.human-approval)`
          : `approval request ${id} is not approved yet: an approver must execute "${APPROVE_PREFIX}${id}" with their own credential`,
      );
    this.requests.delete(id);
    return request;
  }

  /** Open requests, oldest first, for approvers to see. */
  pending(): ApprovalRequest[] {
    this.expire();
    return [...this.requests.values()].filter(isOpen);
  }

  private find(id: string): ApprovalRequest {
    this.expire();
    const request = this.requests.get(id);
    // The id is not echoed: it may be a name typed where an approval id belongs.
    const evicted = this.evicted ? ` (${this.evicted} requests were dropped so far: a credential keeps at most ${this.maxPerCredential} open)` : '';
    const valid = this.ttlMs >= 60_000 ? `${Math.round(this.ttlMs / 60_000)} min` : `${Math.round(this.ttlMs / 1000)} s`;
    if (!request)
      throw new ApprovalError(`approved_by names no open approval: approvals are APR-... ids, valid for ${valid} and used once${evicted}; execute the action without approved_by to request a new one`);
    return request;
  }

  private expire(): void {
    const now = this.clock.now();
    for (const [id, request] of this.requests) if (request.expiresAt <= now) this.requests.delete(id);
  }
}

function isOpen(request: ApprovalRequest): boolean {
  return request.approvedBy === undefined && request.declinedBy === undefined;
}
