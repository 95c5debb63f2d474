/**
 * Reads the three sources of rule 2 and resolves them: properties (`-Dsvc.*` arguments and the
 * programmatic `properties` option) > `SVC_*` env > the YAML file. This is the only place that
 * reads `process.argv` and `process.env`.
 */
import { isAbsolute, resolve } from 'node:path';
import { parsePropertyKey, UnknownKeyError } from './config-key.js';
import type { ConfigProblem, RawEntry } from './config-source.js';
import { readEnv } from './env-source.js';
import { readConfigFile, svcOffEntry } from './file-source.js';
import { readProperties } from './properties-source.js';
import { ResolvedConfig } from './resolved-config.js';
import { keySpec } from './schema.js';
import { ValueError } from './value-types.js';

export interface LoadConfigOptions {
  /** Arguments after the script, scanned for `-Dsvc.*` tokens. Default: `process.argv.slice(2)`. */
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Programmatic properties, same precedence as `-D`: `{ 'topology.team': 'payments' }`. */
  readonly properties?: Readonly<Record<string, unknown>>;
  /** Overrides every other way of naming the config file (used by `svc check --config`). */
  readonly configFile?: string;
}

export interface LoadedConfig {
  readonly config: ResolvedConfig;
  /** Indexes into `args` of the `-Dsvc.*` tokens that were read, for removal from `process.argv`. */
  readonly consumedArgs: readonly number[];
  /** The config file's absolute path, read or looked for. */
  readonly configFile: string;
  /** No file was at the default path, so none was read. */
  readonly configFileAbsent: boolean;
}

export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const fromArgs = readProperties(options.args ?? process.argv.slice(2));
  const problems: ConfigProblem[] = [];
  const programmatic: RawEntry[] = [];
  for (const [given, raw] of Object.entries(options.properties ?? {})) {
    const key = given.replace(/^svc\./, '');
    const where = `properties["svc.${key}"]`;
    try {
      programmatic.push({ segments: parsePropertyKey(key), raw, source: { kind: 'property', where } });
    } catch (error) {
      if (!(error instanceof UnknownKeyError)) throw error;
      problems.push({ level: 'error', key: `svc.${key}`, where, message: error.message });
    }
  }
  const properties = [...fromArgs.entries, ...programmatic];
  const fromEnv = readEnv(env);

  const named = options.configFile ?? configFileFrom(properties.find((e) => e.segments.join('.') === 'config.file')?.raw ?? env.SVC_CONFIG_FILE);
  const configFile = named ? (isAbsolute(named) ? named : resolve(cwd, named)) : resolve(cwd, 'svc.yml');
  const fromFile = readConfigFile(configFile, named !== undefined, cwd);
  // A file svc was pointed at but cannot use turns svc off, whatever else sets svc.enabled: running
  // on settings nobody chose could start the tool server a file had switched off.
  const off = fromFile.unusable ? [svcOffEntry(fromFile.problems[0]?.where.replace(/(:\d+)+$/, '') ?? configFile)] : [];

  const config = new ResolvedConfig([off, properties, fromEnv.entries, fromFile.entries], [...fromArgs.problems, ...problems, ...fromEnv.problems, ...fromFile.problems]);
  return { config, consumedArgs: fromArgs.consumed, configFile, configFileAbsent: fromFile.absent === true };
}

/** The configured file path, if valid; ResolvedConfig reports an invalid one, and the default file is read. */
function configFileFrom(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  try {
    return keySpec('config.file').type.parse(raw) as string;
  } catch (error) {
    if (!(error instanceof ValueError)) throw error;
    return undefined;
  }
}
