/**
 * The running instance of svc in this process, under a global symbol so that every copy of the
 * package (preload, ESM and CommonJS imports of the API) sees the same one.
 */
import { AgentActivity } from './agentic/agent-activity.js';
import type { Engine } from './analysis/engine.js';
import type { ResolvedConfig } from './config/resolved-config.js';
import type { FrontendListener } from './frontend/frontend-listener.js';
import type { FrontendTelemetry } from './frontend/frontend-telemetry.js';
import type { CustomActionDefinition, Remediation } from './incidents/remediation.js';
import { ToolRegistry } from './mcp/tool-registry.js';
import type { ToolServer } from './mcp/tool-server.js';
import type { ServiceMetadata } from './metadata/service-metadata.js';
import type { StateWriter } from './store/state-writer.js';

export interface Runtime {
  /** True while the preload (or `start()`) runs with `svc.enabled=true`. */
  active: boolean;
  /** The analysis engine of the running instance, for the API and the tool server. */
  engine: Engine | undefined;
  /** Built-in and custom tools; custom tools may be registered before the server starts. */
  readonly tools: ToolRegistry;
  remediation: Remediation | undefined;
  /** Custom remediation actions registered before the tool server started. */
  readonly pendingActions: CustomActionDefinition[];
  toolServer: ToolServer | undefined;
  /** What the preload resolved, so the API can (re)start the tool server. */
  context: { readonly config: ResolvedConfig; readonly metadata: ServiceMetadata } | undefined;
  /** Browser telemetry received by the frontend listener (svc.frontend.enabled). */
  frontend?: FrontendTelemetry;
  frontendListener?: FrontendListener;
  /** Ports svc itself serves (the tool server): their requests are not traced as the app's. */
  readonly ownPorts: Set<number>;
  /** The state store's writer of the running instance (docs/state.md). */
  state?: StateWriter;
  /** What agents inside the app did (invocations, trips, cost), for the tools; replaceable by tests. */
  agents: AgentActivity;
}

const KEY = Symbol.for('svc.runtime');

export function runtime(): Runtime {
  const holder = globalThis as { [KEY]?: Runtime };
  const state = (holder[KEY] ??= {
    active: false,
    engine: undefined,
    tools: new ToolRegistry(),
    remediation: undefined,
    pendingActions: [],
    toolServer: undefined,
    context: undefined,
    ownPorts: new Set(),
    agents: new AgentActivity(),
  });
  // A runtime created by an older copy of the package has no agent activity yet.
  state.agents ??= new AgentActivity();
  return state;
}
