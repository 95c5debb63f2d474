/**
 * SLO budgets across restarts (docs/state.md, "Analysis state"): one record per SLO in the
 * `slo-budgets` collection, keyed by the SLO's name, put at a checkpoint when the SLO counted since
 * the previous one. Restoring adds the record's buckets to this run's by bucket number
 * (SloTracker.merge), so the budget, burn rates and alert arming go on where they were.
 *
 * Record, version 1:
 *   { v: 1, operation, type, target, windowMs, latencyThresholdMs (or null), savedAt, startedAt,
 *     fired: [3 booleans], burning: [2 booleans], rings: [5 flat lists of [bucket, ...fields]] }
 * The definition's fields tell a record of another SLO under the same name (its target or window
 * changed): it is skipped, as is one saved more than MAX_AHEAD_MS ahead of this clock. At most
 * 720 + 252 rows: under MAX_SLO_RECORD_BYTES (test/store/analysis-state.test.ts).
 */
import { type CheckpointedState, MAX_AHEAD_MS, type StoredValue } from '../shared/checkpointed-state.js';
import { amountOf, BadRecord, countOf, type Fields, fields, finite, list, oneOf, text } from '../shared/record-fields.js';
import { NO_SINK, type StateSink } from '../shared/state-sink.js';
import type { Clock } from './clock.js';
import { DEFAULT_SLO_WINDOW_MS, type RingShape, type SloDefinition, type SloSnapshot, type SloTracker, sloRings } from './slo-tracker.js';

export const SLO_BUDGETS_COLLECTION = 'slo-budgets';
const VERSION = 1;
/** The most one SLO's record takes as JSON: every bucket of every ring holding events, up to 10 digits of them. */
export const MAX_SLO_RECORD_BYTES = 64 * 1024;

export class SloBudgetRecords implements CheckpointedState {
  readonly collection = SLO_BUDGETS_COLLECTION;
  private sink: StateSink = NO_SINK;

  constructor(
    private readonly slos: SloTracker,
    private readonly clock: Clock,
  ) {}

  attachStore(sink: StateSink): void {
    this.sink = sink;
  }

  checkpoint(): void {
    for (const name of this.slos.takeChanged()) {
      const definition = this.slos.definitions().find((d) => d.name === name)!;
      const snapshot = this.slos.snapshot(name)!;
      const savedAt = this.clock.now();
      this.sink.put(this.collection, name, () => recordOf(definition, snapshot, savedAt));
    }
  }

  restore(records: readonly StoredValue[]): number {
    const definitions = new Map(this.slos.definitions().map((d) => [d.name, d]));
    const now = this.clock.now();
    let skipped = 0;
    for (const { key, value } of records) {
      // An SLO no longer configured: its record stays, for the day it is configured again.
      const definition = definitions.get(key);
      if (!definition) continue;
      try {
        this.slos.merge(key, readSnapshot(value, definition, now));
      } catch {
        skipped++;
      }
    }
    return skipped;
  }
}

function recordOf(definition: SloDefinition, snapshot: SloSnapshot, savedAt: number): unknown {
  return {
    v: VERSION,
    operation: definition.operationName,
    type: definition.type,
    target: definition.target,
    windowMs: definition.windowMs ?? DEFAULT_SLO_WINDOW_MS,
    latencyThresholdMs: definition.latencyThresholdMs ?? null,
    savedAt,
    startedAt: snapshot.startedAt,
    fired: snapshot.fired,
    burning: snapshot.burning,
    rings: snapshot.rings.map((rows) => rows.flat()),
  };
}

function flags(record: Fields, name: string, length: number): boolean[] {
  const value = list(record, name);
  if (value.length !== length || !value.every((v) => typeof v === 'boolean')) throw new BadRecord(`${name} is not ${length} booleans`);
  return value as boolean[];
}

/** A ring's rows: bucket numbers whole, ascending and within one ring's span, counts whole, bad events within the events. */
function rowsOf(flat: unknown, ring: RingShape, savedAt: number): number[][] {
  const width = ring.fields + 1;
  if (!Array.isArray(flat) || flat.length % width !== 0 || flat.length > ring.size * width) throw new BadRecord('a ring is not whole rows');
  const rows: number[][] = [];
  for (let at = 0; at < flat.length; at += width) {
    const row = flat.slice(at, at + width) as unknown[];
    const bucket = countOf(row[0], 'bucket');
    const total = countOf(row[1], 'events');
    const bad = countOf(row[2], 'bad events');
    if (total === 0 || bad > total) throw new BadRecord('bad events exceed events');
    if (ring.fields === 4) {
      amountOf(row[3], 'budget spent');
      if (countOf(row[4], 'priced') > bad) throw new BadRecord('more bad events priced than counted');
    }
    const previous = rows.at(-1)?.[0];
    if (previous !== undefined && bucket <= previous) throw new BadRecord('buckets not ascending');
    if (bucket - (rows[0]?.[0] ?? bucket) >= ring.size || bucket * ring.bucketMs > savedAt) throw new BadRecord('a bucket outside the ring');
    rows.push(row as number[]);
  }
  return rows;
}

function readSnapshot(value: unknown, definition: SloDefinition, now: number): SloSnapshot {
  const record = fields(value);
  if (record.v !== VERSION) throw new BadRecord('another version');
  const windowMs = definition.windowMs ?? DEFAULT_SLO_WINDOW_MS;
  const same =
    text(record, 'operation') === definition.operationName &&
    oneOf(record, 'type', ['AVAILABILITY', 'LATENCY_P99']) === definition.type &&
    finite(record, 'target') === definition.target &&
    finite(record, 'windowMs') === windowMs &&
    (record.latencyThresholdMs ?? undefined) === definition.latencyThresholdMs;
  if (!same) throw new BadRecord('another definition');
  const savedAt = amountOf(record.savedAt, 'savedAt');
  const startedAt = amountOf(record.startedAt, 'startedAt');
  if (savedAt > now + MAX_AHEAD_MS || startedAt > savedAt) throw new BadRecord('from the future');
  const shapes = sloRings(windowMs);
  const rings = list(record, 'rings');
  if (rings.length !== shapes.length) throw new BadRecord('not every ring');
  return {
    startedAt,
    fired: flags(record, 'fired', 3),
    burning: flags(record, 'burning', 2),
    rings: rings.map((flat, r) => rowsOf(flat, shapes[r]!, savedAt)),
  };
}
