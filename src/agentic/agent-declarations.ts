/**
 * The agents this process declared, under a global symbol so the preload and the app's copies of
 * the API meet: each name's `@AgentMethod` options and `agent(name, defaults)` builder defaults
 * (the two lower levels of rule 7, whichever entry point invokes the agent), and every name that
 * was declared or invoked (what `configuredAgentsNeverDeclared` compares the configuration with).
 * At most `MAX_DECLARED` names are kept.
 */
import type { AgentDefaults } from './agent-settings.js';

export const MAX_DECLARED = 1024;

export interface AgentDeclarations {
  /** `@AgentMethod` options per agent name (the last decorator of a name wins). */
  readonly methods: Map<string, AgentDefaults>;
  /** `agent(name, defaults)` builder defaults per agent name (the last builder of a name wins). */
  readonly builders: Map<string, AgentDefaults>;
  /** Every name declared or invoked. */
  readonly seen: Set<string>;
  /** Increments on every change, so resolved settings know they are stale. */
  version: number;
}

const KEY = Symbol.for('svc.agent-declarations');

export function agentDeclarations(): AgentDeclarations {
  const holder = globalThis as { [KEY]?: AgentDeclarations };
  return (holder[KEY] ??= { methods: new Map(), builders: new Map(), seen: new Set(), version: 0 });
}

function remember(map: Map<string, AgentDefaults>, name: string, defaults: AgentDefaults): void {
  const declarations = agentDeclarations();
  if (!map.has(name) && map.size >= MAX_DECLARED) return;
  map.set(name, defaults);
  noteSeen(name);
  declarations.version++;
}

export function declareMethodAgent(name: string, options: AgentDefaults): void {
  remember(agentDeclarations().methods, name, options);
}

export function declareBuilderAgent(name: string, defaults: AgentDefaults): void {
  remember(agentDeclarations().builders, name, defaults);
}

export function noteSeen(name: string): void {
  const { seen } = agentDeclarations();
  if (seen.size < MAX_DECLARED) seen.add(name);
}

/** Names declared by `@AgentMethod` or `agent()`, or invoked, in this process. */
export function declaredAgentNames(): string[] {
  return [...agentDeclarations().seen];
}
