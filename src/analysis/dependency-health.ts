/**
 * Dependency health from client spans: healthy, degraded or unhealthy by the error rate of the
 * calls of the last `windowMs`, with hysteresis: a state is entered at its threshold but left only
 * below half of it, one step at a time, and never on fewer than `minCalls` calls in the window, so
 * one success does not flip an outage back. Every change is emitted as
 * `svc.dependency.state_change` (WARN, also for recovery).
 *
 * The window is kept in ten buckets of a tenth of it each (calls, errors, latency sum), so a call
 * costs O(1) and a dependency holds forty numbers at any call rate; the window read is the current
 * bucket and the nine before it, between 0.9 and 1 window of calls.
 *
 * A dependency with no call in the window is stale: its last state is still shown, with the time
 * of its last call, but it describes the past (a breaker open, a fallback on, traffic gone), so
 * the service status does not count it. The next calls measure it afresh.
 *
 * Defaults: degraded at 10 % errors, unhealthy at 50 %, over 60 s, at least 5 calls.
 */

import { BoundedMap } from './bounded-map.js';
import { type Clock, systemClock } from './clock.js';
import type { EmitEvent } from './emit-event.js';

export type DependencyState = 'healthy' | 'degraded' | 'unhealthy';

export interface DependencyHealthOptions {
  readonly clock?: Clock;
  readonly emit?: EmitEvent;
  readonly degradedErrorRate?: number;
  readonly unhealthyErrorRate?: number;
  /** The window calls are measured over, ms. Default 60 s. */
  readonly windowMs?: number;
  /** Calls in the window needed before the state can change. Default 5. */
  readonly minCalls?: number;
  readonly maxDependencies?: number;
  /** Called when a dependency returns to healthy (the pattern matcher watches for herds then). */
  readonly onRecovery?: (dependency: string) => void;
}

export interface DependencyStatus {
  readonly name: string;
  readonly state: DependencyState;
  /** Error rate of the calls in the window (0 without calls). */
  readonly errorRate: number;
  readonly averageLatencyMs: number;
  /** Calls in the window. */
  readonly calls: number;
  /** When the state last changed (epoch ms); undefined while it never did. */
  readonly lastChange: number | undefined;
  /** No call in the window: the state is the last one measured, not counted by the service status. */
  readonly stale: boolean;
  /** The last call (epoch ms). */
  readonly lastCallAt: number;
}

/** Buckets per window. */
const BUCKETS = 10;

class DependencyWindow {
  /** Per bucket: its number (time / bucket length), calls, errors, latency sum. */
  private readonly slot = new Float64Array(BUCKETS).fill(-1);
  private readonly calls = new Float64Array(BUCKETS);
  private readonly errors = new Float64Array(BUCKETS);
  private readonly latency = new Float64Array(BUCKETS);
  state: DependencyState = 'healthy';
  lastChange: number | undefined;
  lastCallAt = 0;

  add(now: number, bucketMs: number, latencyMs: number, isError: boolean): void {
    const slot = Math.floor(now / bucketMs);
    const i = slot % BUCKETS;
    if (this.slot[i] !== slot) {
      this.slot[i] = slot;
      this.calls[i] = 0;
      this.errors[i] = 0;
      this.latency[i] = 0;
    }
    this.calls[i]!++;
    if (isError) this.errors[i]!++;
    this.latency[i]! += latencyMs;
    this.lastCallAt = now;
  }

  /** Calls, error rate and mean latency of the current bucket and the nine before it. */
  measure(now: number, bucketMs: number): { calls: number; errorRate: number; averageLatencyMs: number } {
    const current = Math.floor(now / bucketMs);
    let calls = 0;
    let errors = 0;
    let latency = 0;
    for (let i = 0; i < BUCKETS; i++) {
      const age = current - this.slot[i]!;
      if (age < 0 || age >= BUCKETS) continue;
      calls += this.calls[i]!;
      errors += this.errors[i]!;
      latency += this.latency[i]!;
    }
    return { calls, errorRate: calls ? errors / calls : 0, averageLatencyMs: calls ? latency / calls : 0 };
  }
}

export class DependencyHealth {
  private readonly windows: BoundedMap<string, DependencyWindow>;
  private readonly clock: Clock;
  private readonly degraded: number;
  private readonly unhealthy: number;
  /** The window's length, ms. */
  readonly windowMs: number;
  private readonly bucketMs: number;
  readonly minCalls: number;

  constructor(private readonly options: DependencyHealthOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.degraded = options.degradedErrorRate ?? 0.1;
    this.unhealthy = options.unhealthyErrorRate ?? 0.5;
    this.windowMs = options.windowMs ?? 60_000;
    this.bucketMs = Math.max(1, this.windowMs / BUCKETS);
    this.minCalls = options.minCalls ?? 5;
    this.windows = new BoundedMap(options.maxDependencies ?? 200, () => new DependencyWindow());
  }

  record(dependency: string, latencyMs: number, isError: boolean): void {
    const window = this.windows.getOrCreate(dependency);
    if (!window) return;
    const now = this.clock.now();
    window.add(now, this.bucketMs, latencyMs, isError);
    const { calls, errorRate } = window.measure(now, this.bucketMs);
    if (calls < this.minCalls) return;
    const next = this.nextState(window.state, errorRate);
    if (next === window.state) return;
    const previous = window.state;
    window.state = next;
    window.lastChange = now;
    this.options.emit?.('svc.dependency.state_change', 'WARN', { dependency, previous_state: previous, current_state: next, error_rate: errorRate });
    if (next === 'healthy') this.options.onRecovery?.(dependency);
  }

  private nextState(state: DependencyState, errorRate: number): DependencyState {
    if (state === 'healthy') return errorRate >= this.unhealthy ? 'unhealthy' : errorRate >= this.degraded ? 'degraded' : 'healthy';
    if (state === 'degraded') return errorRate >= this.unhealthy ? 'unhealthy' : errorRate < this.degraded / 2 ? 'healthy' : 'degraded';
    return errorRate < this.unhealthy / 2 ? 'degraded' : 'unhealthy';
  }

  status(dependency: string): DependencyStatus | undefined {
    const window = this.windows.get(dependency);
    if (!window) return undefined;
    const { calls, errorRate, averageLatencyMs } = window.measure(this.clock.now(), this.bucketMs);
    return { name: dependency, state: window.state, errorRate, averageLatencyMs, calls, lastChange: window.lastChange, stale: calls === 0, lastCallAt: window.lastCallAt };
  }

  statuses(): DependencyStatus[] {
    return [...this.windows.keys()].map((name) => this.status(name)!);
  }

  get overflow(): number {
    return this.windows.overflow;
  }
}
