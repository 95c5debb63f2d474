/**
 * execute_remediation: runs an action, audited; actions that need approval need a valid approver.
 * The echo is bounded (src/mcp/bounded-output.ts): the result message (a custom action's may be
 * long) and the reason are cut at 1/16 of `svc.mcp.max-output-bytes`, names at 256 characters
 * (agents' at 128), in the text and the structured content.
 */
import { RemediationRefused } from '../../incidents/remediation.js';
import { cutField, fieldChars, MAX_AGENT_NAME_CHARS, maxOutputBytes, shownName } from '../bounded-output.js';
import { fields, isoTime } from '../text-layout.js';
import { ToolError, textResult, type ToolDefinition } from '../tool-definition.js';

export const executeRemediation: ToolDefinition = {
  name: 'execute_remediation',
  title: 'Execute remediation',
  description:
    'Executes a remediation action by its exact name from list_remediation_actions. The reason is recorded in the audit trail with the caller\'s name and role. Actions marked NEEDS APPROVAL also need approved_by naming a configured approver (or a caller whose role grants ADMIN). Check get_recent_agent_actions first to avoid duplicate remediation; verify with verify_remediation_effect.',
  permission: 'REMEDIATE',
  parameters: {
    action_name: { type: 'string', description: 'Exact action name, e.g. "enable_fallback:GET /orders/{id}"' },
    reason: { type: 'string', description: 'Why, recorded in the audit trail' },
    approved_by: { type: 'string', description: 'Approver, required for actions that need approval' },
  },
  required: ['action_name', 'reason'],
  annotations: { readOnlyHint: false, destructiveHint: true },
  async handler(args, { services, caller }) {
    try {
      const result = await services.remediation.execute(args.action_name!, args.reason!, args.approved_by, caller);
      const chars = fieldChars(maxOutputBytes(services));
      const action = shownName(args.action_name!);
      const message = cutField(result.message, chars);
      const text = [
        `REMEDIATION ${result.outcome === 'success' ? 'EXECUTED' : 'FAILED'}: ${action}`,
        ...fields([
          ['Result', message],
          ['By', `${shownName(caller.agentName, MAX_AGENT_NAME_CHARS)} (${shownName(caller.role, MAX_AGENT_NAME_CHARS)})`],
          ['Reason', cutField(args.reason!, chars)],
          ['Approval', `${result.audit.approval}${args.approved_by ? ` by ${shownName(args.approved_by, MAX_AGENT_NAME_CHARS)}` : ''}`],
          ['At', isoTime(result.audit.timestamp)],
          ['Verify', `call verify_remediation_effect("${action}") in ${Math.round(services.verifier.delayMs / 1000)}s`],
        ]),
      ].join('\n');
      return { ...textResult(text, { action, outcome: result.outcome, message }), isError: result.outcome !== 'success' };
    } catch (error) {
      if (error instanceof RemediationRefused) throw new ToolError(error.message);
      throw error;
    }
  },
};
