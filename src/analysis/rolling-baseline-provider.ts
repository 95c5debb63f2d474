/**
 * Rolling baselines from live traffic: a window of the last `windowSize` observations per
 * operation; a snapshot exists once `minSamples` were recorded.
 */
import { type Baseline, type BaselineProvider, type BaselineSnapshot, confidenceOf, LearnedBaseline } from './baseline.js';
import { BoundedMap } from './bounded-map.js';
import { RollingWindow } from './rolling-window.js';

export class RollingBaselineProvider implements BaselineProvider {
  private readonly windows: BoundedMap<string, RollingWindow>;

  constructor(
    readonly windowSize = 1000,
    readonly minSamples = 10,
    maxOperations = 1000,
    onOverflow?: (capacity: number) => void,
  ) {
    this.windows = new BoundedMap(maxOperations, () => new RollingWindow(this.windowSize), onOverflow);
  }

  record(operation: string, latencyMs: number, isError: boolean): void {
    this.windowFor(operation)?.add(latencyMs, isError);
  }

  /** The operation's window, created on first use (undefined beyond the cap), for callers that keep it. */
  windowFor(operation: string): RollingWindow | undefined {
    return this.windows.getOrCreate(operation);
  }

  /** Whether a window holds the `minSamples` observations a baseline needs. */
  isBaseline(window: RollingWindow | undefined): window is RollingWindow {
    return window !== undefined && window.count >= this.minSamples;
  }

  getSnapshot(operation: string): BaselineSnapshot | undefined {
    const window = this.windows.get(operation);
    if (!this.isBaseline(window)) return undefined;
    const stats = window.stats();
    const [p50, p99] = window.percentiles(0.5, 0.99) as readonly [number, number];
    return { p50, p99, mean: stats.mean, stddev: stats.stddev, errorRate: stats.errorRate, sampleCount: stats.count, confidence: confidenceOf(stats.count) };
  }

  getBaseline(operation: string): Baseline | undefined {
    return this.baselineOf(this.windows.get(operation));
  }

  /** The baseline of a window from `windowFor`, once it holds `minSamples` observations. */
  baselineOf(window: RollingWindow | undefined): Baseline | undefined {
    if (!this.isBaseline(window)) return undefined;
    // Read on every health call for every operation: no arrays for the two percentiles.
    return new LearnedBaseline(window.percentile(0.5, 0), window.percentile(0.99, 1), window.errorRate);
  }

  /** Forgets an operation's observations (keeping its slot), after an intended change of behaviour. */
  reset(operation: string): boolean {
    const window = this.windows.get(operation);
    window?.clear();
    return window !== undefined;
  }

  operations(): string[] {
    return [...this.windows.keys()];
  }

  get overflow(): number {
    return this.windows.overflow;
  }
}
