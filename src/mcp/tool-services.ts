/** What tool handlers read and act on: analysis, metadata, incidents, remediation, sessions. */
import type { AgentActivity } from '../agentic/agent-activity.js';
import type { AnalysisReads } from '../analysis/analysis-reads.js';
import type { FleetView } from '../fleet/fleet-view.js';
import type { FrontendTelemetry } from '../frontend/frontend-telemetry.js';
import type { AuditTrail } from '../incidents/audit-trail.js';
import type { IncidentContext } from '../incidents/incident-context.js';
import type { IncidentTracker } from '../incidents/incident-tracker.js';
import type { Remediation } from '../incidents/remediation.js';
import type { SessionStore } from '../incidents/session-store.js';
import type { Verifier } from '../incidents/verification.js';
import type { ServiceMetadata } from '../metadata/service-metadata.js';
import type { StoreStatus } from '../store/state-writer.js';

export interface ToolServices {
  /** What the tools read of the analysis. */
  readonly analysis: AnalysisReads;
  /** An operation's incident context, as the incident response builds it. */
  readonly incidentContext: (operation: string) => IncidentContext;
  readonly metadata: ServiceMetadata;
  readonly incidents: IncidentTracker;
  readonly remediation: Remediation;
  readonly audit: AuditTrail;
  readonly sessions: SessionStore;
  readonly verifier: Verifier;
  /** `svc.mcp.max-output-bytes`: the most text (and structured content) a tool answers with. */
  readonly maxOutputBytes: number;
  /** What agents inside the app did (get_service_health's AGENTS, get_incident_context's guardrail trips); absent: none. */
  readonly agents?: AgentActivity;
  /** Browser telemetry, when svc.frontend.enabled; undefined otherwise. */
  readonly frontend?: FrontendTelemetry;
  /** The state store's status (get_service_health notes a degraded one); absent: state is not persisted. */
  readonly store?: () => StoreStatus;
  /** The fleet of replicas on Redis (src/fleet): health, SLOs, the summary and trends show it; absent: no fleet. */
  readonly fleet?: FleetView;
}
