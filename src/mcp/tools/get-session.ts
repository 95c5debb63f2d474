/** get_session: a session and its entries, in the spec's layout. */
import { fields, isoTime } from '../text-layout.js';
import { READ_ONLY, textResult, type ToolDefinition, ToolError } from '../tool-definition.js';
import { INPUT_LIMITS } from '../input-limits.js';

export const getSession: ToolDefinition = {
  name: 'get_session',
  title: 'Get session',
  description: 'Shows a shared session: its incident, creation time and every entry with time, type, agent name, role and content.',
  permission: 'READ',
  parameters: { session_id: { type: 'string', description: 'Session id from create_session', maxLength: INPUT_LIMITS.id } },
  required: ['session_id'],
  annotations: READ_ONLY,
  handler(args, { services }) {
    const session = services.sessions.get(args.session_id!);
    if (!session) {
      const known = services.sessions.list().map((s) => s.id);
      throw new ToolError(`unknown session "${args.session_id}"; sessions: ${known.length ? known.join(', ') : 'none'}`);
    }
    const header = [
      `SESSION ${session.id}`,
      ...fields([
        ['Incident', session.incidentId],
        ['Created', isoTime(session.created)],
        ['Entries', String(session.entries.length)],
      ]),
    ];
    const entries = session.entries.map((e) => `${isoTime(e.time)} ${e.type} by ${e.agentName} (${e.role})\n  ${e.content}`);
    return textResult([...header, '', ...entries].join('\n'));
  },
};
