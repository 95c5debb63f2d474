/**
 * latency_degradation: sustained latency elevation. Fires while all but one of the operation's
 * window buckets have a typical (geometric mean) latency of at least `factor` x the reference
 * p50 and at least the minimum deviation above it (OperationWindow judges the buckets). A fresh
 * process's warm-up is a cold start, not a degradation: nothing fires in the cold-start window.
 */
import type { PatternContext, PatternDetector } from './pattern-detector.js';

export class LatencyDegradationDetector implements PatternDetector {
  readonly pattern = 'latency_degradation' as const;

  detect(context: PatternContext): boolean {
    return context.window.degraded && !context.cold;
  }
}
