/** create_session: a shared blackboard for an incident. */
import { fields, isoTime } from '../text-layout.js';
import { ToolError, textResult, type ToolDefinition } from '../tool-definition.js';
import { INPUT_LIMITS } from '../input-limits.js';

export const createSession: ToolDefinition = {
  name: 'create_session',
  title: 'Create session',
  description: 'Creates a shared session (blackboard) for an incident, so several agents record observations, diagnoses, actions and recommendations in one place. Returns the session id.',
  permission: 'DIAGNOSE',
  parameters: { incident_id: { type: 'string', description: 'Incident id from get_incident_context, e.g. "INC-20261122-x7k2m-0001"', maxLength: INPUT_LIMITS.id } },
  required: ['incident_id'],
  annotations: { readOnlyHint: false, destructiveHint: false },
  handler(args, { services, caller }) {
    const incident = services.incidents.byId(args.incident_id!);
    if (!incident) {
      const open = services.incidents.openIncidents().map((i) => `${i.id} (${i.operation})`);
      throw new ToolError(`unknown incident "${args.incident_id}"; open incidents: ${open.length ? open.join(', ') : 'none'}`);
    }
    const session = services.sessions.create(incident.id, caller.agentName);
    return textResult(
      ['SESSION CREATED', ...fields([
        ['Session', session.id],
        ['Incident', `${incident.id} (${incident.operation}, ${incident.status})`],
        ['Created', `${isoTime(session.created)} by ${caller.agentName} (${caller.role})`],
      ])].join('\n'),
      { sessionId: session.id, incidentId: incident.id },
    );
  },
};
