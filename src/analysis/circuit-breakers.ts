/**
 * Circuit breaker states (closed, open, half_open) reported by the app, or watched on an
 * `opossum` breaker. Each change is emitted as `svc.circuit_breaker.state_change` (WARN) with the
 * accumulated failure count and the dependency. A registered breaker can also be opened and
 * closed, which the remediation actions use.
 */
import type { EmitEvent } from './emit-event.js';

export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitBreakerControl {
  open(): void;
  close(): void;
}

export interface CircuitBreakerStatus {
  readonly name: string;
  readonly dependency: string;
  readonly state: CircuitState;
  readonly failureCount: number;
  readonly since: number;
  readonly controllable: boolean;
}

interface Entry {
  name: string;
  dependency: string;
  state: CircuitState;
  failureCount: number;
  since: number;
  control: CircuitBreakerControl | undefined;
}

/** The part of an opossum `CircuitBreaker` that svc uses. */
export interface OpossumLike {
  readonly name?: string;
  readonly opened: boolean;
  readonly halfOpen: boolean;
  readonly stats: { readonly failures: number };
  on(event: 'open' | 'halfOpen' | 'close', listener: () => void): unknown;
  open(): void;
  close(): void;
}

export class CircuitBreakers {
  private readonly breakers = new Map<string, Entry>();
  /** States to force on breakers not registered yet (a remediation restored at start). */
  private readonly forceOnRegister = new Map<string, 'open' | 'closed'>();

  constructor(
    private readonly emit: EmitEvent = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  /** Registers a breaker (closed unless `state` says otherwise); `control` lets remediation open and close it. */
  register(name: string, dependency: string, options: { state?: CircuitState; control?: CircuitBreakerControl } = {}): void {
    this.breakers.set(name, { name, dependency, state: options.state ?? 'closed', failureCount: 0, since: this.now(), control: options.control });
    const forced = this.forceOnRegister.get(name);
    if (forced !== undefined && options.control) {
      this.forceOnRegister.delete(name);
      // After the caller's own set-up (watchOpossum attaches its listeners after registering).
      queueMicrotask(() => this.force(name, forced));
    }
  }

  /** States waiting for their breaker to be registered. */
  pendingForces(): number {
    return this.forceOnRegister.size;
  }

  /** Forces a state now, or once a controllable breaker of that name is registered. */
  forceWhenRegistered(name: string, state: 'open' | 'closed'): void {
    if (this.force(name, state)) return;
    // A breaker registers closed: only an open state has to wait for it (so closing unknown names holds nothing).
    if (state === 'open') this.forceOnRegister.set(name, state);
    else this.forceOnRegister.delete(name);
  }

  /** Reports a state; emits an event when it differs from the last one. */
  report(name: string, state: CircuitState, details: { failureCount?: number; dependency?: string } = {}): void {
    let entry = this.breakers.get(name);
    if (!entry) {
      this.register(name, details.dependency ?? name);
      entry = this.breakers.get(name)!;
    }
    if (details.failureCount !== undefined) entry.failureCount = details.failureCount;
    if (details.dependency) entry.dependency = details.dependency;
    if (entry.state === state) return;
    const previous = entry.state;
    entry.state = state;
    entry.since = this.now();
    this.emit('svc.circuit_breaker.state_change', 'WARN', {
      name,
      previous_state: previous,
      new_state: state,
      failure_count: entry.failureCount,
      dependency: entry.dependency,
    });
  }

  /**
   * Follows an opossum breaker's open / halfOpen / close events. The failure count is opossum's
   * failures in its rolling window; it reads 0 on close, when the window that tripped is over.
   */
  watchOpossum(breaker: OpossumLike, options: { name?: string; dependency: string }): void {
    const name = options.name ?? breaker.name ?? options.dependency;
    const state: CircuitState = breaker.opened ? 'open' : breaker.halfOpen ? 'half_open' : 'closed';
    this.register(name, options.dependency, { state, control: { open: () => breaker.open(), close: () => breaker.close() } });
    breaker.on('open', () => this.report(name, 'open', { failureCount: breaker.stats.failures }));
    breaker.on('halfOpen', () => this.report(name, 'half_open', { failureCount: breaker.stats.failures }));
    breaker.on('close', () => this.report(name, 'closed', { failureCount: 0 }));
  }

  /** Opens or closes a registered breaker through its control; false when it has none. */
  force(name: string, state: 'open' | 'closed'): boolean {
    const control = this.breakers.get(name)?.control;
    if (!control) return false;
    if (state === 'open') control.open();
    else control.close();
    return true;
  }

  status(name: string): CircuitBreakerStatus | undefined {
    const entry = this.breakers.get(name);
    return entry && { name: entry.name, dependency: entry.dependency, state: entry.state, failureCount: entry.failureCount, since: entry.since, controllable: entry.control !== undefined };
  }

  statuses(): CircuitBreakerStatus[] {
    return [...this.breakers.keys()].map((name) => this.status(name)!);
  }
}
