/**
 * get_session: a session and its entries, in the spec's layout: title, Incident, Created, Entries
 * (the count), then per entry `<time> <TYPE> by <agent> (<role>)` and its content, indented.
 *
 * Bounded (src/mcp/bounded-output.ts): entries are shown newest first, so page 1 holds the latest
 * state of the investigation; each content is cut at 1/4 of `svc.mcp.max-output-bytes` (2048
 * characters by default) with a marker, and a cut session ends with
 * `… 497 more entries (300 OBSERVATION, 197 ACTION) left out; call get_session with session_id=SES-0001 and page=2`.
 */
import { callFor, cutBlock, fieldChars, MAX_AGENT_NAME_CHARS, maxOutputBytes, pageText, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { fields, isoTime, listSome } from '../text-layout.js';
import { ToolError, textResult } from '../tool-definition.js';
import { id, page } from '../tool-params.js';
import { sessionIncident } from './session-incident.js';

export const getSession = defineTool({
  name: 'get_session',
  title: 'Get session',
  description:
    'Shows a shared session: its incident, creation time and its entries, newest first, with time, type, agent name, role and content. A long session is paged: its last line names the call for the next page.',
  permission: 'READ',
  readOnly: true,
  params: { session_id: id('Session id from create_session', { required: true }), page: page() },
  handler(args, { services }) {
    const session = services.sessions.get(args.session_id);
    if (!session) {
      const known = services.sessions.list().map((s) => `${s.id} (incident ${sessionIncident(s)})`);
      const evicted = services.sessions.evicted ? ` (${services.sessions.evicted} older sessions were evicted to stay within svc.limits.max-sessions and max-session-bytes)` : '';
      throw new ToolError(`unknown session "${shownName(args.session_id, 64)}"; sessions: ${listSome(known, 20)}${evicted}`);
    }
    const maxBytes = maxOutputBytes(services);
    const request = { tool: 'get_session', maxBytes, page: args.page, call: callFor('get_session', { session_id: session.id }) };
    const header = [
      `SESSION ${session.id}`,
      ...fields([
        ['Incident', sessionIncident(session)],
        ['Created', isoTime(session.created)],
        ['Entries', `${session.entries.length}${session.entries.length > 1 ? ' (newest first)' : ''}`],
      ]),
    ];
    const entries = [...session.entries].reverse();
    const chars = fieldChars(maxBytes, 4);
    const items = entries.map(
      (e) => `${isoTime(e.time)} ${e.type} by ${shownName(e.agentName, MAX_AGENT_NAME_CHARS)} (${shownName(e.role, MAX_AGENT_NAME_CHARS)})\n  ${cutBlock(e.content, chars).replace(/\r?\n/g, '\n  ')}`,
    );
    const { text } = pageText(request, [{ noun: ['entry', 'entries'], items, kinds: entries.map((e) => e.type), overhead: 1 }], ([shown]) => [...header, '', ...shown!].join('\n'));
    return textResult(text);
  },
});
