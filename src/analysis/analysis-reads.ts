/**
 * What the tools and the status page read of the analysis, and nothing else: the service's health,
 * each operation's figures and minute history, SLOs (and their budgets over the window),
 * dependencies and circuit breakers, error categories and the last deployment. The engine's
 * components stay behind it; acting (a breaker forced, a baseline reset) goes through the
 * incident response (src/incidents).
 */
import type { ChangeEntry } from './change-tracker.js';
import type { CircuitBreakerStatus } from './circuit-breakers.js';
import type { DependencyStatus } from './dependency-health.js';
import type { ErrorCategoryCount } from './error-categories.js';
import type { FleetFigures, HealthSummary, OperationHealth } from './health-aggregator.js';
import type { MinuteHistory } from './minute-history.js';
import type { SloStatus } from './slo-tracker.js';

export interface AnalysisReads {
  /** The analysis clock's now, epoch ms. */
  now(): number;
  readonly serviceName: string;
  /** The minutes an operation's recent figures cover (svc.health.recent-minutes). */
  readonly recentMinutes: number;
  /** The window a dependency's state is judged over (svc.dependency-health.window). */
  readonly dependencyWindowMs: number;
  /** The samples a learned normal needs before it judges. */
  readonly minNormalSamples: number;
  /** With `fleet`, operations and SLOs are the fleet's (src/fleet). */
  healthSummary(fleet?: FleetFigures): HealthSummary;
  operationHealth(operation: string, fleet?: FleetFigures): OperationHealth | undefined;
  /** Operations with a minute history here. */
  operationNames(): readonly string[];
  historyFor(operation: string): MinuteHistory | undefined;
  sloStatuses(): SloStatus[];
  hasSlo(operation: string): boolean;
  /** An SLO's budget remaining over its window at `points` times, oldest first (the status page's burn-down). */
  sloBudgetCurve(name: string, points: number): { start: number; budgetRemaining: number }[];
  circuitBreakerStatuses(): CircuitBreakerStatus[];
  dependencyStatuses(): DependencyStatus[];
  /** The operation's errors by exception type and message, most frequent first. */
  errorCategoriesOf(operation: string): ErrorCategoryCount[];
  lastDeployment(): ChangeEntry | undefined;
}
