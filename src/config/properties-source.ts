/** `-Dsvc.<key>=<value>` tokens in the process arguments (DESIGN: system properties in Node). */
import { parsePropertyKey, UnknownKeyError } from './config-key.js';
import type { ConfigProblem, RawEntry } from './config-source.js';

const PREFIX = '-Dsvc.';

export interface PropertiesRead {
  readonly entries: RawEntry[];
  readonly problems: ConfigProblem[];
  /** Indexes into the given argument list of the tokens that were consumed. */
  readonly consumed: number[];
}

/** Reads every `-Dsvc.` token; other arguments, including other `-D` ones, are left alone. */
export function readProperties(args: readonly string[]): PropertiesRead {
  const entries: RawEntry[] = [];
  const problems: ConfigProblem[] = [];
  const consumed: number[] = [];
  args.forEach((token, index) => {
    if (!token.startsWith(PREFIX)) return;
    consumed.push(index);
    const where = token;
    const equals = token.indexOf('=');
    if (equals < 0) {
      problems.push({ level: 'error', key: token.slice(2), where, message: 'no value; write -Dsvc.<key>=<value>' });
      return;
    }
    const key = token.slice(PREFIX.length, equals);
    try {
      entries.push({ segments: parsePropertyKey(key), raw: token.slice(equals + 1), source: { kind: 'property', where } });
    } catch (error) {
      if (!(error instanceof UnknownKeyError)) throw error;
      problems.push({ level: 'error', key: `svc.${key}`, where, message: error.message });
    }
  });
  return { entries, problems, consumed };
}
