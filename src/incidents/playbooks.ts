/**
 * Playbooks: one step graph per incident pattern plus a generic one, served by get_playbook (which
 * lays them out as text, src/mcp/tools/get-playbook.ts).
 * Steps are numbered from 1 and name their successor per outcome (spec, Playbook flow): CHECK and
 * ACTION steps go on by success or failure, DECISION steps by yes or no; 'END' ends the playbook.
 *
 * Remedies are only the built-in action kinds, so whatever needs a human (a restart, a rollback)
 * is an escalation. Conditions are short expressions over values the other tools show, e.g.
 * `operation.error_rate` (get_service_health), `baseline.p50_ms` (get_incident_context),
 * `throughput.rpm` and `trend.latency_p50` (get_trend_analysis), `error_analysis.*`
 * (get_error_analysis), `deployment.age_minutes` (WHAT CHANGED), `heap.slope_mb_per_minute`.
 */

import { INCIDENT_PATTERNS, type IncidentPattern } from '../analysis/pattern-matcher.js';
import { didYouMean } from '../config/did-you-mean.js';
import { AgentError } from '../shared/agent-error.js';
import { printable } from '../shared/printable.js';
import { BUILT_IN_ACTIONS, type BuiltInActionKind } from './remediation-kinds.js';

export type PlaybookStepKind = 'CHECK' | 'DECISION' | 'ACTION';

/** A step index of the same playbook, or the end of it. */
export type PlaybookSuccessor = number | 'END';

export interface PlaybookStep {
  readonly index: number;
  readonly kind: PlaybookStepKind;
  readonly description: string;
  /** CHECK and DECISION. A CHECK succeeds when its condition holds. */
  readonly condition?: string;
  /** ACTION only. */
  readonly action?: BuiltInActionKind;
  /** CHECK and ACTION use success and failure, DECISION uses yes and no. */
  readonly next: {
    readonly success?: PlaybookSuccessor;
    readonly failure?: PlaybookSuccessor;
    readonly yes?: PlaybookSuccessor;
    readonly no?: PlaybookSuccessor;
  };
  /** True exactly for ACTION steps whose kind needs an `approved_by`. */
  readonly requiresApproval: boolean;
}

export interface Playbook {
  readonly name: string;
  readonly description: string;
  /** Empty for the generic playbook. */
  readonly triggerPatterns: readonly IncidentPattern[];
  readonly steps: readonly PlaybookStep[];
}

function check(index: number, description: string, condition: string, onSuccess: PlaybookSuccessor, onFailure: PlaybookSuccessor): PlaybookStep {
  return { index, kind: 'CHECK', description, condition, next: { success: onSuccess, failure: onFailure }, requiresApproval: false };
}

function decision(index: number, description: string, condition: string, ifYes: PlaybookSuccessor, ifNo: PlaybookSuccessor): PlaybookStep {
  return { index, kind: 'DECISION', description, condition, next: { yes: ifYes, no: ifNo }, requiresApproval: false };
}

function action(index: number, description: string, kind: BuiltInActionKind, onSuccess: PlaybookSuccessor, onFailure: PlaybookSuccessor): PlaybookStep {
  return { index, kind: 'ACTION', description, action: kind, next: { success: onSuccess, failure: onFailure }, requiresApproval: BUILT_IN_ACTIONS[kind].requiresApproval };
}

function playbook(name: string, description: string, triggerPatterns: readonly IncidentPattern[], steps: readonly PlaybookStep[]): Playbook {
  return Object.freeze({ name, description, triggerPatterns: Object.freeze([...triggerPatterns]), steps: Object.freeze(steps.map((s) => Object.freeze(s))) });
}

const GENERIC = playbook(
  'generic_incident_response',
  'For a deviation no pattern explains: serve the fallback if there is one, verify, else escalate',
  [],
  [
    check(1, 'Confirm the operation still deviates from its baseline in errors or latency', 'operation.error_rate > 2 * baseline.error_rate || operation.p50_ms > 2 * baseline.p50_ms', 2, 'END'),
    decision(2, 'Does the operation declare a fallback?', 'operation.fallback_description != ""', 3, 5),
    action(3, 'Serve the fallback while the cause is unknown', 'enable_fallback', 4, 5),
    check(
      4,
      'After the verification delay, confirm errors and latency are back near baseline',
      'operation.error_rate <= 1.5 * baseline.error_rate && operation.p50_ms <= 1.5 * baseline.p50_ms',
      'END',
      5,
    ),
    action(5, 'Escalate with the incident context and recent changes: no built-in remedy applies', 'escalate', 'END', 'END'),
  ],
);

export const PLAYBOOKS: readonly Playbook[] = Object.freeze([
  playbook(
    'cascade_failure_response',
    'Stop failing dependencies from dragging the operation down: open their breaker, serve the fallback, verify, else escalate',
    ['cascade_failure'],
    [
      check(1, 'Confirm that two or more dependencies are unhealthy at the same time', 'dependencies.unhealthy_count >= 2', 2, 6),
      decision(2, 'Is the most-failing dependency behind a circuit breaker that is still closed?', 'dependency.circuit_breaker == true && circuit_breaker.state == "closed"', 3, 4),
      action(3, 'Open its breaker so calls fail fast instead of piling up on timeouts', 'open_circuit_breaker', 4, 4),
      decision(4, 'Does the operation declare a fallback?', 'operation.fallback_description != ""', 5, 7),
      action(5, 'Serve the fallback while the dependencies are down', 'enable_fallback', 6, 7),
      check(6, 'Confirm the error rate is back near baseline (after the verification delay if an action ran)', 'operation.error_rate <= 1.5 * baseline.error_rate', 'END', 7),
      action(7, 'Escalate with the failing dependencies and the actions taken so far', 'escalate', 'END', 'END'),
    ],
  ),
  playbook(
    'memory_leak_response',
    'A growing heap is only freed by a restart or rollback, which need a human: relieve the leaking path with the fallback and escalate',
    ['memory_leak'],
    [
      check(1, 'Confirm the heap still grows steadily (a flat heap means the pattern has cleared)', 'heap.slope_mb_per_minute > 1 && heap.r2 >= 0.8', 2, 'END'),
      check(2, 'Check whether requests suffer: slower or failing more than baseline', 'operation.p50_ms > 1.2 * baseline.p50_ms || operation.error_rate > baseline.error_rate', 3, 5),
      decision(3, 'Does the operation declare a fallback?', 'operation.fallback_description != ""', 4, 5),
      action(4, 'Serve the fallback to take traffic off the leaking code path until the restart', 'enable_fallback', 5, 5),
      decision(5, 'Did a deployment in the last hour start the growth?', 'deployment.age_minutes < 60', 6, 7),
      action(6, 'Escalate for a rollback of that deployment, with the heap trend', 'escalate', 'END', 'END'),
      action(7, 'Escalate for a controlled restart before the heap runs out, with the heap trend', 'escalate', 'END', 'END'),
    ],
  ),
  playbook(
    'thundering_herd_response',
    'Absorb the request spike after a recovery: shield the recovering dependency, serve the fallback until the rate is back to usual',
    ['thundering_herd'],
    [
      check(
        1,
        'Confirm the spike is still on and hurting: several times the usual rate with errors above baseline',
        'throughput.rpm > 3 * baseline.throughput_rpm && operation.error_rate > 2 * baseline.error_rate',
        2,
        'END',
      ),
      decision(2, 'Is the dependency that just recovered failing again behind a circuit breaker?', 'dependency.state != "healthy" && dependency.circuit_breaker == true', 3, 4),
      action(3, 'Reopen its breaker so it can recover; half-open probes then let traffic back in gradually', 'open_circuit_breaker', 4, 4),
      decision(4, 'Does the operation declare a fallback?', 'operation.fallback_description != ""', 5, 8),
      action(5, 'Serve the fallback while the spike lasts', 'enable_fallback', 6, 8),
      check(
        6,
        'Once the rate is back to its usual level, confirm the error rate is near baseline',
        'throughput.rpm <= 1.5 * baseline.throughput_rpm && operation.error_rate <= 1.5 * baseline.error_rate',
        7,
        8,
      ),
      action(7, 'Turn the fallback off again now that the spike has passed', 'disable_fallback', 'END', 8),
      action(8, 'Escalate with the request rate, the dependency states and the actions taken', 'escalate', 'END', 'END'),
    ],
  ),
  playbook(
    'cold_start_response',
    'Slow first requests of a fresh process usually pass on their own: wait for warm-up, bridge it with the fallback if consumers suffer',
    ['cold_start'],
    [
      check(1, 'Confirm the process is fresh; an old process that is slow is not a cold start', 'process.uptime_seconds < 300', 2, 7),
      check(2, 'After a minute of traffic, check whether latency has settled near baseline', 'operation.p50_ms <= 1.5 * baseline.p50_ms', 'END', 3),
      decision(3, "Do the slow requests breach a consumer's latency SLA, and is there a fallback?", 'operation.p99_ms > consumer.sla_latency_ms && operation.fallback_description != ""', 4, 7),
      action(4, 'Serve the fallback until the process is warm', 'enable_fallback', 5, 7),
      check(5, 'Once warm, confirm latency is near baseline', 'operation.p50_ms <= 1.5 * baseline.p50_ms', 6, 7),
      action(6, 'Turn the fallback off again', 'disable_fallback', 'END', 7),
      action(7, 'Escalate: latency stays high past warm-up, treat it as a latency degradation', 'escalate', 'END', 'END'),
    ],
  ),
  playbook(
    'error_rate_spike_response',
    'Contain a sudden rise of errors: rule out callers, shield an unhealthy dependency, serve the fallback, verify, else escalate',
    ['error_rate_spike'],
    [
      check(1, 'Confirm the error rate is still well above baseline', 'operation.error_rate > 2 * baseline.error_rate', 2, 'END'),
      // Client errors mean a caller or contract changed: the owners must talk, no remedy here helps.
      decision(2, 'Are most new errors client errors (4xx)?', 'error_analysis.client_error_share > 0.5', 8, 3),
      decision(3, 'Is a dependency unhealthy while its circuit breaker is still closed?', 'dependency.state == "unhealthy" && circuit_breaker.state == "closed"', 4, 5),
      action(4, 'Open its breaker so calls fail fast', 'open_circuit_breaker', 5, 5),
      decision(5, 'Does the operation declare a fallback?', 'operation.fallback_description != ""', 6, 8),
      action(6, 'Serve the fallback while the errors last', 'enable_fallback', 7, 8),
      check(7, 'After the verification delay, confirm the error rate is back near baseline', 'operation.error_rate <= 1.5 * baseline.error_rate', 'END', 8),
      action(8, 'Escalate with the error categories, any deployment of the last 30 minutes and the actions taken', 'escalate', 'END', 'END'),
    ],
  ),
  playbook(
    'latency_degradation_response',
    'Bring sustained slowness back to baseline: bypass a slow dependency with the fallback, or accept an intended change by resetting the baseline',
    ['latency_degradation'],
    [
      check(1, 'Confirm latency is still well above baseline', 'operation.p50_ms >= 2 * baseline.p50_ms', 2, 'END'),
      decision(2, 'Is a dependency degraded or unhealthy?', 'dependency.state != "healthy"', 3, 6),
      decision(3, 'Does the operation declare a fallback?', 'operation.fallback_description != ""', 4, 8),
      action(4, 'Serve the fallback to bypass the slow dependency', 'enable_fallback', 5, 8),
      check(5, 'After the verification delay, confirm latency is back near baseline', 'operation.p50_ms <= 1.5 * baseline.p50_ms', 'END', 8),
      // A recent deploy that moved latency to a new flat level without errors is a new normal, not an incident.
      decision(
        6,
        'Did a deployment in the last 30 minutes move latency to a new, stable level without more errors?',
        'deployment.age_minutes < 30 && trend.latency_p50 == "STABLE" && operation.error_rate <= baseline.error_rate',
        7,
        8,
      ),
      action(7, 'Reset the baseline so the new latency becomes the reference', 'reset_baseline', 'END', 8),
      action(8, 'Escalate with the latency trend, the dependency states and recent changes', 'escalate', 'END', 'END'),
    ],
  ),
  GENERIC,
]);

const BY_PATTERN = new Map<string, Playbook>(PLAYBOOKS.flatMap((p) => p.triggerPatterns.map((pattern) => [pattern, p] as const)));

/** An explicit pattern name that is not an incident pattern; the echoed name is cut at 64 characters. */
export class UnknownPatternError extends AgentError {
  constructor(
    readonly pattern: string,
    readonly accepted: readonly string[] = INCIDENT_PATTERNS,
  ) {
    const suggestion = didYouMean(pattern, accepted);
    super(`unknown pattern "${printable(pattern, 64)}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; accepted patterns: ${accepted.join(', ')}`);
  }
}

/**
 * The playbook for an incident: an explicit `pattern` (case-insensitive; blank counts as none)
 * wins, else the first of the operation's recent patterns that has one, else the generic one.
 *
 * @example
 * selectPlaybook({ pattern: 'ERROR_RATE_SPIKE' }).name; // 'error_rate_spike_response'
 * selectPlaybook({ operationPatterns: ['memory_leak'] }).name; // 'memory_leak_response'
 */
export function selectPlaybook(options: { pattern?: string; operationPatterns?: readonly IncidentPattern[] }): Playbook {
  const pattern = options.pattern?.trim();
  if (pattern) {
    const found = BY_PATTERN.get(pattern.toLowerCase());
    if (!found) throw new UnknownPatternError(pattern);
    return found;
  }
  for (const recent of options.operationPatterns ?? []) {
    const found = BY_PATTERN.get(recent);
    if (found) return found;
  }
  return GENERIC;
}
