/**
 * error_rate_spike: all but one of the operation's window buckets fail above the baseline error
 * rate by more than the threshold, for operations whose error rate is watched (rule 9: an unset
 * expected error rate means no error-rate detection). The end of a spike is a recovery, after
 * which a thundering herd may follow (the matcher tells the herd detector).
 */
import type { PatternContext, PatternDetector } from './pattern-detector.js';

export class ErrorRateSpikeDetector implements PatternDetector {
  readonly pattern = 'error_rate_spike' as const;

  constructor(private readonly watchesErrorRate: (operation: string) => boolean = () => true) {}

  detect(context: PatternContext): boolean {
    return context.window.failing && this.watchesErrorRate(context.operation);
  }
}
