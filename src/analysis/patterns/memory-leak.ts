/**
 * memory_leak: the process's memory grows steadily while the operation gets slower or fails.
 *
 * Samples are the process's memory (the engine samples V8's used heap plus external memory,
 * which holds Buffers and ArrayBuffers). Each `slotMs` keeps the lowest sample it saw: the floor
 * the garbage collector came back to, so a steady process's sawtooth (up between collections,
 * down at each) gives a flat or zigzag floor while a leak raises it. The trend is the
 * least-squares slope and R^2 of the last `slots` floors, computed when a slot closes; it counts
 * as a leak from `minSlots` floors on, with slope >= `slopeBytesPerMinute` and R^2 >= `minR2`.
 * The operation side is the window verdict "slow" (every third of a horizon at `slowFactor` x
 * the normal p50) or "failing" (error rate spiking).
 */
import type { PatternContext, PatternDetector } from './pattern-detector.js';

export interface MemoryLeakOptions {
  readonly slotMs: number;
  readonly slots: number;
  readonly minSlots: number;
  readonly slopeBytesPerMinute: number;
  readonly minR2: number;
}

export interface MemoryTrend {
  readonly slopeBytesPerMinute: number;
  readonly r2: number;
  /** Floors the fit rests on. */
  readonly samples: number;
}

export class MemoryLeakDetector implements PatternDetector {
  readonly pattern = 'memory_leak' as const;
  private readonly floors: Float64Array;
  private readonly times: Float64Array;
  private count = 0;
  private next = 0;
  private slot = Number.NaN;
  private slotMin = Number.POSITIVE_INFINITY;
  private growing = false;
  private trend: MemoryTrend = { slopeBytesPerMinute: 0, r2: 0, samples: 0 };

  constructor(private readonly options: MemoryLeakOptions) {
    this.floors = new Float64Array(options.slots);
    this.times = new Float64Array(options.slots);
  }

  recordSample(bytes: number, nowMs: number): void {
    const slot = Math.floor(nowMs / this.options.slotMs);
    if (slot !== this.slot) {
      if (!Number.isNaN(this.slot)) this.close();
      this.slot = slot;
      this.slotMin = bytes;
    } else if (bytes < this.slotMin) this.slotMin = bytes;
  }

  private close(): void {
    this.floors[this.next] = this.slotMin;
    this.times[this.next] = this.slot * this.options.slotMs;
    this.next = (this.next + 1) % this.options.slots;
    this.count = Math.min(this.count + 1, this.options.slots);
    this.trend = this.fit();
    const o = this.options;
    this.growing = this.trend.samples >= o.minSlots && this.trend.slopeBytesPerMinute >= o.slopeBytesPerMinute && this.trend.r2 >= o.minR2;
  }

  /** The trend of the memory floor as of the last closed slot. */
  memoryTrend(): MemoryTrend {
    return this.trend;
  }

  private fit(): MemoryTrend {
    const n = this.count;
    if (n < 2) return { slopeBytesPerMinute: 0, r2: 0, samples: n };
    const t0 = this.times[(this.next - n + this.options.slots) % this.options.slots]!;
    let sx = 0;
    let sy = 0;
    for (let i = 0; i < n; i++) {
      sx += (this.times[i]! - t0) / 60_000;
      sy += this.floors[i]!;
    }
    const mx = sx / n;
    const my = sy / n;
    let sxx = 0;
    let sxy = 0;
    let syy = 0;
    for (let i = 0; i < n; i++) {
      const dx = (this.times[i]! - t0) / 60_000 - mx;
      const dy = this.floors[i]! - my;
      sxx += dx * dx;
      sxy += dx * dy;
      syy += dy * dy;
    }
    if (sxx === 0 || syy === 0) return { slopeBytesPerMinute: 0, r2: 0, samples: n };
    return { slopeBytesPerMinute: sxy / sxx, r2: (sxy * sxy) / (sxx * syy), samples: n };
  }

  detect(context: PatternContext): boolean {
    return this.growing && (context.window.slow || context.window.failing.holds);
  }
}
