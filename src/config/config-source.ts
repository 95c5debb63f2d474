/** Where a configuration value came from, and the problems found while reading the sources. */

import { printable } from '../shared/printable.js';
import type { Segment } from './config-key.js';

/** Highest precedence first: properties > env > file > decorator > profile > default. */
export type SourceKind = 'property' | 'env' | 'file' | 'decorator' | 'profile' | 'default';

export interface Source {
  readonly kind: SourceKind;
  /** `-Dsvc.enabled` (never the value), `SVC_ENABLED`, `svc.yml:12`, `@AgentOperation on Orders.get`, ... */
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
  /** Lines printed under the problem's line, indented: the offending YAML line, a caret, the fix. */
  readonly detail?: readonly string[];
}

/** Bounds of a printed problem's parts; values inside the message are already cut to VALUE_CHARS. */
const KEY_CHARS = 300;
const WHERE_CHARS = 300;
const MESSAGE_CHARS = 1200;
const DETAIL_CHARS = 400;

/**
 * One line, safe for a terminal: control characters escaped, each part cut to a bound; a problem
 * with detail (a YAML syntax error) adds its indented lines, each cut too.
 */
export function formatProblem(problem: ConfigProblem): string {
  const line = `svc config ${problem.level}: ${printable(problem.key, KEY_CHARS)} (${printable(problem.where, WHERE_CHARS)}): ${printable(problem.message, MESSAGE_CHARS)}`;
  return problem.detail?.length ? [line, ...problem.detail.map((d) => printable(d, DETAIL_CHARS))].join('\n') : line;
}
