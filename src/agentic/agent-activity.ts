/**
 * What agents inside the app did recently, for the tools that operate the service
 * (get_service_health's AGENTS section, get_incident_context's guardrail trips): per agent, over
 * the last hour, invocations, failures, guardrail trips by guardrail, cost, and the steps of its
 * latest invocations; and the latest guardrail trips with the operation they happened in.
 *
 * Bounded: at most `maxAgents` agents are tracked (later ones are counted as overflow, their
 * guardrails still apply), each in about 5 KB (a 60-minute ring of 6 numbers, the step counts and
 * end times of its last 256 invocations); names are cut at 256 characters; the trip log keeps the
 * latest `maxTrips` trips. Reads compute percentiles; recording is O(1).
 */
import { type Clock, systemClock } from '../analysis/clock.js';
import { TimeRing } from '../analysis/time-ring.js';
import { whenOperationNamed } from '../telemetry/operation-of-trip.js';
import type { Guardrail } from './guardrail-error.js';

export const WINDOW_MINUTES = 60;
export const MAX_AGENTS = 64;
export const MAX_TRIPS = 200;
export const STEP_SAMPLES = 256;
export const MAX_NAME_CHARS = 256;

const MINUTE_MS = 60_000;
const INVOCATIONS = 0;
const FAILURES = 1;
const TRIPS: Readonly<Record<Guardrail, number>> = { max_steps: 2, loop: 3, cost_budget: 4 };
const COST = 5;
const FIELDS = 6;

export const GUARDRAILS: readonly Guardrail[] = ['max_steps', 'loop', 'cost_budget'];

/** A name as svc keeps it: at most 256 characters. */
export function keptName(name: string): string {
  return name.length > MAX_NAME_CHARS ? `${name.slice(0, MAX_NAME_CHARS - 1)}…` : name;
}

/** One agent's recent activity. */
export class AgentStats {
  readonly ring = new TimeRing(MINUTE_MS, WINDOW_MINUTES, FIELDS);
  readonly steps = new Uint32Array(STEP_SAMPLES);
  readonly endedAt = new Float64Array(STEP_SAMPLES);
  next = 0;

  constructor(readonly name: string) {
    this.endedAt.fill(Number.NEGATIVE_INFINITY);
  }
}

export interface GuardrailTrip {
  readonly time: number;
  readonly agent: string;
  readonly guardrail: Guardrail;
  readonly limit: number;
  readonly observed: number;
  readonly invocationId: string;
  readonly tool: string | undefined;
  /** The operation (request or decorated operation) the agent ran in, once svc's span processor has named it. */
  readonly operation: string | undefined;
}

export interface AgentSummary {
  readonly name: string;
  readonly invocations: number;
  readonly failures: number;
  readonly guardrailTrips: number;
  readonly tripsByGuardrail: Readonly<Record<Guardrail, number>>;
  /** Steps per invocation over the latest invocations that ended in the window; undefined without any. */
  readonly stepsP50: number | undefined;
  readonly stepsP99: number | undefined;
  readonly costUsd: number;
}

export interface AgentActivityLimits {
  readonly maxAgents: number;
  readonly maxTrips: number;
}

export class AgentActivity {
  private readonly agents = new Map<string, AgentStats>();
  private overflowCount = 0;
  private readonly trips: { -readonly [K in keyof GuardrailTrip]: GuardrailTrip[K] }[] = [];
  private nextTrip = 0;

  constructor(
    readonly clock: Clock = systemClock,
    readonly limits: AgentActivityLimits = { maxAgents: MAX_AGENTS, maxTrips: MAX_TRIPS },
  ) {}

  /** Agents refused because `maxAgents` were already tracked. */
  get overflow(): number {
    return this.overflowCount;
  }

  get size(): number {
    return this.agents.size;
  }

  /** The stats of an agent, created if there is room; undefined when full. */
  stats(name: string): AgentStats | undefined {
    const key = keptName(name);
    let stats = this.agents.get(key);
    if (stats) return stats;
    if (this.agents.size >= this.limits.maxAgents) {
      this.overflowCount++;
      return undefined;
    }
    stats = new AgentStats(key);
    this.agents.set(key, stats);
    return stats;
  }

  invocationEnded(stats: AgentStats | undefined, steps: number, failed: boolean): void {
    if (!stats) return;
    const now = this.clock.now();
    const slot = stats.ring.add(now, INVOCATIONS);
    if (failed) stats.ring.addTo(slot, FAILURES);
    stats.steps[stats.next] = Math.min(steps, 0xffffffff);
    stats.endedAt[stats.next] = now;
    stats.next = (stats.next + 1) % STEP_SAMPLES;
  }

  costAdded(stats: AgentStats | undefined, usd: number): void {
    if (stats && usd > 0) stats.ring.add(this.clock.now(), COST, usd);
  }

  /**
   * Records a trip. `operationSpan` is the span of the request or operation the agent runs in:
   * the trip takes that operation's name when svc's span processor names it.
   */
  tripped(stats: AgentStats | undefined, trip: Omit<GuardrailTrip, 'time' | 'operation'>, operationSpan: object | undefined): GuardrailTrip {
    const now = this.clock.now();
    stats?.ring.add(now, TRIPS[trip.guardrail]);
    const entry = { ...trip, agent: keptName(trip.agent), tool: trip.tool === undefined ? undefined : keptName(trip.tool), time: now, operation: undefined as string | undefined };
    if (this.trips.length < this.limits.maxTrips) this.trips.push(entry);
    else this.trips[this.nextTrip] = entry;
    this.nextTrip = (this.nextTrip + 1) % this.limits.maxTrips;
    if (operationSpan) whenOperationNamed(operationSpan, (operation) => (entry.operation = keptName(operation)));
    return entry;
  }

  /** Trips of the last hour, newest first; only those in `operation` when given. */
  recentTrips(operation?: string): GuardrailTrip[] {
    const since = this.clock.now() - WINDOW_MINUTES * MINUTE_MS;
    return this.trips.filter((t) => t.time > since && (operation === undefined || t.operation === operation)).sort((a, b) => b.time - a.time);
  }

  /** Every tracked agent with activity in the last hour. */
  summaries(): AgentSummary[] {
    const now = this.clock.now();
    const since = now - WINDOW_MINUTES * MINUTE_MS;
    const out: AgentSummary[] = [];
    for (const stats of this.agents.values()) {
      const total = (field: number) => stats.ring.total(now, field);
      const tripsByGuardrail = { max_steps: total(TRIPS.max_steps), loop: total(TRIPS.loop), cost_budget: total(TRIPS.cost_budget) };
      const guardrailTrips = tripsByGuardrail.max_steps + tripsByGuardrail.loop + tripsByGuardrail.cost_budget;
      const invocations = total(INVOCATIONS);
      const costUsd = total(COST);
      if (invocations === 0 && guardrailTrips === 0 && costUsd === 0) continue;
      const steps: number[] = [];
      for (let i = 0; i < STEP_SAMPLES; i++) if (stats.endedAt[i]! > since) steps.push(stats.steps[i]!);
      steps.sort((a, b) => a - b);
      out.push({
        name: stats.name,
        invocations,
        failures: total(FAILURES),
        guardrailTrips,
        tripsByGuardrail,
        stepsP50: percentile(steps, 0.5),
        stepsP99: percentile(steps, 0.99),
        costUsd,
      });
    }
    return out;
  }
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
