/** get_recent_agent_actions: the audit trail, newest first, so agents avoid duplicate remediation. */
import { APPROVE_PREFIX } from '../../incidents/approvals.js';
import type { AuditEntry } from '../../incidents/audit-trail.js';
import { isoTime, section } from '../text-layout.js';
import { approvalText } from './execute-remediation.js';
import { READ_ONLY, textResult, type ToolDefinition } from '../tool-definition.js';

export const getRecentAgentActions: ToolDefinition = {
  name: 'get_recent_agent_actions',
  title: 'Recent agent actions',
  description: 'The audit trail of recent agent actions (newest first): who, role, action, reason, approval and outcome. Check it before remediating so several agents do not act twice.',
  permission: 'READ',
  parameters: {},
  required: [],
  annotations: READ_ONLY,
  handler(_args, { services, caller }) {
    const entries = services.audit.recent(20);
    // Approvers stay anonymous to callers who cannot approve.
    const mayApprove = services.remediation.approvals.mayApprove(caller);
    const agent = (e: AuditEntry) => (!mayApprove && e.outcome === 'success' && e.action.startsWith(APPROVE_PREFIX) ? 'an approver' : `${e.agentName} (${e.role})`);
    const lines = entries.map(
      (e) => `${isoTime(e.timestamp)} ${e.outcome.toUpperCase()} ${e.action} by ${agent(e)}; reason: ${e.reason}; approval: ${approvalText(e, mayApprove)}; ${e.detail}`,
    );
    return textResult(section(`RECENT AGENT ACTIONS (${entries.length})`, lines, 'none recorded'));
  },
};
