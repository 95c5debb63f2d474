/**
 * How an operation deviates from its normal right now, as its window last judged it: the patterns
 * that hold (since when, how far on the spec's scale, whether it is an outage) and those still
 * forming (`latency_degradation forming, 6 s of evidence`). Health marks the operation from it and
 * the incident context shows it, so both tell the same story. A window without a request for
 * longer than its longest horizon has no evidence left and shows nothing.
 */
import type { IncidentPattern, PatternMatcher } from './pattern-matcher.js';
import type { OperationWindow } from './patterns/operation-window.js';

export interface FormingPattern {
  readonly pattern: IncidentPattern;
  /** When its evidence began, epoch ms. */
  readonly sinceMs: number;
}

export interface OperationDeviation {
  /** Patterns that hold now. */
  readonly patterns: readonly IncidentPattern[];
  /** When the earliest verdict holding now began, epoch ms (NaN when only forming). */
  readonly sinceMs: number;
  readonly outage: boolean;
  /** min(1, |z| / 4) of the deviation from normal, over the horizon that showed it. */
  readonly score: number;
  readonly forming: readonly FormingPattern[];
}

export function deviationOf(window: OperationWindow, matcher: PatternMatcher, operation: string): OperationDeviation | undefined {
  const now = matcher.now();
  if (now - window.closedEndMs > matcher.longestHorizonMs) return undefined;
  const patterns = matcher.patternsNow(window, operation);
  const latencyForming = !patterns.includes('latency_degradation') && Number.isFinite(window.latencyFormingSinceMs);
  const errorsForming = !patterns.includes('error_rate_spike') && Number.isFinite(window.errorsFormingSinceMs);
  // Each health read asks for every operation: nothing is allocated for one that does not deviate.
  if (!patterns.length && !latencyForming && !errorsForming) return undefined;
  const forming: FormingPattern[] = [];
  if (latencyForming) forming.push({ pattern: 'latency_degradation', sinceMs: window.latencyFormingSinceMs });
  if (errorsForming) forming.push({ pattern: 'error_rate_spike', sinceMs: window.errorsFormingSinceMs });
  const onsets = [window.degraded, window.failing, window.outage].filter((v) => v.holds).map((v) => v.onsetMs);
  return { patterns, sinceMs: onsets.length ? Math.min(...onsets) : Number.NaN, outage: window.outage.holds, score: window.score, forming };
}
