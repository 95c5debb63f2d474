/**
 * What changed and when: deployments and configuration changes, kept (bounded, newest last) so
 * incident context can name a change close to an anomaly as a probable cause.
 */
import { systemClock, type Clock } from './clock.js';

export type ChangeKind = 'deployment' | 'config_change';

export interface ChangeEntry {
  readonly kind: ChangeKind;
  readonly description: string;
  /** Epoch ms. */
  readonly timestamp: number;
  readonly details: Readonly<Record<string, string>>;
}

export class ChangeTracker {
  private readonly entries: ChangeEntry[] = [];

  constructor(
    private readonly clock: Clock = systemClock,
    private readonly capacity = 200,
  ) {}

  record(kind: ChangeKind, description: string, details: Record<string, string> = {}, timestamp = this.clock.now()): ChangeEntry {
    const entry = Object.freeze({ kind, description, timestamp, details: Object.freeze({ ...details }) });
    this.entries.push(entry);
    this.entries.sort((a, b) => a.timestamp - b.timestamp);
    if (this.entries.length > this.capacity) this.entries.shift();
    return entry;
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
}
