/** create_session: a shared blackboard for an incident. Names echoed are cut (src/mcp/bounded-output.ts): agents' at 128 characters, operations' at 256. */
import { MAX_AGENT_NAME_CHARS, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { fields, isoTime, listSome } from '../text-layout.js';
import { ToolError, textResult } from '../tool-definition.js';
import { id } from '../tool-params.js';

export const createSession = defineTool({
  name: 'create_session',
  title: 'Create session',
  description: 'Creates a shared session (blackboard) for an incident, so several agents record observations, diagnoses, actions and recommendations in one place. Returns the session id.',
  permission: 'DIAGNOSE',
  destructive: false,
  params: { incident_id: id('Incident id from get_incident_context, e.g. "INC-20261122-x7k2m-0001"', { required: true }) },
  handler(args, { services, caller }) {
    const incident = services.incidents.byId(args.incident_id);
    if (!incident) {
      const open = services.incidents.openIncidents().map((i) => `${i.id} (${shownName(i.operation, 120)})`);
      throw new ToolError(`unknown incident "${shownName(args.incident_id, 64)}"; open incidents: ${listSome(open, 10)}`);
    }
    const session = services.sessions.create(incident.id, caller.agentName, caller.credential);
    return textResult(
      [
        'SESSION CREATED',
        ...fields([
          ['Session', session.id],
          ['Incident', `${incident.id} (${shownName(incident.operation)}, ${incident.status})`],
          ['Created', `${isoTime(session.created)} by ${shownName(caller.agentName, MAX_AGENT_NAME_CHARS)} (${shownName(caller.role, MAX_AGENT_NAME_CHARS)})`],
        ]),
      ].join('\n'),
      { sessionId: session.id, incidentId: incident.id },
    );
  },
});
