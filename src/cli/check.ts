/**
 * `svc check [--all] [--config FILE] [-Dsvc.key=value ...]`: validates the configuration the
 * preload would see here (properties, `SVC_*` env, the file) with the very checks start-up runs
 * (load-config.ts, then startup-checks.ts), prints the values that differ from the defaults
 * (every value with `--all`) in the syntax the file accepts, with their sources, and the most
 * memory agents can make svc hold with it (agent-state-ceiling.ts).
 *
 * Exits 1 when there are errors (what start-up would ignore or refuse: an invalid value, an
 * unknown key, an unknown role, a tool server it would not start), 2 on a usage error, else 0;
 * warnings alone exit 0 but the last line says how many there are.
 */

import { agentNamesInSource } from '../agentic/agent-names-in-source.js';
import { configuredAgentWhere } from '../agentic/configured-agents.js';
import { specOf } from '../config/config-key.js';
import type { ConfigProblem } from '../config/config-source.js';
import { formatProblem } from '../config/config-source.js';
import { loadConfig } from '../config/load-config.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import { isSecretPath, type KeySpec } from '../config/schema.js';
import { startupChecks } from '../config/startup-checks.js';
import { agentStateCeiling, ceilingLimitsFromConfig } from '../mcp/agent-state-ceiling.js';
import { configuredTokens } from '../mcp/authenticator.js';
import { authenticationMode } from '../mcp/oauth/oauth-options.js';
import { toolServerProblems } from '../mcp/tool-server-config.js';
import { OperationCatalog } from '../metadata/operation-catalog.js';
import { formatBytes } from '../shared/memory-size.js';
import { printable, printableValue } from '../shared/printable.js';
import { chosenInstrumentations } from '../telemetry/instrumentation-set.js';

export const USAGE = `usage: svc check [--all] [--config FILE] [-Dsvc.<key>=<value> ...]
       svc --version

  svc check validates the svc configuration the preload would read here (the file, SVC_*
  variables, -Dsvc.* arguments) with the checks start-up runs, and prints the values that
  differ from the defaults with their sources (--all: every value, and the memory breakdown).
  Exits 1 when the configuration has errors, 2 on a usage error, 0 otherwise.`;

/** A printed value as the file accepts it (`30s`, `[READ, DIAGNOSE]`), cut and escaped; anything under mcp.tokens is hidden (a raw token may have been pasted there). */
function formatValue(spec: KeySpec, value: unknown): string {
  if (isSecretPath(spec.path)) return '(hidden)';
  return printable(spec.type.format(value), 300);
}

/** A warning per configured agent whose name no source file under `cwd` quotes (start-up warns on what the code really declared). */
function agentsNotInSource(config: ResolvedConfig, cwd: string): ConfigProblem[] {
  const names = config.names('agentic.agents');
  if (names.length === 0 || !config.get<boolean>('enabled')) return [];
  const scan = agentNamesInSource(cwd, names);
  const searched = `${scan.files} source file(s) under ${printable(cwd, 200)}${scan.partial ? ', the walk stopped at its limit' : ''}`;
  return names
    .filter((name) => !scan.found.has(name))
    .map((name) => ({
      level: 'warning' as const,
      key: `svc.agentic.agents.${name}`,
      where: configuredAgentWhere(config, name),
      message: `no agent named "${printable(name, 100)}" is quoted in the project's source (${searched}); its guardrails apply only to an agent invoked or annotated with exactly this name`,
    }));
}

export function check(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string, out: (line: string) => void): number {
  let configFile: string | undefined;
  let all = false;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--config') {
      configFile = args[++i];
      if (!configFile) {
        out('svc check: --config needs a file path');
        return 2;
      }
    } else if (arg.startsWith('--config=')) configFile = arg.slice('--config='.length);
    else if (arg === '--all') all = true;
    else if (arg === '--help' || arg === '-h') {
      out(USAGE);
      return 0;
    } else if (arg.startsWith('-Dsvc.')) rest.push(arg);
    else {
      out(`svc check: unknown argument ${printableValue(arg)}\n${USAGE}`);
      return 2;
    }
  }
  const { config, configFile: used, configFileAbsent } = loadConfig({ args: rest, env, cwd, configFile });
  out(configFileAbsent ? `config file: none at ${printable(used, 300)} (the default path; --config, -Dsvc.config.file or SVC_CONFIG_FILE names another)` : `config file: ${printable(used, 300)}`);

  // The operation catalog start-up uses, without decorators: the CLI cannot see them.
  const problems: ConfigProblem[] = [...config.problems];
  const catalog = new OperationCatalog(
    config,
    { observable: undefined, dependencies: [], consumers: [], operations: new Map(), operationOfSpan: new WeakMap(), version: 0, active: false },
    (problem) => problems.push(problem),
  );
  const checks = startupChecks(config, catalog, toolServerProblems);
  problems.push(...checks.problems, ...agentsNotInSource(config, cwd));
  for (const problem of problems) out(formatProblem(problem));
  if (checks.skipped) out(`note: ${checks.skipped}`);

  const sorted = [...config.entries()].sort((a, b) => a.key.localeCompare(b.key));
  const shownEntries = all ? sorted : sorted.filter((e) => e.source.kind !== 'default');
  const defaults = sorted.length - sorted.filter((e) => e.source.kind !== 'default').length;
  if (all) out('effective configuration, every value:');
  else if (shownEntries.length) out(defaults ? `configured values (${defaults} other keys have their defaults; svc check --all lists them):` : 'configured values (every key):');
  else out(`configured values: none, every key has its default (svc check --all lists them)`);
  const entries = shownEntries.map((e) => ({ ...e, shown: printable(`svc.${e.key}`, 300) }));
  const width = Math.min(60, Math.max(0, ...entries.map((e) => e.shown.length))) + 4;
  for (const entry of entries) out(`  ${entry.shown.padEnd(width)} ${formatValue(specOf(config.segmentsOf(entry.key)), entry.value)}  (${printable(entry.source.where, 300)})`);

  for (const line of baselineLines(config, catalog)) out(line);
  out(instrumentationLine(config, env));

  // With svc off there is no tool server, so agents can make svc hold nothing.
  // Agents reach svc only through the tool server: with svc or the tool server off they hold nothing.
  if (config.get<boolean>('enabled') && config.get<boolean>('mcp.enabled')) {
    out(authenticationMode(config, configuredTokens(config).length));
    for (const line of agentMemoryLines(config, all)) out(line);
  }

  const errors = problems.filter((p) => p.level === 'error').length;
  const warnings = problems.length - errors;
  const warned = warnings ? `, ${warnings} warning(s)` : '';
  if (errors) out(`${errors} error(s)${warned}: start-up would ignore or refuse what they name`);
  else out(warnings ? `no errors, ${warnings} warning(s): read them above` : 'configuration is valid');
  return errors ? 1 : 0;
}

/** The most memory agents can make svc hold (agent-state-ceiling.ts), broken down with --all. */
function agentMemoryLines(config: ResolvedConfig, all: boolean): string[] {
  const ceiling = agentStateCeiling(ceilingLimitsFromConfig(config));
  const lines = [`memory agents can make svc hold, at most: ${formatBytes(ceiling.totalBytes)}${all ? '' : ' (svc check --all breaks it down)'}`];
  if (all) {
    const nameWidth = Math.max(...ceiling.parts.map((p) => p.name.length)) + 2;
    for (const part of ceiling.parts) lines.push(`  ${part.name.padEnd(nameWidth)}${formatBytes(part.bytes).padStart(10)}  ${part.rule}`);
  }
  return lines;
}

/** The instrumentations the preload would set up (docs/telemetry.md "Instrumentations"). */
function instrumentationLine(config: ResolvedConfig, env: NodeJS.ProcessEnv): string {
  const chosen = chosenInstrumentations({ configured: config.get<string[]>('telemetry.instrumentations'), env });
  const middleware = config.get<boolean>('telemetry.middleware-spans') ? ', with middleware spans' : '';
  return `instrumentations, each set up when the app loads what it instruments${middleware}: ${chosen.join(', ') || 'none'}`;
}

/**
 * How each configured operation is judged, figure by figure: a configured figure as configured,
 * the rest learned over the horizon, and errors not at all where `expected-error-rate: -1` is
 * given (rule 9; an outage still is).
 */
function baselineLines(config: ResolvedConfig, catalog: OperationCatalog): string[] {
  const horizon = formatValue(specOf(config.segmentsOf('baselines.horizon')), config.get('baselines.horizon'));
  const lines = catalog.names().map((name) => {
    const op = catalog.resolve(name);
    const latency = (label: string, value: number | undefined) => (value === undefined ? `${label} learned` : `${label} configured (${value}ms)`);
    const errors =
      op.expectedErrorRate !== undefined
        ? `error rate configured (${op.expectedErrorRate})`
        : op.sources.expectedErrorRate?.kind === 'default'
          ? 'error rate learned'
          : 'error rate not judged (expected-error-rate: -1; an outage still is)';
    return `  ${printable(name, 200)}: ${latency('p50', op.expectedLatencyP50Ms)}, ${latency('p99', op.expectedLatencyP99Ms)}, ${errors}`;
  });
  return lines.length ? [`baselines: what is not configured is learned over ${horizon} (svc.baselines.horizon); every other operation learns all three`, ...lines] : [];
}
