/** add_session_entry: adds a typed entry to a session, signed with the caller's name and role (echoed cut at 128 characters). */
import { SESSION_ENTRY_TYPES } from '../../incidents/session-store.js';
import { MAX_AGENT_NAME_CHARS, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { INPUT_LIMITS } from '../input-limits.js';
import { isoTime } from '../text-layout.js';
import { ToolError, textResult } from '../tool-definition.js';
import { id, oneOf, text } from '../tool-params.js';
import { sessionIncident } from './session-incident.js';

export const addSessionEntry = defineTool({
  name: 'add_session_entry',
  title: 'Add session entry',
  description: "Adds an entry to a shared session. The agent name and role are taken from the caller's credential (and X-Agent-Name / X-Agent-Role headers or _meta), not from the arguments.",
  permission: 'DIAGNOSE',
  destructive: false,
  params: {
    session_id: id('Session id from create_session', { required: true }),
    type: oneOf(SESSION_ENTRY_TYPES, 'OBSERVATION, DIAGNOSIS, ACTION or RECOMMENDATION', { required: true }),
    content: text('What to record', { required: true, maxLength: INPUT_LIMITS.content }),
  },
  handler(args, { services, caller }) {
    // A full session throws SessionFullError, an AgentError the server answers as isError.
    const entry = services.sessions.add(args.session_id, { type: args.type, agentName: caller.agentName, role: caller.role, content: args.content });
    if (!entry) throw new ToolError(`unknown session "${shownName(args.session_id, 64)}"; create one with create_session(incident_id)`);
    const session = services.sessions.get(args.session_id)!;
    return textResult(
      `ENTRY ADDED to ${session.id} (#${session.entries.length}, incident ${sessionIncident(session)}): ${isoTime(entry.time)} ${entry.type} by ${shownName(entry.agentName, MAX_AGENT_NAME_CHARS)} (${shownName(entry.role, MAX_AGENT_NAME_CHARS)})`,
    );
  },
});
