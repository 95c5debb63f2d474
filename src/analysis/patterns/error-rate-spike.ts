/**
 * error_rate_spike: the operation's window fails above its normal error rate (configured, else
 * learned) by more than the threshold over a horizon and in each of its thirds, or is in an outage
 * (most requests failing, whatever the configuration; `expected-error-rate: -1` leaves only that).
 * The end of a spike is a recovery, after which a thundering herd may follow (the matcher tells
 * the herd detector).
 */
import type { PatternContext, PatternDetector } from './pattern-detector.js';

export class ErrorRateSpikeDetector implements PatternDetector {
  readonly pattern = 'error_rate_spike' as const;

  detect(context: PatternContext): boolean {
    return context.window.failing.holds || context.window.outage.holds;
  }
}
