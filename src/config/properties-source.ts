/** `-Dsvc.<key>=<value>` tokens in the process arguments (DESIGN: system properties in Node). */
import { parsePropertyKey, UnknownKeyError } from './config-key.js';
import type { ConfigProblem, RawEntry } from './config-source.js';

const PREFIX = '-Dsvc.';
/** Tokens that may carry a secret after the key: never echoed when malformed. */
const SECRET_PREFIXES = ['-Dsvc.mcp.tokens.', '-Dsvc.store.password', '-Dsvc.store.url', '-Dsvc.mcp.oauth.introspection.client-secret'];

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
    const equals = token.indexOf('=');
    // The value is never part of `where`: messages show it once, cut, or not at all (mcp.tokens).
    const where = equals < 0 ? token : token.slice(0, equals);
    if (equals < 0) {
      // Without "=" the key cannot be told from a value typed after it (`-Dsvc.mcp.tokens.bot.sha256:<token>`).
      const secret = SECRET_PREFIXES.find((prefix) => token.startsWith(prefix));
      const shown = secret ? `${secret.slice(2)}… (${token.length - secret.length} characters not shown)` : token.slice(2);
      problems.push({ level: 'error', key: shown, where: `-D${shown}`, message: 'no value; write -Dsvc.<key>=<value>' });
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
