/**
 * Rules between keys, applied once every key has its value: values each key accepts alone can,
 * together, switch analysis off without a word or make svc hold more memory than a host expects.
 * A broken rule replaces one key's value and says so.
 */
import { formatBytes } from '../shared/memory-size.js';

export interface Correction {
  /** The key whose value is replaced. */
  readonly path: string;
  readonly value: number;
  /** What is wrong and what is used instead, without the key (the problem names it). */
  readonly message: string;
}

/** Memory the per-operation analysis state may take, all operations together. */
export const ANALYSIS_BUDGET_BYTES = 256 * 1024 * 1024;

/**
 * Worst-case bytes of one operation's analysis state, measured on Node 24 (docs/configuration.md):
 * the rolling window keeps latency, its log and the error flag (24 B per observation), the minute
 * history a 75-bucket histogram per minute with traffic (about 450 B), plus maps and small
 * objects, among them the pattern window (7 time buckets) and the cold-start record (at most
 * 120 slots), under 1 KB together.
 */
export function analysisBytesPerOperation(rollingWindowSize: number, historyMinutes: number): number {
  return 24 * rollingWindowSize + 450 * historyMinutes + 4096;
}

/** At most `limit`: a minimum count that a window can never reach would never let its check run. */
function notAbove(get: (path: string) => number, path: string, limitPath: string, defaultValue: number, consequence: string): Correction | undefined {
  const value = get(path);
  const limit = get(limitPath);
  if (value <= limit) return undefined;
  const used = Math.min(defaultValue, limit);
  return { path, value: used, message: `${value} is more than svc.${limitPath} (${limit}), so ${consequence}; accepted here: an integer from 1 to ${limit}; using ${used}` };
}

/** `get` reads a key's value as resolved so far; `defaultOf` its schema default. */
export function crossKeyCorrections(get: (path: string) => number, defaultOf: (path: string) => number): Correction[] {
  const corrections: Correction[] = [];
  const push = (correction: Correction | undefined): void => {
    if (correction) corrections.push(correction);
  };
  push(notAbove(get, 'baselines.rolling-min-samples', 'baselines.rolling-window-size', defaultOf('baselines.rolling-min-samples'), 'no rolling baseline would ever form'));

  const window = get('baselines.rolling-window-size');
  const history = get('limits.history-minutes');
  const operations = get('limits.max-operations');
  const each = analysisBytesPerOperation(window, history);
  if (operations * each > ANALYSIS_BUDGET_BYTES) {
    const fit = Math.max(1, Math.floor(ANALYSIS_BUDGET_BYTES / each));
    corrections.push({
      path: 'limits.max-operations',
      value: fit,
      message:
        `${operations} operations may hold up to ${formatBytes(operations * each)} of analysis state (${formatBytes(each)} each with svc.baselines.rolling-window-size ${window}, ` +
        `svc.limits.history-minutes ${history}), more than the ${formatBytes(ANALYSIS_BUDGET_BYTES)} svc allows itself; ` +
        `accepted with these sizes: an integer from 1 to ${fit}; using ${fit}`,
    });
  }
  return corrections;
}
