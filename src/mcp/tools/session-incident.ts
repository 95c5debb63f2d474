/** How every session tool names a session's incident: svc's own as is, another's marked external. */
import type { Session } from '../../incidents/session-store.js';

export function sessionIncident(session: Pick<Session, 'incidentId' | 'incidentSource'>): string {
  return session.incidentSource === 'external' ? `${session.incidentId} (external: not an incident svc opened)` : session.incidentId;
}
