/**
 * The probable cause of an episode: the change that ranks first, with why it was chosen.
 *
 * Candidates: changes from `windowMs` (30 minutes) before the episode began up to its start, and
 * dependency or breaker changes up to `lateMs` (60 s) after it (their state is measured over a
 * window of calls, so a dependency's failure can be reported after the operation's first failing
 * requests). Never candidates: remediations (actions taken, not causes), breaker changes an action
 * made (within 1 s of a remediation on that breaker), and recoveries (a dependency back to
 * healthy, a breaker closing or half-open).
 *
 * Ranking, first by how directly the change touches the incident, then by how close it is to the
 * episode's start:
 * 1. direct: a change naming the incident's operation, or a state change of a dependency the
 *    service calls (svc does not track which operation calls which dependency, so each one the
 *    service calls counts as one of the operation's);
 * 2. process-wide: a deployment (it replaces the code of every operation, and the process's own
 *    start is one) or a configuration change that names no operation or dependency;
 * 3. unrelated: a change naming another operation, or a dependency the service does not call.
 *
 * A change is the cause only when the fault began with it or soon after it: one after which the
 * operation's traffic was normal for CLEARING_STRETCH_MS (20 s, the warm-up not counted) before
 * the episode began is no candidate (the process's start a minute before a fault, a flag switched
 * an hour before); the
 * reason says which (`the fault began with it`, `... soon after it, no normal traffic between`).
 *
 * A dependency or breaker whose first failure comes within CHAIN_MS (15 s) after a deployment or
 * configuration change is taken as that change's effect: the change is the probable cause, and the reason names the
 * failure that followed it (a flag that sends calls to a failing endpoint, a release with a broken
 * client). A dependency that fails on its own stays the cause.
 */
import type { ChangeEntry, ChangeTracker } from '../analysis/change-tracker.js';

export interface RankedCause {
  readonly change: ChangeEntry;
  /** Why it was chosen: timing and what it touches. */
  readonly reason: string;
}

export interface CauseOptions {
  readonly windowMs: number;
  readonly lateMs: number;
  /** Dependencies the service calls (or has breakers for). */
  readonly dependencies: () => Iterable<string>;
}

export const CAUSE_DEFAULTS = { windowMs: 30 * 60_000, lateMs: 60_000 } as const;

/** Normal traffic this long between a change and a fault clears the change. */
export const CLEARING_STRETCH_MS = 20_000;

/** A change this close before the fault's onset: the fault began with it. */
const WITH_IT_MS = 10_000;

/** How soon after a deployment or configuration change a dependency's failure counts as its effect. */
export const CHAIN_MS = 15_000;

/** Changes an agent's action makes in the same breath as the action (a forced breaker). */
const ACTION_SIDE_EFFECT_MS = 1000;

const RECOVERED = new Set(['healthy', 'closed', 'half_open']);

/**
 * `onsets`: when each pattern first showed in the episode (a fault that joins an episode already
 * open is anchored at its own onset, as when a release follows a warm-up): each is an anchor like
 * the episode's start, and a change is timed against the first anchor it precedes.
 */
export function rankedCause(
  changes: ChangeTracker,
  episode: {
    operation: string;
    /** When the fault's evidence began (an estimate: up to a third of the horizon that showed it early). */
    startedAt: number;
    /** Its first detection: a change between the onset and it came with the fault. */
    detectedAt?: number;
    onsets?: ReadonlyMap<string, number>;
    /** Since when the operation's traffic before the episode was normal; null: it was not; undefined: not known. */
    normalSince?: number | null;
  },
  options: CauseOptions,
): RankedCause | undefined {
  const { operation, startedAt, normalSince } = episode;
  const detectedAt = Math.max(startedAt, episode.detectedAt ?? startedAt);
  // Normal traffic for a stretch after a change and before the fault clears the change.
  const normalAfter = (change: ChangeEntry) => (typeof normalSince === 'number' ? Math.max(0, startedAt - Math.max(change.timestamp, normalSince)) : 0);
  const cleared = (change: ChangeEntry) => change.timestamp <= startedAt && normalAfter(change) >= CLEARING_STRETCH_MS;
  /** How the fault followed a change before it: with it, or soon after it (said only where the timeline is known). */
  const onsetRelation = (change: ChangeEntry, offsetMs: number): string => {
    if (offsetMs > 0) return '';
    if (-offsetMs <= WITH_IT_MS) return '; the fault began with it';
    if (normalSince === undefined) return '';
    const between = normalAfter(change);
    return `; the fault began soon after it, ${between > 0 ? `${duration(between)} of normal traffic between` : 'no normal traffic between'}`;
  };
  const anchors: [number, string][] = [
    [startedAt, 'the episode began'],
    ...[...(episode.onsets ?? [])].filter(([, at]) => at > detectedAt).map(([pattern, at]): [number, string] => [at, `${pattern} began`]),
  ];
  anchors.sort((a, b) => a[0] - b[0]);
  const last = anchors.at(-1)![0];
  const all = changes.between(startedAt - options.windowMs, Math.max(last, detectedAt) + options.lateMs);
  /** A change between the onset and the first detection came with the fault: timed as at its onset. */
  const timedAt = (change: ChangeEntry) => (change.timestamp > startedAt && change.timestamp <= detectedAt ? startedAt : change.timestamp);
  const actions = all.filter((c) => c.kind === 'remediation');
  const dependencies = new Set(options.dependencies());
  let best: { change: ChangeEntry; tier: number; distance: number; anchor: [number, string] } | undefined;
  for (const change of all) {
    const stateChange = change.kind === 'dependency_state' || change.kind === 'circuit_breaker';
    const at = timedAt(change);
    const anchor = anchors.find(([a]) => at <= a) ?? (stateChange ? anchors.findLast(([a]) => at - a <= options.lateMs) : undefined);
    if (!anchor || !isCandidate(change, actions) || cleared(change)) continue;
    const tier = tierOf(change, operation, dependencies);
    const distance = Math.abs(anchor[0] - at);
    if (!best || tier < best.tier || (tier === best.tier && distance < best.distance)) best = { change, tier, distance, anchor };
  }
  if (!best) return undefined;
  const reason = `${timing(timedAt(best.change) - best.anchor[0], best.anchor[1])}; ${relation(best.change, best.tier, operation)}${onsetRelation(best.change, timedAt(best.change) - best.anchor[0])}`;
  const origin = originOf(
    best.change,
    all.filter((c) => timedAt(c) <= last && isCandidate(c, actions) && !cleared(c)),
    operation,
    dependencies,
  );
  if (!origin) return { change: best.change, reason };
  const effect = `${origin.effect} ${duration(origin.failedAt - origin.change.timestamp)} after it`;
  return {
    change: origin.change,
    reason: `${timing(timedAt(origin.change) - best.anchor[0], best.anchor[1])}; ${relation(origin.change, tierOf(origin.change, operation, dependencies), operation)}; ${effect}${onsetRelation(origin.change, timedAt(origin.change) - best.anchor[0])}`,
  };
}

/**
 * The deployment or configuration change (before the episode) that the dependency's first failure
 * among the candidates followed within CHAIN_MS, if any.
 */
function originOf(
  failure: ChangeEntry,
  candidates: readonly ChangeEntry[],
  operation: string,
  dependencies: ReadonlySet<string>,
): { change: ChangeEntry; effect: string; failedAt: number } | undefined {
  if (failure.kind !== 'dependency_state' && failure.kind !== 'circuit_breaker') return undefined;
  const dependency = failure.touches.dependency;
  let first = failure;
  for (const c of candidates) if ((c.kind === 'dependency_state' || c.kind === 'circuit_breaker') && c.touches.dependency === dependency && c.timestamp < first.timestamp) first = c;
  let origin: ChangeEntry | undefined;
  for (const c of candidates) {
    const before = c.timestamp < first.timestamp && first.timestamp - c.timestamp <= CHAIN_MS;
    if (before && (c.kind === 'deployment' || c.kind === 'config_change') && tierOf(c, operation, dependencies) < 2 && (!origin || c.timestamp > origin.timestamp)) origin = c;
  }
  const what = dependency ?? first.details.breaker ?? 'a dependency';
  return origin && { change: origin, effect: `${what} ${first.kind === 'circuit_breaker' ? 'tripped its breaker' : 'failed'}`, failedAt: first.timestamp };
}

function isCandidate(change: ChangeEntry, actions: readonly ChangeEntry[]): boolean {
  if (change.kind === 'remediation') return false;
  const stateChange = change.kind === 'dependency_state' || change.kind === 'circuit_breaker';
  if (stateChange && RECOVERED.has(change.details.state ?? '')) return false;
  if (change.kind === 'circuit_breaker') {
    const breaker = change.details.breaker;
    if (actions.some((a) => a.details.action?.endsWith(`circuit_breaker:${breaker}`) && Math.abs(a.timestamp - change.timestamp) <= ACTION_SIDE_EFFECT_MS)) return false;
  }
  return true;
}

/** 0 direct (the operation, or a dependency the service calls), 1 process-wide (a deployment or a configuration change naming nothing), 2 unrelated. */
function tierOf(change: ChangeEntry, operation: string, dependencies: ReadonlySet<string>): number {
  const { operation: touched, dependency } = change.touches;
  if (touched !== undefined) return touched === operation ? 0 : 2;
  if (dependency !== undefined) return dependencies.has(dependency) ? 0 : 2;
  return 1;
}

function relation(change: ChangeEntry, tier: number, operation: string): string {
  const { operation: touched, dependency } = change.touches;
  if (touched !== undefined) return tier === 0 ? `touches ${operation}` : `touches ${touched}, not ${operation} (no closer change)`;
  if (dependency !== undefined) return tier === 0 ? `${dependency} is a dependency the service calls` : `${dependency} is not called by the service (no closer change)`;
  return change.kind === 'deployment' ? 'a deployment replaces the code of every operation' : 'a configuration change of the whole process';
}

/** `4s before the episode began`, `12m 5s before ...`, `3s after ...`. */
export function timing(offsetMs: number, anchor = 'the episode began'): string {
  if (Math.abs(offsetMs) < 1000) return `as ${anchor}`;
  return `${duration(Math.abs(offsetMs))} ${offsetMs < 0 ? 'before' : 'after'} ${anchor}`;
}

function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${seconds % 60 ? ` ${seconds % 60}s` : ''}`;
  return `${Math.floor(minutes / 60)}h${minutes % 60 ? ` ${minutes % 60}m` : ''}`;
}
