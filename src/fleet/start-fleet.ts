/**
 * Joins this process to its fleet when the state store is Redis (docs/state.md, Fleet view): a
 * fleet view for the tools and the link that publishes and merges summaries once the store is
 * open. Other stores have no fleet: undefined.
 */
import type { AnalysisEngine } from '../analysis/analysis-engine.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import type { OpenedState } from '../store/open-state.js';
import { RedisStore } from '../store/redis-store.js';
import { FleetLink } from './fleet-link.js';
import { FleetView } from './fleet-view.js';

export interface Fleet {
  readonly view: FleetView;
  readonly link: FleetLink;
}

export function startFleet(config: ResolvedConfig, engine: AnalysisEngine, state: OpenedState, report: (line: string) => void): Fleet | undefined {
  const store = state.writer.store;
  if (!(store instanceof RedisStore)) return undefined;
  const publishIntervalMs = config.get<number>('fleet.publish-interval');
  const replicaTtlMs = config.get<number>('fleet.replica-ttl');
  const historyMinutes = Math.max(60, config.get<number>('limits.history-minutes'));
  const maxOperations = config.get<number>('limits.max-operations');
  const clock = engine.clock;
  const view = new FleetView({
    clock,
    ownId: state.instanceId,
    publishIntervalMs,
    replicaTtlMs,
    historyMinutes,
    maxOperations,
    ownSlos: () => engine.sloTracker.definitions(),
  });
  const link = new FleetLink({ store, engine, view, instanceId: state.instanceId, startedAt: clock.now(), publishIntervalMs, replicaTtlMs, historyMinutes, maxOperations, clock, report });
  // A Redis down at start still gets its first round: the view then says Redis does not answer.
  void state.ready.then(() => link.start());
  return { view, link };
}
