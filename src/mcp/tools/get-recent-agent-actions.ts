/** get_recent_agent_actions: the audit trail, newest first, so agents avoid duplicate remediation. */
import { isoTime, section } from '../text-layout.js';
import { READ_ONLY, textResult, type ToolDefinition } from '../tool-definition.js';

export const getRecentAgentActions: ToolDefinition = {
  name: 'get_recent_agent_actions',
  title: 'Recent agent actions',
  description: 'The audit trail of recent agent actions (newest first): who, role, action, reason, approval and outcome. Check it before remediating so several agents do not act twice.',
  permission: 'READ',
  parameters: {},
  required: [],
  annotations: READ_ONLY,
  handler(_args, { services }) {
    const entries = services.audit.recent(20);
    const lines = entries.map(
      (e) => `${isoTime(e.timestamp)} ${e.outcome.toUpperCase()} ${e.action} by ${e.agentName} (${e.role}); reason: ${e.reason}; approval: ${e.approval}${e.approvedBy ? ` (${e.approvedBy})` : ''}; ${e.detail}`,
    );
    return textResult(section(`RECENT AGENT ACTIONS (${entries.length})`, lines, 'none recorded'));
  },
};
