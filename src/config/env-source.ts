/** `SVC_*` environment variables, one per scalar key of the schema (rule 4). */

import type { ConfigProblem, RawEntry } from './config-source.js';
import { didYouMean } from './did-you-mean.js';
import { envName, isScalarKey, SCHEMA } from './schema.js';

const BY_ENV_NAME = new Map(SCHEMA.filter(isScalarKey).map((spec) => [envName(spec.path), spec]));

export function readEnv(env: NodeJS.ProcessEnv): { entries: RawEntry[]; problems: ConfigProblem[] } {
  const entries: RawEntry[] = [];
  const problems: ConfigProblem[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('SVC_') || value === undefined) continue;
    const spec = BY_ENV_NAME.get(name);
    if (spec) {
      entries.push({ segments: spec.path.split('.'), raw: value, source: { kind: 'env', where: name } });
      continue;
    }
    const suggestion = didYouMean(name, BY_ENV_NAME.keys());
    problems.push({
      level: 'warning',
      key: name,
      where: 'environment',
      message: `unknown svc variable, ignored${suggestion ? `; did you mean ${suggestion}?` : ''}`,
    });
  }
  return { entries, problems };
}
