/** Where a configuration value came from, and the problems found while reading the sources. */
import type { Segment } from './config-key.js';

/** Highest precedence first: properties > env > file > decorator > profile > default. */
export type SourceKind = 'property' | 'env' | 'file' | 'decorator' | 'profile' | 'default';

export interface Source {
  readonly kind: SourceKind;
  /** `-Dsvc.enabled=false`, `SVC_ENABLED`, `svc.yml:12`, `@AgentOperation on Orders.get`, ... */
  readonly where: string;
}

export const DEFAULT_SOURCE: Source = Object.freeze({ kind: 'default', where: 'default' });

/** A value as a source gave it, before it is parsed by its key's type. */
export interface RawEntry {
  readonly segments: readonly Segment[];
  readonly raw: unknown;
  readonly source: Source;
}

export interface ConfigProblem {
  readonly level: 'error' | 'warning';
  /** Display form of the key, with the `svc.` prefix, or the source for whole-file problems. */
  readonly key: string;
  readonly where: string;
  readonly message: string;
}

export function formatProblem(problem: ConfigProblem): string {
  return `svc config ${problem.level}: ${problem.key} (${problem.where}): ${problem.message}`;
}
