/**
 * The worst-first orders of the tools that list operations, dependencies and SLOs, so a bounded
 * answer shows the offenders on its first page, and the words that say what a left-out item was.
 *
 * - Operations: ELEVATED first, then the others with traffic, idle ones last; within each, by
 *   error rate above baseline, then p99 relative to baseline p99 (p99 without a baseline), then name.
 * - Dependencies: unhealthy, degraded, then stale ones (no call in their window), healthy; then by error rate.
 * - SLOs: VIOLATED, AT_RISK, HEALTHY; then by budget remaining, lowest first, then burn rate.
 *
 * A problem (rank 0: ELEVATED, not healthy, not HEALTHY) goes on a page before the rest of any list.
 */
import type { AgentSummary } from '../../agentic/agent-activity.js';
import type { DependencySummary, OperationHealth } from '../../analysis/health-aggregator.js';
import type { SloCompliance } from '../../analysis/slo-tracker.js';

export type OperationKind = 'elevated' | 'within baseline' | 'learning' | 'idle';

/** A learning operation has no baseline yet, so it is never called within one. */
export function operationKind(op: OperationHealth): OperationKind {
  if (op.elevated) return 'elevated';
  if (op.requestCount === 0) return 'idle';
  return op.baselineState === 'learning' ? 'learning' : 'within baseline';
}

const OPERATION_GROUP: Record<OperationKind, number> = { elevated: 0, 'within baseline': 1, learning: 1, idle: 2 };

export function errorExcess(op: OperationHealth): number {
  return op.errorRate - (op.baseline?.errorRate ?? 0);
}

/** p99 relative to baseline p99; without a baseline, 0. */
export function p99Ratio(op: OperationHealth): number {
  return op.baseline?.latencyP99Ms ? op.p99 / op.baseline.latencyP99Ms : 0;
}

export function operationsWorstFirst(a: OperationHealth, b: OperationHealth): number {
  return (
    OPERATION_GROUP[operationKind(a)] - OPERATION_GROUP[operationKind(b)] ||
    errorExcess(b) - errorExcess(a) ||
    p99Ratio(b) - p99Ratio(a) ||
    b.p99 - a.p99 ||
    (a.operation < b.operation ? -1 : a.operation > b.operation ? 1 : 0)
  );
}

const DEPENDENCY_GROUP: Record<DependencySummary['state'], number> = { unhealthy: 0, degraded: 1, healthy: 3 };
/** Stale states describe the past: after the live problems, before the healthy. */
const dependencyGroup = (d: DependencySummary): number => (d.stale && d.state !== 'healthy' ? 2 : DEPENDENCY_GROUP[d.state]);

export function dependenciesWorstFirst(a: DependencySummary, b: DependencySummary): number {
  return dependencyGroup(a) - dependencyGroup(b) || b.errorRate - a.errorRate;
}

const SLO_GROUP: Record<SloCompliance, number> = { VIOLATED: 0, AT_RISK: 1, HEALTHY: 2, INSUFFICIENT_DATA: 3 };

interface SloStanding {
  readonly compliance: SloCompliance;
  readonly budgetRemaining: number;
  readonly burnRate: number;
}

export function slosWorstFirst(a: SloStanding, b: SloStanding): number {
  return SLO_GROUP[a.compliance] - SLO_GROUP[b.compliance] || a.budgetRemaining - b.budgetRemaining || b.burnRate - a.burnRate;
}

/** `violated`, `at risk`, `healthy`, `insufficient data`. */
export function sloKind(compliance: SloCompliance): string {
  return compliance.toLowerCase().replace('_', ' ');
}

/** 0 for a problem, 1 for the rest (see planPages in bounded-output.ts). */
export function rank(problem: boolean): number {
  return problem ? 0 : 1;
}

/** Agents stopped by guardrails first, then with failures; within each, by trips, failures, invocations, name. */
export function agentsWorstFirst(a: AgentSummary, b: AgentSummary): number {
  const group = (x: AgentSummary) => (x.guardrailTrips > 0 ? 0 : x.failures > 0 ? 1 : 2);
  return group(a) - group(b) || b.guardrailTrips - a.guardrailTrips || b.failures - a.failures || b.invocations - a.invocations || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
