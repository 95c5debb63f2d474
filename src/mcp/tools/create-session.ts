/**
 * create_session: a shared blackboard for an incident, svc's own or one from elsewhere (the paging
 * system's id, a name for a problem with no incident: src/incidents/external-incident-id.ts).
 * Names echoed are cut (src/mcp/bounded-output.ts): agents' at 128 characters, operations' at 256.
 */
import { EXTERNAL_INCIDENT_ID_RULE, externalIncidentIdProblem } from '../../incidents/external-incident-id.js';
import { MAX_AGENT_NAME_CHARS, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { fields, isoTime, listSome } from '../text-layout.js';
import { ToolError, textResult } from '../tool-definition.js';
import { id } from '../tool-params.js';
import { sessionIncident } from './session-incident.js';

export const createSession = defineTool({
  name: 'create_session',
  title: 'Create session',
  description:
    'Creates a shared session (blackboard) for an incident, so several agents record observations, diagnoses, actions and recommendations in one place. The incident is one svc opened, or one from elsewhere (a paging system id such as "PD-4711"), shown as external. Returns the session id.',
  permission: 'DIAGNOSE',
  destructive: false,
  params: {
    incident_id: id(`Incident id from get_incident_context, e.g. "INC-20261122-x7k2m-0001", or an external one (${EXTERNAL_INCIDENT_ID_RULE}), e.g. "PD-4711"`, { required: true }),
  },
  handler(args, { services, caller }) {
    const incident = services.incidents.byId(args.incident_id);
    if (!incident) {
      const problem = externalIncidentIdProblem(args.incident_id);
      if (problem) {
        const open = services.incidents.openIncidents().map((i) => `${i.id} (${shownName(i.operation, 120)})`);
        throw new ToolError(
          `unknown incident "${shownName(args.incident_id, 64)}": ${problem}; accepted: an svc incident id (open incidents: ${listSome(open, 10)}) or an external one of ${EXTERNAL_INCIDENT_ID_RULE}`,
        );
      }
    }
    const session = services.sessions.create(incident?.id ?? args.incident_id, caller.agentName, caller.credential, incident ? 'svc' : 'external');
    return textResult(
      [
        'SESSION CREATED',
        ...fields([
          ['Session', session.id],
          ['Incident', incident ? `${incident.id} (${shownName(incident.operation)}, ${incident.status})` : sessionIncident(session)],
          ['Created', `${isoTime(session.created)} by ${shownName(caller.agentName, MAX_AGENT_NAME_CHARS)} (${shownName(caller.role, MAX_AGENT_NAME_CHARS)})`],
        ]),
      ].join('\n'),
      { sessionId: session.id, incidentId: session.incidentId, incidentSource: session.incidentSource },
    );
  },
});
