/**
 * What responds to incidents, built from configuration by the composition root whether or not the
 * tool server runs: the incident tracker (which opens incidents from the engine's detections and
 * SLO alerts), remediation with its audit trail, approvals and verifier, and shared sessions.
 */
import type { AnalysisEngine } from '../analysis/analysis-engine.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import type { ServiceMetadata } from '../metadata/service-metadata.js';
import { Approvals } from './approvals.js';
import { AuditTrail } from './audit-trail.js';
import { buildIncidentContext, type IncidentContext } from './incident-context.js';
import { IncidentTracker } from './incident-tracker.js';
import { Remediation } from './remediation.js';
import { SessionStore } from './session-store.js';
import { Verifier } from './verification.js';

export interface IncidentResponse {
  readonly incidents: IncidentTracker;
  readonly remediation: Remediation;
  readonly audit: AuditTrail;
  readonly sessions: SessionStore;
  readonly verifier: Verifier;
  /** An operation's complete incident context (src/incidents/incident-context.ts). */
  readonly incidentContext: (operation: string) => IncidentContext;
}

export function incidentResponseFromConfig(config: ResolvedConfig, engine: AnalysisEngine, metadata: ServiceMetadata): IncidentResponse {
  const audit = new AuditTrail(engine.clock, { maxEntries: config.get('limits.max-audit-entries') });
  const verifier = new Verifier(engine, { delayMs: config.get('mcp.verification-delay') });
  const approvals = new Approvals(engine.clock, config.get('mcp.approvers'), config.get('mcp.approval-ttl'), undefined, config.get('mcp.human-approval'));
  const remediation = new Remediation(
    engine,
    audit,
    verifier,
    approvals,
    (operation) => ({ level: metadata.operations.resolve(operation).escalationLevel, channel: metadata.topology().registry.topology.onCallChannel }),
    (operation) => metadata.operations.names().includes(operation),
  );
  const incidents = new IncidentTracker(engine, {
    tierOf: () => metadata.topology().registry.topology.tier,
    lastRemediation: (operation) => {
      for (const entry of audit.recent(50)) if (entry.outcome === 'success' && entry.action.endsWith(`:${operation}`)) return `${entry.action} by ${entry.agentName}`;
      return undefined;
    },
    resolveAfterMs: config.get('incidents.resolve-after'),
    maxHistory: config.get('limits.max-incidents'),
  });
  const sessions = new SessionStore(engine.clock, {
    maxSessions: config.get('limits.max-sessions'),
    maxPerCredential: config.get('limits.max-sessions-per-credential'),
    maxEntries: config.get('limits.max-session-entries'),
    maxBytes: config.get('limits.max-session-bytes'),
  });
  const incidentContext = (operation: string): IncidentContext => buildIncidentContext(operation, { engine, metadata, incidents, remediation });
  return { incidents, remediation, audit, sessions, verifier, incidentContext };
}
