/**
 * What changed and when, kept (bounded, oldest first) so incident context can rank the changes
 * before an episode (incident-cause.ts) and show what agents did about it:
 * - `deployment`: the process's start (with the configuration it loaded) or a rollout;
 * - `config_change`: a feature flag, a setting, recorded by the app;
 * - `dependency_state` and `circuit_breaker`: recorded from their state-change events
 *   (`recordingStateChanges`), as the spec's causality tracker;
 * - `remediation`: an action an agent took; shown as an action taken, never ranked as a cause.
 *
 * An entry may say what it touches (an operation, a dependency), which the ranking prefers.
 *
 * Persisted (docs/state.md) as the `changes` collection through a sink given by the composition
 * root; the previous runs' entries are restored in time order, within the same capacity.
 */

import { fields, finite, oneOf, readAll, text } from '../shared/record-fields.js';
import { NO_SINK, type StateSink } from '../shared/state-sink.js';
import { type Clock, systemClock } from './clock.js';
import type { EmitEvent } from './emit-event.js';

export const CHANGES_COLLECTION = 'changes';
const KINDS = ['deployment', 'config_change', 'dependency_state', 'circuit_breaker', 'remediation'] as const;

function stringRecord(value: unknown, max: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields(value)).slice(0, 64)) if (typeof v === 'string') out[k.slice(0, 256)] = v.slice(0, max);
  return out;
}

export type ChangeKind = 'deployment' | 'config_change' | 'dependency_state' | 'circuit_breaker' | 'remediation';

/** What a change acts on; a change without either touches the whole process. */
export interface ChangeTarget {
  readonly operation?: string;
  readonly dependency?: string;
}

export interface ChangeEntry {
  readonly kind: ChangeKind;
  readonly description: string;
  /** Epoch ms. */
  readonly timestamp: number;
  readonly details: Readonly<Record<string, string>>;
  readonly touches: ChangeTarget;
}

export class ChangeTracker {
  private entries: ChangeEntry[] = [];
  private readonly keys = new WeakMap<ChangeEntry, string>();
  private sink: StateSink = NO_SINK;
  private count = 0;
  /** Distinguishes this process's keys from other runs' and replicas'. */
  private readonly keyPrefix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

  constructor(
    private readonly clock: Clock = systemClock,
    private readonly capacity = 200,
  ) {}

  record(kind: ChangeKind, description: string, details: Record<string, string> = {}, timestamp = this.clock.now(), touches: ChangeTarget = {}): ChangeEntry {
    const entry = Object.freeze({ kind, description, timestamp, details: Object.freeze({ ...details }), touches: Object.freeze({ ...touches }) });
    const key = `${this.keyPrefix}-${++this.count}`;
    this.keys.set(entry, key);
    this.entries.push(entry);
    this.sink.put(CHANGES_COLLECTION, key, () => entry);
    this.entries.sort((a, b) => a.timestamp - b.timestamp);
    this.trim();
    return entry;
  }

  private trim(): void {
    while (this.entries.length > this.capacity) this.sink.delete(CHANGES_COLLECTION, this.keys.get(this.entries.shift()!)!);
  }

  /** Persists every change from now on, and the entries held so far. */
  attachStore(sink: StateSink): void {
    this.sink = sink;
    for (const entry of this.entries) sink.put(CHANGES_COLLECTION, this.keys.get(entry)!, () => entry);
  }

  /** Adds the entries of previous runs, in time order; returns how many did not read back. */
  restore(records: readonly { key: string; value: unknown }[]): number {
    const known = new Set(this.entries.map((e) => this.keys.get(e)));
    const { read, skipped } = readAll(
      records.filter((r) => !known.has(r.key)),
      (r) => {
        const { key, value } = r as { key: string; value: unknown };
        const f = fields(value);
        const entry: ChangeEntry = Object.freeze({
          kind: oneOf(f, 'kind', KINDS),
          description: text(f, 'description', 4096),
          timestamp: finite(f, 'timestamp'),
          details: Object.freeze(stringRecord(f.details, 4096)),
          touches: Object.freeze(stringRecord(f.touches ?? {}, 1024)) as ChangeTarget,
        });
        this.keys.set(entry, key);
        return entry;
      },
    );
    this.entries = [...read, ...this.entries].sort((a, b) => a.timestamp - b.timestamp);
    this.trim();
    return skipped;
  }

  list(): readonly ChangeEntry[] {
    return this.entries;
  }

  lastDeployment(): ChangeEntry | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i]!.kind === 'deployment') return this.entries[i];
    return undefined;
  }

  /** Changes at most `windowMs` before `time` (and not after it), newest first. */
  before(time: number, windowMs: number): ChangeEntry[] {
    return this.entries.filter((e) => e.timestamp <= time && time - e.timestamp <= windowMs).reverse();
  }

  /** Changes from `from` to `to` inclusive, newest first. */
  between(from: number, to: number): ChangeEntry[] {
    return this.entries.filter((e) => e.timestamp >= from && e.timestamp <= to).reverse();
  }
}

const RECORDING = new WeakMap<EmitEvent, ChangeTracker>();

/**
 * An `emit` that also records dependency and circuit-breaker state changes in `changes`, then
 * hands every event on. Wrapping an emit that already records into the same tracker returns it
 * unchanged, so components built with it and an Engine wrapping it again record each change once.
 */
export function recordingStateChanges(emit: EmitEvent, changes: ChangeTracker): EmitEvent {
  if (RECORDING.get(emit) === changes) return emit;
  const recording: EmitEvent = (name, severity, body) => {
    if (name === 'svc.dependency.state_change') {
      const dependency = String(body.dependency);
      const rate = typeof body.error_rate === 'number' ? `, ${(body.error_rate * 100).toFixed(1)}% errors` : '';
      changes.record('dependency_state', `dependency ${dependency} ${String(body.previous_state)} -> ${String(body.current_state)}${rate}`, { state: String(body.current_state) }, undefined, {
        dependency,
      });
    } else if (name === 'svc.circuit_breaker.state_change') {
      const dependency = String(body.dependency);
      changes.record(
        'circuit_breaker',
        `circuit breaker ${String(body.name)} (${dependency}) ${String(body.previous_state)} -> ${String(body.new_state)}`,
        { state: String(body.new_state), breaker: String(body.name) },
        undefined,
        { dependency },
      );
    }
    emit(name, severity, body);
  };
  RECORDING.set(recording, changes);
  return recording;
}
