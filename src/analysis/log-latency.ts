/**
 * The natural log of a latency, which the robust anomaly check, the rolling and recent windows and
 * the latency histogram all read. The engine takes it once per span and hands it on:
 * a `Math.log` costs about as much as a map lookup.
 */

/** Latencies below this are clamped before taking logs (a 0 ms span has no logarithm). */
const MIN_LOG_LATENCY_MS = 0.001;

export function logLatency(latencyMs: number): number {
  return Math.log(Math.max(latencyMs, MIN_LOG_LATENCY_MS));
}
