/**
 * The interface every incident pattern's detector implements, and what it is shown of a span.
 * The PatternMatcher (../pattern-matcher.ts) fills one context per span and asks each detector;
 * service-wide signals (dependency failures, recoveries, memory samples) go to the detectors
 * that use them.
 */
import type { OperationWindow } from './operation-window.js';

export const INCIDENT_PATTERNS = ['cascade_failure', 'memory_leak', 'thundering_herd', 'cold_start', 'error_rate_spike', 'latency_degradation'] as const;
export type IncidentPattern = (typeof INCIDENT_PATTERNS)[number];

export const PATTERN_DESCRIPTIONS: Readonly<Record<IncidentPattern, string>> = Object.freeze({
  cascade_failure: 'Multiple dependencies are failing at once and the failures propagate to this operation',
  memory_leak: 'Process memory (heap and buffers) grows steadily while the operation gets slower or fails more',
  thundering_herd: 'Request rate spiked right after a recovery',
  cold_start: 'High latency on the first requests of a fresh process',
  error_rate_spike: 'Sudden increase of the error rate above baseline',
  latency_degradation: 'Sustained latency elevation above baseline',
});

/** One span, as the detectors see it. The matcher reuses one object (no allocation per span). */
export interface PatternContext {
  operation: string;
  window: OperationWindow;
  latencyMs: number;
  isError: boolean;
  nowMs: number;
  /** Whether the process is still in its cold-start window. */
  cold: boolean;
}

export interface PatternDetector {
  readonly pattern: IncidentPattern;
  /** Whether the pattern holds at this span. O(1). */
  detect(context: PatternContext): boolean;
}
