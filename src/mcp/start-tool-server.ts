/**
 * Assembles and starts the tool server from configuration: roles, tokens, and the built-in tools
 * beside the app's custom ones, over the analysis and the incident response the composition root
 * (src/wiring/start.ts) built. What belongs to the process (the tool registry, the agents' activity, the
 * ports svc serves) comes from the composition root as a ToolServerHost. The URL goes to stderr, as the port may be ephemeral.
 */
import { readFileSync } from 'node:fs';
import type { Tracer } from '@opentelemetry/api';
import type { AgentActivity } from '../agentic/agent-activity.js';
import type { AnalysisEngine } from '../analysis/analysis-engine.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import type { FleetView } from '../fleet/fleet-view.js';
import type { FrontendTelemetry } from '../frontend/frontend-telemetry.js';
import type { IncidentResponse } from '../incidents/incident-response.js';
import type { ServiceMetadata } from '../metadata/service-metadata.js';
import { reportError } from '../shared/report-error.js';
import type { StoreStatus } from '../store/state-writer.js';
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
  readonly onPortBound?: (port: number) => void;
  readonly onPortReleased?: (port: number) => void;
  /** The tracer of the tool calls' spans (scope MCP_INSTRUMENTATION_SCOPE); none: calls are not traced. */
  readonly tracer?: Tracer;
  /** Browser telemetry, when svc.frontend.enabled (get_cross_stack_context). */
  readonly frontend?: FrontendTelemetry;
  /** The state store's status (get_service_health notes a degraded one); absent: state is not persisted. */
  readonly store?: () => StoreStatus;
  /** Settles once the previous run's state is restored (or could not be). */
  readonly restored?: Promise<void>;
  /** The fleet this replica belongs to (Redis store): health, SLOs and trends show it. */
  readonly fleet?: FleetView;
}

/** The services tools act on: the analysis, the metadata and what responds to incidents, with what the process adds. */
export function toolServices(
  config: ResolvedConfig,
  engine: AnalysisEngine,
  metadata: ServiceMetadata,
  response: IncidentResponse,
  host: Pick<ToolServerHost, 'agents' | 'frontend' | 'store' | 'fleet'> = {},
): ToolServices {
  const { agents, frontend, store, fleet } = host;
  return {
    analysis: engine,
    metadata,
    ...response,
    maxOutputBytes: config.get('mcp.max-output-bytes'),
    ...(agents && { agents }),
    ...(frontend && { frontend }),
    ...(store && { store }),
    ...(fleet && { fleet }),
  };
}

export async function startToolServer(config: ResolvedConfig, engine: AnalysisEngine, metadata: ServiceMetadata, response: IncidentResponse, host: ToolServerHost): Promise<ToolServer> {
  // The same check as start-up's and svc check's: a refused setting never reaches the constructors.
  const refused = toolServerProblems(config).filter((p) => p.level === 'error');
  if (refused.length) throw new ToolServerError(`the tool server is not started: ${refused.map((p) => `${p.key}: ${p.message.replace(`; ${NOT_STARTED}`, '')}`).join('; ')}`);
  const services = toolServices(config, engine, metadata, response, host);
  // The previous run's state is in place before the first agent can ask (bounded by svc.store.timeout).
  await host.restored;
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
    maxConcurrentCalls: config.get('mcp.max-concurrent-calls'),
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
    statusPage: config.get('mcp.status-page'),
  });
  const url = await server.start();
  process.stderr.write(`svc: MCP tool server listening at ${url}\n`);
  return server;
}
