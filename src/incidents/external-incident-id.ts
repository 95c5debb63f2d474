/**
 * Incident ids svc did not open (the team's paging system's `PD-4711`, a ticket `OPS#1234`, a name
 * for a problem that has no incident), accepted by create_session so agents can share a session
 * about them. An id shaped like svc's own (`INC-<yyyymmdd>-...`) is never external: one svc does
 * not know is a typo or an incident no longer held, and the caller is told which are open.
 */

export type IncidentSource = 'svc' | 'external';

export const MAX_EXTERNAL_INCIDENT_ID_CHARS = 64;

const EXTERNAL_INCIDENT_ID = /^[A-Za-z0-9][A-Za-z0-9._:#/-]*$/;
const SVC_INCIDENT_ID = /^INC-\d{8}-/;

export const EXTERNAL_INCIDENT_ID_RULE = `1 to ${MAX_EXTERNAL_INCIDENT_ID_CHARS} characters: letters, digits and . _ : # / -, starting with a letter or digit`;

/** Why `id` is not accepted as an external incident id, or undefined when it is. */
export function externalIncidentIdProblem(id: string): string | undefined {
  if (SVC_INCIDENT_ID.test(id)) return 'it has the form of an svc incident id, and svc holds no incident with it';
  if (id.length > MAX_EXTERNAL_INCIDENT_ID_CHARS) return `it has ${id.length} characters`;
  if (!EXTERNAL_INCIDENT_ID.test(id)) return 'it holds a character outside the accepted ones';
  return undefined;
}
