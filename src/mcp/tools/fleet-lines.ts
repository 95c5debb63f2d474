/**
 * How the fleet (src/fleet) shows in the tools' answers: the FLEET line (how fresh the merged
 * figures are, or why they are this replica's own), the REPLICAS lines and their JSON, and the
 * outlier sentence of health and incident context.
 */
import type { FleetSnapshot, FleetView, ReplicaInfo } from '../../fleet/fleet-view.js';
import { type Outlier, outlierText as outlierTextOf } from '../../fleet/outliers.js';
import { shownName } from '../bounded-output.js';
import { isoTime } from '../text-layout.js';
import { rank } from './worst-first.js';

const MAX_REASON_CHARS = 200;

/** `2s ago`, `3m 5s ago`. */
function ago(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  return seconds < 60 ? `${seconds}s ago` : `${Math.floor(seconds / 60)}m ${seconds % 60}s ago`;
}

/** `OUTLIER: POST /orders error rate 45.0% vs 0.5% on the other replicas (120 vs 230 requests)`, with how many more operations. */
export function outlierText(outlier: Outlier): string {
  return outlierTextOf(outlier, (name) => shownName(name));
}

/** One REPLICAS line's cells: id, own status, last seen, up since, outlier. */
export function replicaCells(r: ReplicaInfo, now: number): string[] {
  const cells = [`${shownName(r.id)}${r.self ? ' (this replica)' : ''}`, r.status, `last seen ${ago(now - r.seenAt)}`, `up since ${isoTime(r.startedAt)}`];
  if (r.outlier) cells.push(outlierText(r.outlier));
  else if (r.reason) cells.push(shownName(r.reason, MAX_REASON_CHARS));
  return cells;
}

export function replicaRank(r: ReplicaInfo): number {
  return rank(r.outlier !== undefined || r.status !== 'HEALTHY');
}

export function replicaKind(r: ReplicaInfo): string {
  return r.outlier ? 'outlier' : r.status.toLowerCase();
}

export function replicaJson(r: ReplicaInfo) {
  return {
    id: shownName(r.id),
    self: r.self,
    status: r.status,
    reason: r.reason ?? null,
    lastSeen: isoTime(r.seenAt),
    startedAt: isoTime(r.startedAt),
    outlier: r.outlier ? { operations: r.outlier.operations, reasons: r.outlier.reasons.map((reason) => ({ ...reason, operation: shownName(reason.operation) })) } : null,
  };
}

/** `fleet` in JSON answers: whether the figures are the fleet's, and the FLEET line. */
export function fleetJson(view: FleetView, snapshot: FleetSnapshot | undefined) {
  return { merged: snapshot !== undefined, mergedAt: snapshot ? isoTime(snapshot.mergedAt) : null, replicas: snapshot?.replicas.length ?? null, note: view.note() };
}
