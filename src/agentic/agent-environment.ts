/**
 * What agents inside the app run with, set by the composition root (src/wiring/start.ts): the running
 * svc's configuration (undefined while svc is not running: code's defaults apply) and the activity
 * the tools read. Global, like the other registries, so the preload and the app's copy of the API
 * meet.
 */
import type { ResolvedConfig } from '../config/resolved-config.js';
import { AgentActivity } from './agent-activity.js';

export interface AgentEnvironment {
  config: ResolvedConfig | undefined;
  /** What agents inside the app did (invocations, trips, cost), for the tools; replaceable by tests. */
  activity: AgentActivity;
}

const KEY = Symbol.for('svc.agent-environment');

export function agentEnvironment(): AgentEnvironment {
  const holder = globalThis as { [KEY]?: AgentEnvironment };
  return (holder[KEY] ??= { config: undefined, activity: new AgentActivity() });
}
