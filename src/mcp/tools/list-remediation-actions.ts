/**
 * list_remediation_actions: the actions that apply to an operation, with approval needs; for a
 * caller who may approve, also `approve:<id>` for each open approval request.
 * Text: title, the fallback flag, an ACTIONS section with per action its exact name, `[built-in|custom,
 * NEEDS APPROVAL, destructive]` and its description; structured: { operation, page, pages,
 * leftOut: { actions }, nextPage, actions: [{ name, kind, description, requiresApproval,
 * destructive, target }] } for the actions on the page.
 *
 * Bounded (src/mcp/bounded-output.ts): descriptions are cut at 1/16 of `svc.mcp.max-output-bytes`,
 * and an operation with more actions than fit (custom ones) is paged, the text and the structured
 * content alike: `… 40 more actions (40 custom) left out; call list_remediation_actions with ... page=2`.
 */
import { byteLength, callFor, cutField, fieldChars, maxOutputBytes, pageText, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { blocks, section } from '../text-layout.js';
import { textResult } from '../tool-definition.js';
import { operationName, page } from '../tool-params.js';

export const listRemediationActions = defineTool({
  name: 'list_remediation_actions',
  title: 'Remediation actions',
  description:
    "Lists the remediation actions available for an operation: built-ins that act in-process (fallback flag, circuit breakers, baseline reset, escalation) and the app's own actions, each with its exact name for execute_remediation and whether it needs approval. A long list is paged: its last line names the call for the next page.",
  permission: 'REMEDIATE',
  readOnly: true,
  params: { operation_name: operationName(), page: page() },
  handler(args, { services, caller }) {
    const operation = args.operation_name;
    const { remediation } = services;
    const approvals = remediation.approvals.mayApprove(caller) ? remediation.approvalActions() : [];
    const maxBytes = maxOutputBytes(services);
    const request = { tool: 'list_remediation_actions', maxBytes, page: args.page, call: callFor('list_remediation_actions', { operation_name: operation }) };
    const chars = fieldChars(maxBytes);
    const actions = [...remediation.actionsFor(operation), ...approvals].map((a) => ({ ...a, description: cutField(a.description, chars) }));
    const kindOf = (a: (typeof actions)[number]) => (a.kind === 'custom' || a.kind === 'approval' ? a.kind : 'built-in');
    const lines = actions.map((a) => `${shownName(a.name)}  [${kindOf(a)}${a.requiresApproval ? ', NEEDS APPROVAL' : ''}${a.destructive ? ', destructive' : ''}]\n    ${a.description}`);
    const fallback = remediation.isFallbackEnabled(operation) ? 'ON' : 'off';
    const { text, plan } = pageText(
      request,
      // An action counts as the larger of its text and its JSON, as the page carries both.
      [{ noun: 'action', items: lines, kinds: actions.map(kindOf), sizes: actions.map((a) => byteLength(JSON.stringify(a)) + 1) }],
      ([shown]) =>
        blocks(`REMEDIATION ACTIONS for ${shownName(operation)}`, `Fallback flag: ${fallback}`, section('ACTIONS', shown!), 'Run one with execute_remediation(action_name, reason[, approved_by]).'),
    );
    const { start, end } = plan.ranges[0]!;
    return textResult(text, {
      operation,
      page: plan.page,
      pages: plan.pages,
      leftOut: { actions: actions.length - (end - start) },
      nextPage: plan.page < plan.pages ? String(plan.page + 1) : null,
      actions: actions.slice(start, end),
    });
  },
});
