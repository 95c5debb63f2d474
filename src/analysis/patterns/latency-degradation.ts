/**
 * latency_degradation: sustained latency elevation. Fires while the operation's window holds its
 * latency verdict: over a horizon and in each of its thirds, most requests slower than `factor`
 * x the normal p50 (OperationWindow judges the horizons). A fresh process's warm-up is not a
 * degradation: the matcher makes no latency verdict in it (`patterns.warm-up`), and its slowness
 * is reported as a cold start.
 */
import type { PatternContext, PatternDetector } from './pattern-detector.js';

export class LatencyDegradationDetector implements PatternDetector {
  readonly pattern = 'latency_degradation' as const;

  detect(context: PatternContext): boolean {
    return context.window.degraded.holds;
  }
}
