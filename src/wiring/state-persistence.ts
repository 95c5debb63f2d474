/**
 * Wires the stores that hold state in memory to the state store (docs/state.md): each gets the
 * state writer as its sink, then the records of previous runs are loaded into it. The retention
 * of each collection in the store is the bound it has in memory. The analysis state (SLO budgets,
 * minute histories) changes on every request: it is written at checkpoints (src/store/checkpoints.ts).
 */

import type { AnalysisEngine } from '../analysis/analysis-engine.js';
import type { ChangeTracker } from '../analysis/change-tracker.js';
import { CHANGES_COLLECTION } from '../analysis/change-tracker.js';
import { LEARNED_NORMALS_COLLECTION, LearnedNormalRecords } from '../analysis/learned-normal-records.js';
import { blockSlots, MINUTE_HISTORY_COLLECTION, MinuteHistoryRecords } from '../analysis/minute-history-records.js';
import { SLO_BUDGETS_COLLECTION, SloBudgetRecords } from '../analysis/slo-budget-records.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import { analysisClaims } from '../fleet/analysis-claims.js';
import { FleetSync } from '../fleet/fleet-sync.js';
import { instanceIdFrom } from '../fleet/instance-id.js';
import { AUDIT_COLLECTION, type AuditTrail } from '../incidents/audit-trail.js';
import { INCIDENTS_COLLECTION, type IncidentTracker } from '../incidents/incident-tracker.js';
import { REMEDIATION_COLLECTION, type Remediation } from '../incidents/remediation.js';
import { SESSIONS_COLLECTION, type SessionStore } from '../incidents/session-store.js';
import { MAX_PENDING, VERIFICATIONS_COLLECTION, type Verifier } from '../incidents/verification.js';
import type { CheckpointedState } from '../shared/checkpointed-state.js';
import type { OpenedState } from '../store/open-state.js';
import { type OpenStateOptions, openState } from '../store/open-state.js';
import { RedisStore } from '../store/redis-store.js';

/** The state store, and on Redis what keeps sessions, audit, incidents and remediation the same on every replica. */
export interface PersistedState extends OpenedState {
  readonly fleetSync?: FleetSync;
}

export interface PersistedParts {
  readonly changes?: ChangeTracker;
  readonly audit?: AuditTrail;
  readonly sessions?: SessionStore;
  readonly incidents?: IncidentTracker;
  readonly remediation?: Remediation;
  readonly verifier?: Verifier;
  /** State written at checkpoints rather than at each change (analysisState). */
  readonly analysis?: readonly CheckpointedState[];
}

/** The engine's state that survives restarts through checkpoints: SLO budgets, operations' minute histories and learned normals. */
export function analysisState(engine: AnalysisEngine): CheckpointedState[] {
  return [new SloBudgetRecords(engine.sloTracker, engine.clock), new MinuteHistoryRecords(engine.health, engine.clock), new LearnedNormalRecords(engine.normals, engine.clock)];
}

interface Restorable {
  attachStore(sink: OpenedState['writer']): void;
  restore(records: readonly { key: string; value: unknown }[]): number;
}

/**
 * Records kept per collection: the in-memory bounds of svc.limits.* (incidents: history plus one
 * open per operation; SLO budgets: one per SLO, far fewer than operations; minute histories: per
 * operation one per block slot of its history). On a fleet's Redis each replica's analysis records
 * are in collections of its own (src/store/checkpoints.ts), bounded by their keys alone.
 */
export function retentionFromConfig(config: ResolvedConfig): Record<string, number> {
  return {
    [AUDIT_COLLECTION]: config.get<number>('limits.max-audit-entries'),
    [CHANGES_COLLECTION]: config.get<number>('limits.max-changes'),
    [INCIDENTS_COLLECTION]: config.get<number>('limits.max-incidents') + config.get<number>('limits.max-operations'),
    [SESSIONS_COLLECTION]: config.get<number>('limits.max-sessions'),
    [REMEDIATION_COLLECTION]: 2 * config.get<number>('limits.max-operations') + 2 * config.get<number>('limits.max-dependencies'),
    [VERIFICATIONS_COLLECTION]: MAX_PENDING,
    [SLO_BUDGETS_COLLECTION]: config.get<number>('limits.max-operations'),
    [LEARNED_NORMALS_COLLECTION]: config.get<number>('limits.max-operations'),
    [MINUTE_HISTORY_COLLECTION]: config.get<number>('limits.max-operations') * blockSlots(Math.max(60, config.get<number>('limits.history-minutes'))),
  };
}

/** `svc.store.*` as the options of openState. */
export function openStateFromConfig(config: ResolvedConfig, namespace: string, cwd: string, env: NodeJS.ProcessEnv, report: (line: string) => void): PersistedState {
  const options: OpenStateOptions = {
    url: config.get<string>('store.url'),
    password: config.get<string | undefined>('store.password'),
    namespace,
    cwd,
    instanceId: instanceIdFrom(config.get<string | undefined>('fleet.instance-id'), env),
    flushIntervalMs: config.get<number>('store.flush-interval'),
    batchSize: config.get<number>('store.batch-size'),
    timeoutMs: config.get<number>('store.timeout'),
    maxPending: config.get<number>('store.max-pending'),
    checkpointIntervalMs: config.get<number>('store.checkpoint-interval'),
    retention: retentionFromConfig(config),
    report,
  };
  const opened = openState(options);
  // Replicas with this service name on this Redis are one fleet (docs/state.md, Fleet).
  const store = opened.writer.store;
  if (!(store instanceof RedisStore)) return opened;
  // Each replica's analysis records are its own; those of replicas that left are taken over, once.
  opened.checkpoints.claim = analysisClaims(store, opened.instanceId, config.get<number>('fleet.replica-ttl'));
  opened.checkpoints.takeAgainMs = config.get<number>('fleet.replica-ttl') + config.get<number>('fleet.publish-interval');
  return { ...opened, fleetSync: new FleetSync(store, opened.writer, opened.instanceId, report, opened.ready) };
}

/** Checkpoints the analysis state and writes what is queued: at SIGTERM, and when the process ends. */
export function flushState(state: OpenedState): Promise<void> {
  state.checkpoints.checkpoint();
  return state.writer.flush();
}

/**
 * Checkpoints the analysis state a last time, writes what is queued (within the writer's timeout)
 * and closes the store, then leaves the fleet. In this order because at a natural end only a
 * write under way keeps the process alive.
 */
export async function closeState(state: PersistedState): Promise<void> {
  state.checkpoints.close();
  await state.writer.close();
  await state.fleetSync?.close();
}

function partsByCollection(parts: PersistedParts): [string, Restorable][] {
  const all: [string, Restorable | undefined][] = [
    [CHANGES_COLLECTION, parts.changes],
    [AUDIT_COLLECTION, parts.audit],
    [SESSIONS_COLLECTION, parts.sessions],
    [INCIDENTS_COLLECTION, parts.incidents],
    [REMEDIATION_COLLECTION, parts.remediation],
    [VERIFICATIONS_COLLECTION, parts.verifier],
  ];
  return all.filter((entry): entry is [string, Restorable] => entry[1] !== undefined);
}

/** From now on every change of these parts goes to the store; `memory:` keeps no second copy of what the parts hold. */
export function attachState(state: PersistedState, parts: PersistedParts): void {
  if (state.writer.store.kind === 'memory') return;
  for (const [, part] of partsByCollection(parts)) part.attachStore(state.writer);
  if (parts.analysis) state.checkpoints.attach(parts.analysis);
  if (state.fleetSync && (parts.audit || parts.sessions || parts.incidents || parts.remediation)) state.fleetSync.attach(parts);
}

/**
 * Loads the previous runs' records into the parts, within `timeoutMs` in all. Never rejects: a
 * store that cannot be read leaves svc on its local state, which status() then says.
 */
export async function restoreState(state: PersistedState, parts: PersistedParts, timeoutMs: number, report: (line: string) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const ready = await Promise.race([state.ready, timeout]);
    if (ready !== true) return;
    // Subscribed before reading: a change another replica makes meanwhile arrives as a notice.
    await Promise.race([state.fleetSync?.subscribed, timeout]);
    const loaded: [Restorable, { key: string; value: unknown }[]][] = [];
    let unreadable = 0;
    for (const [collection, part] of partsByCollection(parts)) {
      const records = await Promise.race([state.writer.store.load(collection), timeout]);
      if (records === 'timeout') throw new Error(`no answer within ${timeoutMs} ms`);
      const parsed: { key: string; value: unknown }[] = [];
      for (const { key, value } of records) {
        try {
          parsed.push({ key, value: JSON.parse(value) });
        } catch {
          unreadable++;
        }
      }
      loaded.push([part, parsed]);
    }
    // Every collection was read before any is applied: a store that fails half way changes nothing.
    for (const [part, records] of loaded) unreadable += part.restore(records);
    state.writer.restored = true;
    // Checkpointed parts attached so far (analysisState), once; a failure leaves them to be read at a later checkpoint.
    if (state.checkpoints.attached) {
      const skipped = await Promise.race([state.checkpoints.restore(), timeout]);
      if (skipped === 'timeout') throw new Error(`no answer within ${timeoutMs} ms`);
      unreadable += skipped;
    }
    if (unreadable) report(`state store ${state.writer.store.description}: ${unreadable} records did not read back and were skipped`);
  } catch (error) {
    state.writer.markDegraded(error);
  } finally {
    clearTimeout(timer);
  }
}
