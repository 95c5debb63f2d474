/**
 * cold_start: the first requests of a fresh process are slow (JIT, lazy loading, pools, and the
 * queueing behind them). That is normal, so it is reported, not raised:
 *
 * - While the process is in its cold-start window, each operation's slowest latency per slot
 *   (one second, or a 120th of the window) is recorded from its first request on.
 *   `coldStartOf` compares them, when asked, with the operation's baseline p99: a cold start is
 *   a first slot at least `factor` x that p99 (and the minimum deviation above it), lasting
 *   until the first slot with requests that is not.
 * - The pattern fires by itself only for a span in the cold-start window slower than the
 *   operation's limit: the tightest latency SLA of a declared consumer, or `latencyMs` (500 ms)
 *   without one.
 */
import type { ColdStartRecord, OperationWindow } from './operation-window.js';
import type { PatternContext, PatternDetector } from './pattern-detector.js';

export interface ColdStartOptions {
  readonly processStartMs: number;
  readonly windowMs: number;
  readonly factor: number;
  readonly latencyMs: number;
  readonly minLatencyDeviationMs: number;
  /** The tightest latency SLA of the operation's declared consumers, if any. */
  readonly limitOf?: (operation: string) => number | undefined;
}

/** A cold start as `get_service_health` and incidents report it. */
export interface ColdStart {
  /** When the operation's first request was seen. */
  readonly firstRequestAtMs: number;
  /** The slowest latency while it lasted. */
  readonly peakMs: number;
  /** The baseline p99 it was compared with. */
  readonly baselineP99Ms: number;
  /** How long the first requests stayed markedly slower (whole slots). */
  readonly durationMs: number;
  /** The latency above which a cold start is a detection by itself, and whether it was crossed. */
  readonly limitMs: number;
  readonly breached: boolean;
}

const SLOTS = 120;

export class ColdStartDetector implements PatternDetector {
  readonly pattern = 'cold_start' as const;
  private readonly slotMs: number;
  private over = false;

  constructor(private readonly options: ColdStartOptions) {
    this.slotMs = Math.max(1000, Math.ceil(options.windowMs / SLOTS));
  }

  /** When the process's cold-start window ends, epoch ms. */
  get endsAtMs(): number {
    return this.options.processStartMs + this.options.windowMs;
  }

  /** Whether the process is still in its cold-start window at `nowMs`; once past it, never again (a wall clock stepped back does not reopen it). */
  isCold(nowMs: number): boolean {
    if (this.over) return false;
    if (nowMs - this.options.processStartMs < this.options.windowMs) return true;
    this.over = true;
    return false;
  }

  detect(context: PatternContext): boolean {
    if (!context.cold) return false;
    const record = (context.window.coldStart ??= this.recordFor(context.operation, context.nowMs));
    const slot = Math.floor((context.nowMs - record.firstAtMs) / this.slotMs);
    if (slot < record.maxPerSlot.length && context.latencyMs > record.maxPerSlot[slot]!) record.maxPerSlot[slot] = context.latencyMs;
    return context.latencyMs >= record.limitMs;
  }

  private recordFor(operation: string, nowMs: number): ColdStartRecord {
    const remaining = this.options.processStartMs + this.options.windowMs - nowMs;
    return {
      firstAtMs: nowMs,
      slotMs: this.slotMs,
      maxPerSlot: new Float32Array(Math.max(1, Math.ceil(remaining / this.slotMs))),
      limitMs: this.options.limitOf?.(operation) ?? this.options.latencyMs,
    };
  }

  /** The operation's cold start against `baselineP99Ms`, or undefined when its first requests were not markedly slower. */
  coldStartOf(window: OperationWindow | undefined, baselineP99Ms: number | undefined): ColdStart | undefined {
    const record = window?.coldStart;
    if (!record || baselineP99Ms === undefined) return undefined;
    const slow = Math.max(this.options.factor * baselineP99Ms, baselineP99Ms + this.options.minLatencyDeviationMs);
    const slots = record.maxPerSlot;
    if (slots[0]! < slow) return undefined;
    let peak = 0;
    let last = 0;
    for (let i = 0; i < slots.length; i++) {
      const max = slots[i]!;
      if (max === 0) continue; // no request in that slot
      if (max < slow) break;
      last = i;
      if (max > peak) peak = max;
    }
    return { firstRequestAtMs: record.firstAtMs, peakMs: peak, baselineP99Ms, durationMs: (last + 1) * record.slotMs, limitMs: record.limitMs, breached: peak >= record.limitMs };
  }
}
