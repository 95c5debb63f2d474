/**
 * execute_remediation: runs an action, audited. An action that needs approval runs once a
 * credential that may approve has approved it: the caller's own, or a second credential's
 * approval (`approve:<id>`) named by its id in approved_by (src/incidents/approvals.ts).
 * The echo is bounded (src/mcp/bounded-output.ts): the result message (a custom action's may be
 * long) and the reason are cut at 1/16 of `svc.mcp.max-output-bytes`, names at 256 characters
 * (agents' at 128), in the text and the structured content.
 */
import { isDecision } from '../../incidents/approvals.js';
import type { AuditEntry } from '../../incidents/audit-trail.js';
import { cutField, fieldChars, MAX_AGENT_NAME_CHARS, maxOutputBytes, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { INPUT_LIMITS } from '../input-limits.js';
import { fields, isoTime } from '../text-layout.js';
import { textResult } from '../tool-definition.js';
import { id, text } from '../tool-params.js';

export const executeRemediation = defineTool({
  name: 'execute_remediation',
  title: 'Execute remediation',
  description:
    'Executes a remediation action by its exact name from list_remediation_actions. The reason is recorded in the audit trail with the caller\'s name and role. An action marked NEEDS APPROVAL, executed by a caller that may not approve, opens an approval request APR-...: an approver executes "approve:APR-..." with their own credential, then the caller executes the action again with approved_by "APR-...". Check get_recent_agent_actions first to avoid duplicate remediation; verify with verify_remediation_effect.',
  permission: 'REMEDIATE',
  destructive: true,
  params: {
    action_name: text('Exact action name, e.g. "enable_fallback:GET /orders/{id}", or "approve:APR-..." / "decline:APR-..." to decide a request', {
      required: true,
      maxLength: INPUT_LIMITS.actionName,
    }),
    reason: text('Why, recorded in the audit trail', { required: true, maxLength: INPUT_LIMITS.reason }),
    approved_by: id('The approval id (APR-...) an approver approved, for an action that needs approval'),
  },
  async handler(args, { services, caller }) {
    // A refusal (unknown action, missing approval) throws RemediationRefused, an AgentError the server answers as isError.
    const result = await services.remediation.execute(args.action_name, args.reason, args.approved_by, caller);
    const chars = fieldChars(maxOutputBytes(services));
    const action = shownName(args.action_name);
    const message = cutField(result.message, chars);
    const text = [
      `REMEDIATION ${result.outcome === 'success' ? 'EXECUTED' : 'FAILED'}: ${action}`,
      ...fields([
        ['Result', message],
        ['By', `${shownName(caller.agentName, MAX_AGENT_NAME_CHARS)} (${shownName(caller.role, MAX_AGENT_NAME_CHARS)})`],
        ['Reason', cutField(args.reason, chars)],
        ['Approval', approvalText(result.audit, services.remediation.approvals.mayApprove(caller))],
        ['At', isoTime(result.audit.timestamp)],
        ...(isDecision(args.action_name) ? [] : ([['Verify', `call verify_remediation_effect("${action}") in ${Math.round(services.verifier.delayMs / 1000)}s`]] as const)),
      ]),
    ].join('\n');
    return { ...textResult(text, { action, outcome: result.outcome, message }), isError: result.outcome !== 'success' };
  },
});

/** `approved (APR-x2k9q-0001 by lead)`: the approver's name only for callers who may approve. */
export function approvalText(entry: AuditEntry, showApprover: boolean): string {
  if (!entry.approvedBy) return entry.approval;
  return `${entry.approval} (${entry.approvedBy}${showApprover && entry.approver ? ` by ${entry.approver}` : ''})`;
}
