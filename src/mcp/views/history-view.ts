/**
 * What get_trend_analysis and the status page's charts read of an operation's minute history:
 * the fleet's as of its last merge in a fleet, else this process's own, and the time it is read at.
 */
import type { OperationHistory } from '../../fleet/fleet-history.js';
import type { ToolServices } from '../tool-services.js';

export interface HistoryView {
  readonly history: OperationHistory;
  /** The fleet's last merge, or now: the time the series end at. */
  readonly now: number;
}

/** Undefined only beyond the cap of operations tracked (svc.limits.max-operations). */
export function readHistory(services: ToolServices, operation: string): HistoryView | undefined {
  const fleet = services.fleet?.current();
  const fleetHistory = fleet && services.fleet?.historyOf(operation);
  if (fleetHistory) return { history: fleetHistory, now: fleet.mergedAt };
  const history = services.analysis.historyFor(operation);
  return history && { history, now: services.analysis.now() };
}
