/**
 * What an operation is judged against, figure by figure, and where each figure comes from: its
 * configuration where set (`expected-latency-p50`, `expected-latency-p99`, `expected-error-rate`),
 * else its learned normal (normal-memory.ts). Every tool quotes these, so the same figure reads
 * the same everywhere, with its source: `configured`, `learned over 6 h`, `learning (12 samples)`.
 * A class, not an object literal, for the reason OperationHealth gives: each health read makes
 * one per operation.
 */
import { type Baseline, type ConfiguredFigures, figuresOf, NOTHING_CONFIGURED } from './baseline.js';
import type { NormalState } from './learned-normal.js';

/** What was learned from traffic: the learned normal's reference (learned-normal.ts), or a learned baseline's figures. */
export interface LearnedFigures {
  percentile(q: 0.5 | 0.99): number;
  readonly errorRate: number | undefined;
}

/** configured: from configuration; learned: the normal learned from traffic; learning: neither yet; unjudged: `expected-error-rate: -1`. */
export type FigureSource = 'configured' | 'learned' | 'learning' | 'unjudged';

/** Errors are judged against the normal rate, but never against less than this: one error against a clean history is no rise. */
export const ERROR_RATE_FLOOR = 0.01;

export class OperationBaseline {
  readonly latencyP50Ms: number | undefined;
  readonly latencyP99Ms: number | undefined;
  /** The error rate errors are judged against; undefined while learning or when unjudged. */
  readonly errorRate: number | undefined;
  readonly p50Source: FigureSource;
  readonly p99Source: FigureSource;
  readonly errorRateSource: FigureSource;
  /** Whether the learned normal judges yet: it holds the minimum samples in periods that ended. */
  readonly formed: boolean;
  /** Samples of the learned normal (decayed weights, rounded), the current period's included. */
  readonly samples: number;
  /** How long the learned normal covers (at most its horizon). */
  readonly learnedOverMs: number;
  /** Since when a deviation keeps the normal from learning, and when it becomes normal if it lasts. */
  readonly frozenSince: number | undefined;
  readonly acceptAt: number | undefined;

  /** `learnedFirst` (`baselines.source: rolling`): a learned figure wins over the configured one; else configuration wins. */
  constructor(configured: ConfiguredFigures, learned: LearnedFigures | undefined, normal: NormalState | undefined, learnedFirst = false) {
    const figures = learnedFirst && learned ? NOTHING_CONFIGURED : configured;
    const p50 = figures.latencyP50Ms ?? learned?.percentile(0.5);
    const p99 = figures.latencyP99Ms ?? learned?.percentile(0.99);
    this.latencyP50Ms = p50;
    this.latencyP99Ms = p99;
    this.p50Source = sourceOf(figures.latencyP50Ms, p50);
    this.p99Source = sourceOf(figures.latencyP99Ms, p99);
    if (configured.errorsUnjudged) {
      this.errorRate = undefined;
      this.errorRateSource = 'unjudged';
    } else {
      this.errorRate = figures.errorRate ?? learned?.errorRate;
      this.errorRateSource = sourceOf(figures.errorRate, this.errorRate);
    }
    this.formed = learned !== undefined;
    this.samples = normal?.samples ?? 0;
    this.learnedOverMs = normal?.learnedOverMs ?? 0;
    this.frozenSince = normal?.frozenSince;
    this.acceptAt = normal?.acceptAt;
  }

  /** learning: no latency figure at all yet; configured: every figure known is configured; else learned. */
  get state(): 'configured' | 'learned' | 'learning' {
    if (this.latencyP50Ms === undefined && this.latencyP99Ms === undefined) return 'learning';
    return this.p50Source !== 'learned' && this.p99Source !== 'learned' && this.errorRateSource !== 'learned' ? 'configured' : 'learned';
  }

  /** `configured`, `learned over 6 h`, `learning (12 samples)` or `not judged (expected-error-rate: -1)`. */
  describe(source: FigureSource): string {
    switch (source) {
      case 'configured':
        return 'configured';
      case 'learned':
        return `learned over ${durationText(this.learnedOverMs)}`;
      case 'learning':
        return `learning (${this.samples} ${this.samples === 1 ? 'sample' : 'samples'})`;
      case 'unjudged':
        return 'not judged (expected-error-rate: -1)';
    }
  }
}

/** A provider's baseline as what an operation is judged against: learned figures for a learned one (a rolling window's), else configured ones. */
export function operationBaselineOf(baseline: Baseline): OperationBaseline {
  if (!baseline.learned) return new OperationBaseline(figuresOf(baseline), undefined, undefined);
  const { latencyP50Ms, latencyP99Ms, errorRate } = baseline;
  const learned: LearnedFigures = { percentile: (q) => (q === 0.5 ? latencyP50Ms : latencyP99Ms), errorRate };
  return new OperationBaseline(NOTHING_CONFIGURED, learned, undefined);
}

function sourceOf(configured: number | undefined, value: number | undefined): FigureSource {
  return configured !== undefined ? 'configured' : value !== undefined ? 'learned' : 'learning';
}

/** `45 s`, `12 min`, `6 h`, `2 h 30 min`. */
export function durationText(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `${hours} h ${rest} min` : `${hours} h`;
}
