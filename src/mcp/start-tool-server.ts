/**
 * Assembles and starts the tool server from configuration: roles, tokens, the incident tracker,
 * remediation with its audit trail and verifier, sessions, and the built-in tools beside the
 * app's custom ones. What belongs to the process (the tool registry, the agents' activity,
 * remediation actions registered early, the ports svc serves) comes from the composition root
 * (src/start.ts) as a ToolServerHost. The URL goes to stderr, as the port may be ephemeral.
 */
import { readFileSync } from 'node:fs';
import type { Tracer } from '@opentelemetry/api';
import type { AgentActivity } from '../agentic/agent-activity.js';
import type { Engine } from '../analysis/engine.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import type { FleetView } from '../fleet/fleet-view.js';
import type { FrontendTelemetry } from '../frontend/frontend-telemetry.js';
import { Approvals } from '../incidents/approvals.js';
import { AuditTrail } from '../incidents/audit-trail.js';
import { IncidentTracker } from '../incidents/incident-tracker.js';
import { type CustomActionDefinition, Remediation } from '../incidents/remediation.js';
import { SessionStore } from '../incidents/session-store.js';
import { Verifier } from '../incidents/verification.js';
import type { ServiceMetadata } from '../metadata/service-metadata.js';
import { reportError } from '../report-error.js';
import { attachState, restoreState } from '../state-persistence.js';
import type { OpenedState } from '../store/open-state.js';
import { Authenticator } from './authenticator.js';
import { BUILT_IN_TOOLS } from './built-in-tools.js';
import { oauthOptions } from './oauth/oauth-options.js';
import { RefusalAudit } from './oauth/refusal-audit.js';
import { ResourceServer } from './oauth/resource-server.js';
import { Roles } from './roles.js';
import type { ToolRegistry } from './tool-registry.js';
import { ToolServer, ToolServerError } from './tool-server.js';
import { NOT_STARTED, toolServerProblems } from './tool-server-config.js';
import type { ToolServices } from './tool-services.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** What the process gives the tool server, through callbacks from the composition root. */
export interface ToolServerHost {
  /** Built-in and custom tools; the built-ins are added when missing. */
  readonly tools: ToolRegistry;
  /** What agents inside the app did (get_service_health's AGENTS, get_incident_context's guardrail trips). */
  readonly agents?: AgentActivity;
  /** Custom remediation actions registered before the server started, handed over once. */
  readonly takePendingActions?: () => readonly CustomActionDefinition[];
  /** Told the remediation before the server starts, so actions registered from now on go straight to it. */
  readonly onRemediation?: (remediation: Remediation) => void;
  readonly onPortBound?: (port: number) => void;
  readonly onPortReleased?: (port: number) => void;
  /** The tracer of the tool calls' spans (scope MCP_INSTRUMENTATION_SCOPE); none: calls are not traced. */
  readonly tracer?: Tracer;
  /** Browser telemetry, when svc.frontend.enabled (get_cross_stack_context). */
  readonly frontend?: FrontendTelemetry;
  /** The state store: what the tools hold is written there, and the previous run's state restored. */
  readonly state?: OpenedState;
  /** The fleet this replica belongs to (Redis store): health, SLOs and trends show it. */
  readonly fleet?: FleetView;
}

/** The services tools act on, built from configuration; with `state`, what they hold goes to the state store. */
export function toolServices(config: ResolvedConfig, engine: Engine, metadata: ServiceMetadata, host: Pick<ToolServerHost, 'agents' | 'frontend' | 'state' | 'fleet'> = {}): ToolServices {
  const { agents, frontend, state, fleet } = host;
  const audit = new AuditTrail(engine.clock, config.get('limits.max-audit-entries'));
  const verifier = new Verifier(engine, config.get('mcp.verification-delay'));
  const approvals = new Approvals(engine.clock, config.get('mcp.approvers'), config.get('mcp.approval-ttl'));
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
  if (state) attachState(state, { changes: engine.changes, audit, sessions, incidents, remediation, verifier });
  return {
    engine,
    metadata,
    incidents,
    remediation,
    audit,
    sessions,
    verifier,
    maxOutputBytes: config.get('mcp.max-output-bytes'),
    ...(agents && { agents }),
    ...(frontend && { frontend }),
    ...(state && { store: () => state.writer.status() }),
    ...(fleet && { fleet }),
  };
}

export async function startToolServer(config: ResolvedConfig, engine: Engine, metadata: ServiceMetadata, host: ToolServerHost): Promise<ToolServer> {
  // The same check as start-up's and svc check's: a refused setting never reaches the constructors.
  const refused = toolServerProblems(config).filter((p) => p.level === 'error');
  if (refused.length) throw new ToolServerError(`the tool server is not started: ${refused.map((p) => `${p.key}: ${p.message.replace(`; ${NOT_STARTED}`, '')}`).join('; ')}`);
  const report = (line: string): void => void process.stderr.write(`svc: ${line}\n`);
  const services = toolServices(config, engine, metadata, host);
  for (const action of host.takePendingActions?.() ?? []) services.remediation.registerAction(action);
  host.onRemediation?.(services.remediation);
  // The previous run's state is in place before the first agent can ask (bounded by svc.store.timeout).
  if (host.state) await restoreState(host.state, { ...services, changes: engine.changes }, config.get<number>('store.timeout'), report);
  for (const tool of BUILT_IN_TOOLS) if (!host.tools.get(tool.name)) host.tools.register(tool);
  const roles = Roles.fromConfig(config);
  const oauth = oauthOptions(config);
  const refusals = new RefusalAudit(services.audit, () => engine.clock.now());
  const server = new ToolServer({
    host: config.get('mcp.host'),
    port: config.get('mcp.port'),
    maxBodyBytes: config.get('mcp.max-body-bytes'),
    rateLimitPerMinute: config.get('mcp.rate-limit-per-minute'),
    maxSessionsPerCredential: config.get('mcp.max-sessions-per-credential'),
    authenticator: Authenticator.fromConfig(config, roles),
    ...(oauth && {
      oauth: new ResourceServer(oauth, roles, {
        onProblem: (message) => reportError("fetching the OAuth issuer's metadata and keys", new Error(message)),
        onRefusal: (reason) => refusals.refused(reason),
      }),
    }),
    registry: host.tools,
    services,
    version: VERSION,
    ...(host.onPortBound && { onPortBound: host.onPortBound }),
    ...(host.onPortReleased && { onPortReleased: host.onPortReleased }),
    ...(host.tracer && { tracer: host.tracer }),
  });
  const url = await server.start();
  process.stderr.write(`svc: MCP tool server listening at ${url}\n`);
  return server;
}
