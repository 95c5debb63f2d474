/**
 * Dependency health from client spans: healthy, degraded or unhealthy by the error rate of the
 * last `windowSize` calls within `windowMs`, with hysteresis: a state is entered at its threshold
 * but left only below half of it, one step at a time, and never on fewer than `minCalls` calls, so
 * one success does not flip an outage back. Every change is emitted as
 * `svc.dependency.state_change` (WARN, also for recovery).
 *
 * Defaults: degraded at 10 % errors, unhealthy at 50 %, over the last 20 calls within 60 s, at
 * least 5 calls.
 */
import type { EmitEvent } from './emit-event.js';
import { BoundedMap } from './bounded-map.js';
import { systemClock, type Clock } from './clock.js';

export type DependencyState = 'healthy' | 'degraded' | 'unhealthy';

export interface DependencyHealthOptions {
  readonly clock?: Clock;
  readonly emit?: EmitEvent;
  readonly degradedErrorRate?: number;
  readonly unhealthyErrorRate?: number;
  readonly windowSize?: number;
  readonly windowMs?: number;
  readonly minCalls?: number;
  readonly maxDependencies?: number;
  /** Called when a dependency returns to healthy (the pattern matcher watches for herds then). */
  readonly onRecovery?: (dependency: string) => void;
}

export interface DependencyStatus {
  readonly name: string;
  readonly state: DependencyState;
  readonly errorRate: number;
  readonly averageLatencyMs: number;
  readonly calls: number;
  readonly lastChange: number | undefined;
}

class DependencyWindow {
  readonly at: Float64Array;
  readonly latency: Float64Array;
  readonly errors: Uint8Array;
  next = 0;
  size = 0;
  state: DependencyState = 'healthy';
  lastChange: number | undefined;

  constructor(capacity: number) {
    this.at = new Float64Array(capacity);
    this.latency = new Float64Array(capacity);
    this.errors = new Uint8Array(capacity);
  }

  add(now: number, latencyMs: number, isError: boolean): void {
    this.at[this.next] = now;
    this.latency[this.next] = latencyMs;
    this.errors[this.next] = isError ? 1 : 0;
    this.next = (this.next + 1) % this.at.length;
    if (this.size < this.at.length) this.size++;
  }

  /** Error rate and mean latency of the calls not older than `windowMs`. */
  measure(now: number, windowMs: number): { calls: number; errorRate: number; averageLatencyMs: number } {
    let calls = 0;
    let errors = 0;
    let latency = 0;
    for (let i = 0; i < this.size; i++) {
      if (now - this.at[i]! > windowMs) continue;
      calls++;
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
  private readonly windowMs: number;
  private readonly minCalls: number;
  private readonly windowSize: number;

  constructor(private readonly options: DependencyHealthOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.degraded = options.degradedErrorRate ?? 0.1;
    this.unhealthy = options.unhealthyErrorRate ?? 0.5;
    this.windowMs = options.windowMs ?? 60_000;
    this.minCalls = options.minCalls ?? 5;
    this.windowSize = options.windowSize ?? 20;
    this.windows = new BoundedMap(options.maxDependencies ?? 200, () => new DependencyWindow(this.windowSize));
  }

  record(dependency: string, latencyMs: number, isError: boolean): void {
    const window = this.windows.getOrCreate(dependency);
    if (!window) return;
    const now = this.clock.now();
    window.add(now, latencyMs, isError);
    const { calls, errorRate } = window.measure(now, this.windowMs);
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
    const { calls, errorRate, averageLatencyMs } = window.measure(this.clock.now(), this.windowMs);
    return { name: dependency, state: window.state, errorRate, averageLatencyMs, calls, lastChange: window.lastChange };
  }

  statuses(): DependencyStatus[] {
    return [...this.windows.keys()].map((name) => this.status(name)!);
  }

  get overflow(): number {
    return this.windows.overflow;
  }
}
