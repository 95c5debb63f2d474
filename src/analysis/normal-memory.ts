/**
 * Every operation's learned normal (learned-normal.ts), bounded by the operation cap, and the
 * baseline provider over them: an operation's learned p50, p99 and error rate once its normal
 * holds the minimum samples. Records go to and come back from the state store through
 * `takeChanged()` and `restore()` (learned-normal-records.ts, wired by the composition root).
 */
import { type Baseline, type BaselineProvider, LearnedBaseline } from './baseline.js';
import { BoundedMap } from './bounded-map.js';
import type { Clock } from './clock.js';
import { LearnedNormal, NORMAL_RECORD_VERSION, NORMAL_RECORD_WIDTH, type NormalRecord, NormalReference, type NormalRules, type NormalState } from './learned-normal.js';

export const DEFAULT_HORIZON_MS = 6 * 3_600_000;
export const DEFAULT_ACCEPT_AFTER_MS = 2 * 3_600_000;
export const NORMAL_PERIOD_MS = 10_000;

export interface NormalMemoryOptions {
  readonly clock: Clock;
  readonly horizonMs?: number;
  readonly acceptAfterMs?: number;
  readonly minSamples?: number;
  /** The longest detection horizon: periods wait at least this long before they are learned. */
  readonly longestHorizonMs: number;
  readonly learnFromMs: number;
  /** Held evidence failing this much is never accepted as normal. Default 0.5 (the outage error rate). */
  readonly maxAcceptedErrorRate?: number;
  readonly maxOperations?: number;
  readonly onOverflow?: (capacity: number) => void;
}

export class NormalMemory implements BaselineProvider {
  readonly rules: NormalRules;
  private readonly normals: BoundedMap<string, LearnedNormal>;
  private readonly clock: Clock;
  /** The reference every judging builds in turn (read before the next is built). */
  readonly scratch = new NormalReference();

  constructor(options: NormalMemoryOptions) {
    this.clock = options.clock;
    const periodMs = NORMAL_PERIOD_MS;
    this.rules = {
      horizonMs: options.horizonMs ?? DEFAULT_HORIZON_MS,
      acceptAfterMs: options.acceptAfterMs ?? DEFAULT_ACCEPT_AFTER_MS,
      periodMs,
      probationPeriods: Math.ceil(options.longestHorizonMs / periodMs) + 2,
      minSamples: options.minSamples ?? 10,
      learnFromMs: options.learnFromMs,
      maxAcceptedErrorRate: options.maxAcceptedErrorRate ?? 0.5,
    };
    this.normals = new BoundedMap(options.maxOperations ?? 1000, () => new LearnedNormal(this.rules), options.onOverflow);
  }

  /** The operation's normal, created on first use (undefined beyond the cap), for callers that keep it. */
  normalFor(operation: string): LearnedNormal | undefined {
    return this.normals.getOrCreate(operation);
  }

  /** The operation's normal if it has one (learned here or restored), without creating one. */
  normalOf(operation: string): LearnedNormal | undefined {
    return this.normals.get(operation);
  }

  /** What a normal's judging reads (learned and waiting periods), now; undefined while it holds too few samples. */
  referenceOf(normal: LearnedNormal | undefined): NormalReference | undefined {
    if (!normal) return undefined;
    normal.beginReferences(this.scratch);
    return normal.referenceBefore(this.clock.now(), this.scratch) ? this.scratch : undefined;
  }

  getBaseline(operation: string): Baseline | undefined {
    return this.baselineOf(this.normals.get(operation));
  }

  /** The learned p50, p99 and error rate of a normal from `normalFor`. */
  baselineOf(normal: LearnedNormal | undefined): Baseline | undefined {
    const reference = this.referenceOf(normal);
    return reference && new LearnedBaseline(reference.percentile(0.5), reference.percentile(0.99), reference.errorRate);
  }

  stateOf(normal: LearnedNormal | undefined): NormalState | undefined {
    return normal?.state(this.clock.now());
  }

  /** Forgets what the operation's normal learned (an agent's reset_baseline); it learns again from its next requests. */
  reset(operation: string): boolean {
    const normal = this.normals.get(operation);
    normal?.reset(this.clock.now());
    return normal !== undefined;
  }

  /** The operations whose record changed since the last call, with it (undefined: reset, nothing learned). */
  takeChanged(): { key: string; value: NormalRecord | undefined }[] {
    const out: { key: string; value: NormalRecord | undefined }[] = [];
    this.normals.forEach((normal, operation) => {
      if (normal.takeChanged()) out.push({ key: operation, value: normal.toRecord() });
    });
    return out;
  }

  /**
   * Adds stored normals (a previous run's, other replicas') to the operations' normals; returns
   * how many records were skipped (another version, wrong shape, non-finite or negative numbers).
   */
  restore(records: readonly { key: string; value: unknown }[]): number {
    let skipped = 0;
    for (const { key, value } of records) {
      const record = readNormalRecord(value);
      const normal = record && typeof key === 'string' ? this.normals.getOrCreate(key) : undefined;
      if (!record || !normal) {
        skipped++;
        continue;
      }
      normal.mergeRecord(record);
    }
    return skipped;
  }
}

const isWeights = (value: unknown): value is number[] =>
  Array.isArray(value) && value.length === NORMAL_RECORD_WIDTH && value.every((x, i) => typeof x === 'number' && Number.isFinite(x) && (x >= 0 || i >= NORMAL_RECORD_WIDTH - 2));
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** A stored normal, or undefined when it is not one this version reads. */
export function readNormalRecord(value: unknown): NormalRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (r.v !== NORMAL_RECORD_VERSION || !isWeights(r.learned) || !isTime(r.learnedAt) || !isTime(r.firstLearnedAt)) return undefined;
  const heldFor = r.heldForMs === undefined ? 0 : r.heldForMs;
  const held =
    r.held === undefined
      ? undefined
      : isWeights(r.held) && isTime(r.heldAt) && isTime(r.heldSince) && isTime(heldFor)
        ? { held: r.held, heldAt: r.heldAt, heldSince: r.heldSince, heldForMs: heldFor }
        : null;
  if (held === null || (r.acceptedAt !== undefined && !isTime(r.acceptedAt))) return undefined;
  return { v: NORMAL_RECORD_VERSION, learned: r.learned, learnedAt: r.learnedAt, firstLearnedAt: r.firstLearnedAt, ...held, ...(r.acceptedAt !== undefined && { acceptedAt: r.acceptedAt as number }) };
}
