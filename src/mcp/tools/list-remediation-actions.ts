/** list_remediation_actions: the actions that apply to an operation, with approval needs. */
import { blocks, section } from '../text-layout.js';
import { READ_ONLY, textResult, type ToolDefinition } from '../tool-definition.js';
import { requireKnownOperation } from './operation-argument.js';

export const listRemediationActions: ToolDefinition = {
  name: 'list_remediation_actions',
  title: 'Remediation actions',
  description:
    'Lists the remediation actions available for an operation: built-ins that act in-process (fallback flag, circuit breakers, baseline reset, escalation) and the app\'s own actions, each with its exact name for execute_remediation and whether it needs approval.',
  permission: 'REMEDIATE',
  parameters: { operation_name: { type: 'string', description: 'Operation name, e.g. "GET /orders/{id}"' } },
  required: ['operation_name'],
  annotations: READ_ONLY,
  handler(args, { services }) {
    const operation = requireKnownOperation(services, args.operation_name!);
    const actions = services.remediation.actionsFor(operation);
    const lines = actions.map((a) => `${a.name}  [${a.kind === 'custom' ? 'custom' : 'built-in'}${a.requiresApproval ? ', NEEDS APPROVAL' : ''}${a.destructive ? ', destructive' : ''}]\n    ${a.description}`);
    const fallback = services.remediation.isFallbackEnabled(operation) ? 'ON' : 'off';
    return textResult(
      blocks(`REMEDIATION ACTIONS for ${operation}`, `Fallback flag: ${fallback}`, section('ACTIONS', lines), 'Run one with execute_remediation(action_name, reason[, approved_by]).'),
      { operation, actions: actions.map((a) => ({ ...a })) },
    );
  },
};
