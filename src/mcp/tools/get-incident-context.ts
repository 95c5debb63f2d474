/** get_incident_context: the complete diagnosis of an operation's incident (layout in incident-context.ts). */
import { buildIncidentContext, formatIncidentContext } from '../../incidents/incident-context.js';
import { READ_ONLY, textResult, type ToolDefinition } from '../tool-definition.js';
import { requireKnownOperation } from './operation-argument.js';

export const getIncidentContext: ToolDefinition = {
  name: 'get_incident_context',
  title: 'Incident context',
  description:
    'Complete diagnosis of an operation: what is happening (error rate and latency against baselines, anomaly score, patterns), what changed (deployments, config changes), what is affected, suggested actions with priority and approval needs, and similar past incidents. Call after get_service_health shows a problem.',
  permission: 'READ',
  parameters: { operation_name: { type: 'string', description: 'Operation name as shown by get_service_health, e.g. "GET /orders/{id}"' } },
  required: ['operation_name'],
  annotations: READ_ONLY,
  handler(args, { services }) {
    const operation = requireKnownOperation(services, args.operation_name!);
    const context = buildIncidentContext(operation, services);
    return textResult(formatIncidentContext(context));
  },
};
