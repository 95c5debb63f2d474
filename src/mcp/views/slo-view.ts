/**
 * What get_slo_report and the status page read: every SLO's status (the fleet's counts in a
 * fleet), worst first, the recent health of each SLO's operation, and when it was read. The
 * page adds each SLO's budget over its window (SloTracker.budgetCurve, this replica's own).
 */
import type { OperationHealth } from '../../analysis/health-aggregator.js';
import type { SloStatus } from '../../analysis/slo-tracker.js';
import type { ToolServices } from '../tool-services.js';
import { fleetJson } from '../tools/fleet-lines.js';
import { slosWorstFirst } from '../tools/worst-first.js';

export interface SloView {
  readonly statuses: readonly SloStatus[];
  readonly generated: number;
  /** The recent health of an SLO's operation (its p99 now, beside a latency SLO's threshold). */
  readonly recentOf: (operation: string) => OperationHealth | undefined;
  readonly fleet: ReturnType<typeof fleetJson> | undefined;
}

export function readSlos(services: ToolServices): SloView {
  const { analysis } = services;
  const fleet = services.fleet?.current();
  return {
    statuses: [...(fleet ? fleet.slos : analysis.sloStatuses())].sort(slosWorstFirst),
    generated: analysis.now(),
    recentOf: (operation) => analysis.operationHealth(operation, fleet),
    fleet: services.fleet && fleetJson(services.fleet, fleet),
  };
}
