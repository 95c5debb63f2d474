/**
 * The running instance of svc in this process, under a global symbol so that every copy of the
 * package (preload, ESM and CommonJS imports of the API) sees the same one. Only the composition
 * root (src/wiring/start.ts) and the public API (src/api.ts) read it.
 */

import type { CustomActionDefinition, Remediation } from '../incidents/remediation.js';
import { ToolRegistry } from '../mcp/tool-registry.js';
import type { ToolServer } from '../mcp/tool-server.js';
import type { Engine } from './service-engine.js';

export interface Runtime {
  /** The analysis engine of the running instance, for the API and the tool server. */
  engine: Engine | undefined;
  /** Built-in and custom tools; custom tools may be registered before the server starts. */
  readonly tools: ToolRegistry;
  remediation: Remediation | undefined;
  /** Custom remediation actions registered before svc started. */
  readonly pendingActions: CustomActionDefinition[];
  toolServer: ToolServer | undefined;
  /** Starts the tool server with what the running instance holds (the API's startToolServer). */
  launchToolServer: (() => Promise<ToolServer>) | undefined;
  /** Ports svc itself serves (the tool server, the frontend listener): their requests are not traced as the app's. */
  readonly ownPorts: Set<number>;
}

const KEY = Symbol.for('svc.runtime');

export function runtime(): Runtime {
  const holder = globalThis as { [KEY]?: Runtime };
  return (holder[KEY] ??= {
    engine: undefined,
    tools: new ToolRegistry(),
    remediation: undefined,
    pendingActions: [],
    toolServer: undefined,
    launchToolServer: undefined,
    ownPorts: new Set(),
  });
}
