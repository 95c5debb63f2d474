/**
 * Assembles and starts the tool server from configuration: roles, tokens, the incident tracker,
 * remediation with its audit trail and verifier, sessions, and the built-in tools beside the
 * app's custom ones. The URL goes to stderr, as the port may be ephemeral.
 */
import { readFileSync } from 'node:fs';
import type { Engine } from '../analysis/engine.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import { Approvals } from '../incidents/approvals.js';
import { AuditTrail } from '../incidents/audit-trail.js';
import { IncidentTracker } from '../incidents/incident-tracker.js';
import { Remediation } from '../incidents/remediation.js';
import { SessionStore } from '../incidents/session-store.js';
import { Verifier } from '../incidents/verification.js';
import type { ServiceMetadata } from '../metadata/service-metadata.js';
import { runtime } from '../runtime.js';
import { attachState, restoreState } from '../state-persistence.js';
import type { OpenedState } from '../store/open-state.js';
import { Authenticator } from './authenticator.js';
import { BUILT_IN_TOOLS } from './built-in-tools.js';
import { Roles } from './roles.js';
import { ToolServer, ToolServerError } from './tool-server.js';
import { NOT_STARTED, toolServerProblems } from './tool-server-config.js';
import type { ToolServices } from './tool-services.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The services tools act on, built from configuration; with `state`, what they hold goes to the state store. */
export function toolServices(config: ResolvedConfig, engine: Engine, metadata: ServiceMetadata, state?: OpenedState): ToolServices {
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
    agents: runtime().agents,
    frontend: runtime().frontend,
    ...(state && { store: () => state.writer.status() }),
  };
}

export async function startToolServer(config: ResolvedConfig, engine: Engine, metadata: ServiceMetadata, persisted?: OpenedState): Promise<ToolServer> {
  // The same check as start-up's and svc check's: a refused setting never reaches the constructors.
  const refused = toolServerProblems(config).filter((p) => p.level === 'error');
  if (refused.length) throw new ToolServerError(`the tool server is not started: ${refused.map((p) => `${p.key}: ${p.message.replace(`; ${NOT_STARTED}`, '')}`).join('; ')}`);
  const state = runtime();
  const report = (line: string): void => void process.stderr.write(`svc: ${line}\n`);
  const services = toolServices(config, engine, metadata, persisted);
  for (const action of state.pendingActions.splice(0)) services.remediation.registerAction(action);
  state.remediation = services.remediation;
  // The previous run's state is in place before the first agent can ask (bounded by svc.store.timeout).
  if (persisted) await restoreState(persisted, { ...services, changes: engine.changes }, config.get<number>('store.timeout'), report);
  for (const tool of BUILT_IN_TOOLS) if (!state.tools.get(tool.name)) state.tools.register(tool);
  const roles = Roles.fromConfig(config);
  const server = new ToolServer({
    host: config.get('mcp.host'),
    port: config.get('mcp.port'),
    maxBodyBytes: config.get('mcp.max-body-bytes'),
    rateLimitPerMinute: config.get('mcp.rate-limit-per-minute'),
    maxSessionsPerCredential: config.get('mcp.max-sessions-per-credential'),
    authenticator: Authenticator.fromConfig(config, roles),
    registry: state.tools,
    services,
    version: VERSION,
  });
  const url = await server.start();
  state.toolServer = server;
  process.stderr.write(`svc: MCP tool server listening at ${url}\n`);
  return server;
}
