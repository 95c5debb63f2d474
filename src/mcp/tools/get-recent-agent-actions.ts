/**
 * get_recent_agent_actions: the audit trail, newest first, so agents avoid duplicate remediation.
 * One line per action: time, outcome, action, agent and role (and in a fleet the replica that ran
 * it), reason, approval, result.
 * Approvers' names are shown only to callers who may approve (src/incidents/approvals.ts).
 *
 * Bounded (src/mcp/bounded-output.ts): reasons and results are cut at 1/16 of
 * `svc.mcp.max-output-bytes` (512 characters by default) with a marker, and the lines that fit
 * make a page, newest first; a cut trail ends with
 * `… 480 more actions (470 succeeded, 10 refused) left out; call get_recent_agent_actions with page=2`.
 */
import { isDecision } from '../../incidents/approvals.js';
import type { AuditEntry } from '../../incidents/audit-trail.js';
import { callFor, cutField, fieldChars, MAX_AGENT_NAME_CHARS, maxOutputBytes, pageText, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { isoTime, section } from '../text-layout.js';
import { textResult } from '../tool-definition.js';
import { page } from '../tool-params.js';
import { approvalText } from './execute-remediation.js';

const OUTCOME: Record<AuditEntry['outcome'], string> = { success: 'succeeded', failed: 'failed', refused: 'refused' };

/** Who acted: `ops-bot (operator)`, or `an approver` for an approver's decision shown to a caller who may not approve. */
export function actorText(e: AuditEntry, mayApprove: boolean): string {
  return !mayApprove && e.approver !== undefined && isDecision(e.action) ? 'an approver' : `${shownName(e.agentName, MAX_AGENT_NAME_CHARS)} (${shownName(e.role, MAX_AGENT_NAME_CHARS)})`;
}

export const getRecentAgentActions = defineTool({
  name: 'get_recent_agent_actions',
  title: 'Recent agent actions',
  description:
    'The audit trail of agent actions (newest first): who, role, action, reason, approval and outcome. Check it before remediating so several agents do not act twice. A long trail is paged: its last line names the call for the next page.',
  permission: 'READ',
  readOnly: true,
  params: { page: page() },
  handler(args, { services, caller }) {
    const maxBytes = maxOutputBytes(services);
    const request = { tool: 'get_recent_agent_actions', maxBytes, page: args.page, call: callFor('get_recent_agent_actions') };
    const entries = services.audit.recent(Number.MAX_SAFE_INTEGER);
    const chars = fieldChars(maxBytes);
    const mayApprove = services.remediation.approvals.mayApprove(caller);
    const lines = entries.map(
      (e) =>
        `${isoTime(e.timestamp)} ${e.outcome.toUpperCase()} ${shownName(e.action)} by ${actorText(e, mayApprove)}${e.replica === undefined ? '' : ` on replica ${shownName(e.replica, MAX_AGENT_NAME_CHARS)}`}; reason: ${cutField(e.reason, chars)}; approval: ${approvalText(e, mayApprove)}; ${cutField(e.detail, chars)}`,
    );
    const { text } = pageText(request, [{ noun: 'action', items: lines, kinds: entries.map((e) => OUTCOME[e.outcome]) }], ([shown]) =>
      section(`RECENT AGENT ACTIONS (${entries.length}${services.audit.evicted ? `; ${services.audit.evicted} older evicted, svc.limits.max-audit-entries` : ''})`, shown!, 'none recorded'),
    );
    return textResult(text);
  },
});
