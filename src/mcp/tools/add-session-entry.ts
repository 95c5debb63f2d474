/** add_session_entry: adds a typed entry to a session, signed with the caller's name and role (echoed cut at 128 characters). */
import { SESSION_ENTRY_TYPES, SessionFullError } from '../../incidents/session-store.js';
import { MAX_AGENT_NAME_CHARS, shownName } from '../bounded-output.js';
import { INPUT_LIMITS } from '../input-limits.js';
import { isoTime } from '../text-layout.js';
import { type ToolDefinition, ToolError, textResult } from '../tool-definition.js';

export const addSessionEntry: ToolDefinition = {
  name: 'add_session_entry',
  title: 'Add session entry',
  description: "Adds an entry to a shared session. The agent name and role are taken from the caller's credential (and X-Agent-Name / X-Agent-Role headers or _meta), not from the arguments.",
  permission: 'DIAGNOSE',
  parameters: {
    session_id: { type: 'string', description: 'Session id from create_session', maxLength: INPUT_LIMITS.id },
    type: { type: 'string', description: 'OBSERVATION, DIAGNOSIS, ACTION or RECOMMENDATION', enum: SESSION_ENTRY_TYPES },
    content: { type: 'string', description: 'What to record', maxLength: INPUT_LIMITS.content },
  },
  required: ['session_id', 'type', 'content'],
  annotations: { readOnlyHint: false, destructiveHint: false },
  handler(args, { services, caller }) {
    try {
      const entry = services.sessions.add(args.session_id!, { type: args.type as (typeof SESSION_ENTRY_TYPES)[number], agentName: caller.agentName, role: caller.role, content: args.content! });
      if (!entry) throw new ToolError(`unknown session "${shownName(args.session_id!, 64)}"; create one with create_session(incident_id)`);
      const count = services.sessions.get(args.session_id!)!.entries.length;
      return textResult(
        `ENTRY ADDED to ${args.session_id} (#${count}): ${isoTime(entry.time)} ${entry.type} by ${shownName(entry.agentName, MAX_AGENT_NAME_CHARS)} (${shownName(entry.role, MAX_AGENT_NAME_CHARS)})`,
      );
    } catch (error) {
      if (error instanceof SessionFullError) throw new ToolError(error.message);
      throw error;
    }
  },
};
