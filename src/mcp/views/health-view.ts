/**
 * What get_service_health and the status page read: the service's health (the fleet's in a
 * fleet, outlier replicas among its reasons), each list worst first, the agents inside the app, the
 * replicas and the state store's note. One read, laid out by the tool as text or JSON and by the
 * page as HTML.
 */
import type { AgentSummary } from '../../agentic/agent-activity.js';
import type { DependencySummary, HealthSummary, OperationHealth, SloSummary } from '../../analysis/health-aggregator.js';
import type { ReplicaInfo } from '../../fleet/fleet-view.js';
import type { ToolServices } from '../tool-services.js';
import { fleetJson } from '../tools/fleet-lines.js';
import { storeNote } from '../tools/store-note.js';
import { agentsWorstFirst, dependenciesWorstFirst, operationsWorstFirst, slosWorstFirst } from '../tools/worst-first.js';

export interface HealthView {
  readonly summary: HealthSummary;
  readonly operations: readonly OperationHealth[];
  readonly dependencies: readonly DependencySummary[];
  readonly slos: readonly SloSummary[];
  readonly agents: readonly AgentSummary[];
  /** In a fleet: its replicas, as of `now`. */
  readonly replicas: { readonly replicas: readonly ReplicaInfo[]; readonly now: number } | undefined;
  /** Minutes the operations' figures cover (svc.health.recent-minutes). */
  readonly recentMinutes: number;
  /** The dependencies' window (svc.dependency-health.window). */
  readonly dependencyWindowMs: number;
  /** In a fleet: whether the figures are merged, and the FLEET line. */
  readonly fleet: ReturnType<typeof fleetJson> | undefined;
  /** The STATE STORE line, when the store is not what it should be. */
  readonly storeNote: string | undefined;
}

export function readHealth(services: ToolServices): HealthView {
  const { analysis } = services;
  const fleet = services.fleet?.current();
  const summary = analysis.healthSummary(fleet);
  return {
    summary,
    operations: [...summary.operations].sort(operationsWorstFirst),
    dependencies: [...summary.dependencies].sort(dependenciesWorstFirst),
    slos: [...summary.slos].sort(slosWorstFirst),
    agents: [...(services.agents?.summaries() ?? [])].sort(agentsWorstFirst),
    replicas: services.fleet && { replicas: fleet?.replicas ?? [], now: analysis.now() },
    recentMinutes: analysis.recentMinutes,
    dependencyWindowMs: analysis.dependencyWindowMs,
    fleet: services.fleet && fleetJson(services.fleet, fleet),
    storeNote: storeNote(services.store?.()),
  };
}
