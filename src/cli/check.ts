/**
 * `svc check [--config FILE] [-Dsvc.key=value ...]`: validates the configuration the preload would
 * see here (properties, `SVC_*` env, the file), prints every effective value with its source and
 * the most memory agents can make svc hold with it (agent-state-ceiling.ts).
 * Returns 1 when there are errors (for the user's own CI), 2 for a usage error, else 0.
 */
import { formatProblem } from '../config/config-source.js';
import { loadConfig } from '../config/load-config.js';
import { isSecretPath } from '../config/schema.js';
import { agentStateCeiling, ceilingLimitsFromConfig } from '../mcp/agent-state-ceiling.js';
import { formatBytes } from '../memory-size.js';
import { printable, printableValue } from '../printable.js';

export const USAGE = `usage: svc check [--config FILE] [-Dsvc.<key>=<value> ...]

  Validates svc configuration and prints each effective value with its source.
  Exits 1 when the configuration has errors, 0 otherwise.`;

/** Printed values are cut and escaped like values in messages; anything under mcp.tokens is hidden (a raw token may have been pasted there). */
function formatValue(key: string, value: unknown): string {
  if (isSecretPath(key)) return '(hidden)';
  return Array.isArray(value) ? printable(`[${value.join(', ')}]`, 200) : printableValue(value);
}

export function check(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string, out: (line: string) => void): number {
  let configFile: string | undefined;
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
    else if (arg.startsWith('-Dsvc.')) rest.push(arg);
    else {
      out(`svc check: unknown argument ${printableValue(arg)}\n${USAGE}`);
      return 2;
    }
  }
  const { config, configFile: used } = loadConfig({ args: rest, env, cwd, configFile });
  out(`config file: ${printable(used, 300)}`);
  for (const problem of config.problems) out(formatProblem(problem));
  out('effective configuration:');
  const entries = [...config.entries()].sort((a, b) => a.key.localeCompare(b.key)).map((e) => ({ ...e, shown: printable(`svc.${e.key}`, 300) }));
  const width = Math.min(60, Math.max(...entries.map((e) => e.shown.length))) + 4;
  for (const entry of entries) out(`  ${entry.shown.padEnd(width)} ${formatValue(entry.key, entry.value)}  (${printable(entry.source.where, 300)})`);
  const ceiling = agentStateCeiling(ceilingLimitsFromConfig(config));
  out(`memory agents can make svc hold, at most: ${formatBytes(ceiling.totalBytes)}`);
  const nameWidth = Math.max(...ceiling.parts.map((p) => p.name.length)) + 2;
  for (const part of ceiling.parts) out(`  ${part.name.padEnd(nameWidth)}${formatBytes(part.bytes).padStart(10)}  ${part.rule}`);
  const errors = config.errors().length;
  out(errors ? `${errors} error(s)` : 'configuration is valid');
  return errors ? 1 : 0;
}
