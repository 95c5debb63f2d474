/** Baselines: what normal looks like for an operation. */

/**
 * The static baseline record: latency P50, latency P99 (ms) and error rate, in that order. The
 * error rate is undefined when none is expected (rule 9: `expected-error-rate: -1`, unset): then
 * errors are not judged against a baseline.
 */
export interface Baseline {
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly errorRate: number | undefined;
  /** True when learned from live traffic (the rolling provider), not configured. */
  readonly learned?: boolean;
}

/**
 * What configuration says of an operation, figure by figure (`expected-latency-p50`,
 * `expected-latency-p99`, `expected-error-rate`): each stands alone, and what is not configured is
 * learned (normal-memory.ts).
 */
export interface ConfiguredFigures {
  readonly latencyP50Ms: number | undefined;
  readonly latencyP99Ms: number | undefined;
  readonly errorRate: number | undefined;
  /** `expected-error-rate: -1` given explicitly: the operation's errors are not judged (rule 9); an outage still is. */
  readonly errorsUnjudged: boolean;
}

export const NOTHING_CONFIGURED: ConfiguredFigures = Object.freeze({ latencyP50Ms: undefined, latencyP99Ms: undefined, errorRate: undefined, errorsUnjudged: false });

const figuresByBaseline = new WeakMap<Baseline, ConfiguredFigures>();

/** A whole static baseline as figures (one object per baseline: read at every judging and health read). */
export function figuresOf(baseline: Baseline | undefined): ConfiguredFigures {
  if (!baseline) return NOTHING_CONFIGURED;
  let figures = figuresByBaseline.get(baseline);
  if (!figures) {
    figures = Object.freeze({ latencyP50Ms: baseline.latencyP50Ms, latencyP99Ms: baseline.latencyP99Ms, errorRate: baseline.errorRate, errorsUnjudged: false });
    figuresByBaseline.set(baseline, figures);
  }
  return figures;
}

/**
 * A baseline learned from traffic (the rolling window's, or a learned normal's). A class, not an
 * object literal, for the reason OperationHealth (health-aggregator.ts) gives: a health read may
 * make one per operation.
 */
export class LearnedBaseline implements Baseline {
  readonly learned = true;

  constructor(
    readonly latencyP50Ms: number,
    readonly latencyP99Ms: number,
    readonly errorRate: number,
  ) {}
}

export type Confidence = 'LOW' | 'MEDIUM' | 'HIGH';

/** A rolling snapshot of one operation's live traffic. */
export interface BaselineSnapshot {
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  readonly stddev: number;
  readonly errorRate: number;
  readonly sampleCount: number;
  readonly confidence: Confidence;
}

/** Returns an operation's baseline, or undefined when it has none. */
export interface BaselineProvider {
  getBaseline(operation: string): Baseline | undefined;
}

/**
 * Confidence grows with the sample count: fewer than 30 samples is LOW, fewer than 100 MEDIUM
 * (a p99 needs about 100 samples to be observed at all), otherwise HIGH.
 */
export function confidenceOf(sampleCount: number): Confidence {
  return sampleCount < 30 ? 'LOW' : sampleCount < 100 ? 'MEDIUM' : 'HIGH';
}

export class StaticBaselineProvider implements BaselineProvider {
  private readonly baselines: ReadonlyMap<string, Baseline>;

  constructor(baselines: ReadonlyMap<string, Baseline> | Record<string, Baseline>) {
    this.baselines = baselines instanceof Map ? baselines : new Map(Object.entries(baselines));
  }

  getBaseline(operation: string): Baseline | undefined {
    return this.baselines.get(operation);
  }
}

/**
 * The same baseline for every operation: the spec's last link of the composite chain, for chains
 * assembled by hand. The engine's chain does not use it: a baseline nobody configured or learned
 * would be shown and judged as if it were the operation's (docs/analysis.md, Baselines).
 */
export class DefaultBaselineProvider implements BaselineProvider {
  constructor(private readonly baseline: Baseline) {}

  getBaseline(): Baseline {
    return this.baseline;
  }
}

/** Asks each provider in order and returns the first baseline found. */
export class CompositeBaselineProvider implements BaselineProvider {
  constructor(private readonly providers: readonly BaselineProvider[]) {}

  getBaseline(operation: string): Baseline | undefined {
    for (let i = 0; i < this.providers.length; i++) {
      const baseline = this.providers[i]!.getBaseline(operation);
      if (baseline) return baseline;
    }
    return undefined;
  }
}
