/**
 * get_playbook: the step graph for a pattern, or for the patterns detected on an operation.
 * Playbooks are fixed (about 2 KB of text); only the operation name in the title varies, cut at
 * 256 characters (src/mcp/bounded-output.ts).
 */
import { formatPlaybook, selectPlaybook, UnknownPatternError } from '../../incidents/playbooks.js';
import { shownName } from '../bounded-output.js';
import { OPERATION_NAME, READ_ONLY, type ToolDefinition, ToolError, textResult } from '../tool-definition.js';
import { requireKnownOperation } from './operation-argument.js';

export const getPlaybook: ToolDefinition = {
  name: 'get_playbook',
  title: 'Playbook',
  description:
    'A machine-readable playbook: numbered CHECK, DECISION and ACTION steps with conditions, action names from the remediation catalog, successors per outcome and approval markers. Selected by pattern (e.g. cascade_failure, error_rate_spike), else by the patterns detected on operation_name, else the generic playbook.',
  permission: 'READ',
  parameters: {
    operation_name: OPERATION_NAME,
    pattern: { type: 'string', description: 'Incident pattern: cascade_failure, memory_leak, thundering_herd, cold_start, error_rate_spike, latency_degradation' },
  },
  required: [],
  annotations: READ_ONLY,
  handler(args, { services }) {
    const operation = args.operation_name ? requireKnownOperation(services, args.operation_name) : undefined;
    // Most recent pattern first: an incident that began as a cold start and turned into an error spike needs the latter's playbook.
    const operationPatterns = operation ? [...(services.incidents.openIncident(operation)?.patterns ?? [])].reverse() : [];
    try {
      const playbook = selectPlaybook({ pattern: args.pattern, operationPatterns });
      return textResult(formatPlaybook(playbook, operation === undefined ? undefined : shownName(operation)), {
        playbook: playbook.name,
        triggerPatterns: [...playbook.triggerPatterns],
        steps: playbook.steps.map((s) => ({ ...s })),
      });
    } catch (error) {
      if (error instanceof UnknownPatternError) throw new ToolError(error.message.replace(`"${error.pattern}"`, `"${shownName(error.pattern, 64)}"`));
      throw error;
    }
  },
};
