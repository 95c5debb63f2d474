/**
 * The checks start-up runs once every key has its value, beyond each key's own type: the SLOs
 * (slo-config.ts) and the tool server's (its credentials and bind address, given by the caller:
 * src/mcp/tool-server-config.ts). `start()` and `svc check` both call `startupChecks`, so the
 * check reports exactly what start-up would refuse or warn about. Like start-up, it skips the
 * SLOs when svc is off and the tool server checks when the tool server is off.
 */
import type { SloDefinition } from '../analysis/slo-tracker.js';
import type { ConfigProblem } from './config-source.js';
import type { ResolvedConfig } from './resolved-config.js';
import { type OperationLookup, sloConfiguration } from './slo-config.js';

export interface StartupChecks {
  readonly problems: ConfigProblem[];
  /** The SLOs the engine tracks. */
  readonly slos: SloDefinition[];
  /** An error keeps the tool server from starting (or it is off). */
  readonly toolServerRefused: boolean;
  /** What was not checked because start-up would not use it. */
  readonly skipped: string | undefined;
}

export function startupChecks(config: ResolvedConfig, operations: OperationLookup, toolServerProblems: (config: ResolvedConfig) => ConfigProblem[]): StartupChecks {
  if (!config.get<boolean>('enabled')) return { problems: [], slos: [], toolServerRefused: true, skipped: 'svc.enabled is false: the SLO and tool server checks are skipped, as start-up skips them' };
  const slo = sloConfiguration(config, operations);
  // Resolving each configured operation now reports, through the catalog's own report, what its
  // metadata cannot have (a profile that does not exist) at start rather than at its first request.
  for (const name of config.names('operations')) operations.resolve(name);
  if (!config.get<boolean>('mcp.enabled'))
    return { problems: slo.problems, slos: slo.definitions, toolServerRefused: true, skipped: 'svc.mcp.enabled is false: the tool server checks are skipped, as start-up skips them' };
  const toolServer = toolServerProblems(config);
  return { problems: [...slo.problems, ...toolServer], slos: slo.definitions, toolServerRefused: toolServer.some((p) => p.level === 'error'), skipped: undefined };
}
