/**
 * SLO error budgets over a rolling time window (default 30 days, `slos.<name>.window`).
 *
 * - Good events: AVAILABILITY counts a request as good when it did not fail; LATENCY_P99 when its
 *   latency is at most the threshold (explicit, else the operation's expected p99).
 * - actual = good / total over the window; the budget is the allowed bad fraction (1 - target);
 *   budgetRemaining = 1 - bad / (budget x total), clamped to 0..1; burnRate = (bad / total) / budget,
 *   so 1.0 spends the budget exactly by the end of the window.
 * - Multiwindow burn rates (Google SRE workbook): fast burn when both the 1 h and 5 m burn rates
 *   exceed 14.4, slow burn when both the 6 h and 30 m ones exceed 6.
 * - Compliance: VIOLATED when the budget is spent; AT_RISK when half of it is spent or a fast or
 *   slow burn is on; HEALTHY otherwise.
 * - Alerts fire once per crossing of 50 / 25 / 10 % remaining (INFO / WARNING / CRITICAL), and a
 *   tier is re-armed when the budget recovers above it.
 *
 * Counts live in one-minute buckets for the last 6 hours and one-hour buckets for the window,
 * with running totals, so recording and reading a status are O(1) amortised.
 */
import { systemClock, type Clock } from './clock.js';

export type SloType = 'AVAILABILITY' | 'LATENCY_P99';
export type SloCompliance = 'HEALTHY' | 'AT_RISK' | 'VIOLATED';
export type SloAlertSeverity = 'INFO' | 'WARNING' | 'CRITICAL';

export interface SloDefinition {
  readonly name: string;
  readonly operationName: string;
  readonly type: SloType;
  /** Fraction, 0.999 for 99.9 %. */
  readonly target: number;
  /** LATENCY_P99 only. */
  readonly latencyThresholdMs?: number;
  readonly windowMs?: number;
}

export interface BurnRates {
  readonly oneHour: number;
  readonly fiveMinutes: number;
  readonly sixHours: number;
  readonly thirtyMinutes: number;
}

export interface SloStatus {
  readonly name: string;
  readonly operationName: string;
  readonly type: SloType;
  readonly target: number;
  readonly actual: number;
  readonly budgetRemaining: number;
  readonly burnRate: number;
  readonly compliance: SloCompliance;
  readonly totalRequests: number;
  readonly failedRequests: number;
  readonly windowMs: number;
  readonly latencyThresholdMs: number | undefined;
  readonly burnRates: BurnRates;
  readonly fastBurn: boolean;
  readonly slowBurn: boolean;
}

export interface SloAlert {
  readonly sloName: string;
  readonly severity: SloAlertSeverity;
  /** The tier crossed: 0.5, 0.25 or 0.1 of the budget remaining. */
  readonly threshold: number;
  readonly budgetRemaining: number;
  readonly burnRate: number;
}

export const DEFAULT_SLO_WINDOW_MS = 30 * 24 * 60 * 60_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const SHORT_HISTORY_MINUTES = 6 * 60;
const TIERS: readonly { threshold: number; severity: SloAlertSeverity }[] = [
  { threshold: 0.5, severity: 'INFO' },
  { threshold: 0.25, severity: 'WARNING' },
  { threshold: 0.1, severity: 'CRITICAL' },
];
const FAST_BURN = 14.4;
const SLOW_BURN = 6;

/** 1 - target without binary noise (1 - 0.99 is 0.010000000000000009). */
function allowedBadFraction(target: number): number {
  return Math.round((1 - target) * 1e12) / 1e12;
}

/** Rates rounded to 12 digits, so a budget spent exactly to a tier reads as that tier. */
function roundRate(rate: number): number {
  return Math.round(rate * 1e12) / 1e12;
}

function burnRateOf(slo: TrackedSlo): number {
  const { total, bad } = slo.window;
  return total === 0 ? 0 : roundRate(bad / total / allowedBadFraction(slo.definition.target));
}

function budgetRemainingAt(burnRate: number): number {
  return Math.min(1, Math.max(0, roundRate(1 - burnRate)));
}

const NO_ALERTS: readonly SloAlert[] = Object.freeze([]);

/** Good/bad counts in a ring of fixed-width time buckets, with running totals. */
class TimeBuckets {
  private readonly totals: Float64Array;
  private readonly bads: Float64Array;
  private current = -1;
  total = 0;
  bad = 0;
  /** Counts every add and every move of the ring, so readers can tell whether the totals changed. */
  changes = 0;

  constructor(
    private readonly bucketMs: number,
    private readonly count: number,
  ) {
    this.totals = new Float64Array(count);
    this.bads = new Float64Array(count);
  }

  add(now: number, isBad: boolean): void {
    this.advance(now);
    const i = this.current % this.count;
    this.totals[i]!++;
    this.total++;
    this.changes++;
    if (isBad) {
      this.bads[i]!++;
      this.bad++;
    }
  }

  /** Moves to the bucket of `now`, dropping the buckets that left the ring. */
  advance(now: number): void {
    const bucket = Math.floor(now / this.bucketMs);
    if (this.current >= 0 && bucket <= this.current) return;
    if (this.current < 0) this.current = bucket;
    for (let b = this.current + 1; b <= bucket && b - this.current <= this.count; b++) {
      const i = b % this.count;
      this.total -= this.totals[i]!;
      this.bad -= this.bads[i]!;
      this.totals[i] = 0;
      this.bads[i] = 0;
    }
    this.current = bucket;
    this.changes++;
  }

  /** Totals over the last `buckets` buckets (including the current one). */
  last(now: number, buckets: number): { total: number; bad: number } {
    this.advance(now);
    let total = 0;
    let bad = 0;
    for (let back = 0; back < Math.min(buckets, this.count); back++) {
      const i = (this.current - back) % this.count;
      total += this.totals[i]!;
      bad += this.bads[i]!;
    }
    return { total, bad };
  }
}

class TrackedSlo {
  readonly minutes = new TimeBuckets(MINUTE, SHORT_HISTORY_MINUTES);
  readonly window: TimeBuckets;
  /** Per tier: it alerted and waits for recovery before alerting again. */
  readonly fired: boolean[] = TIERS.map(() => false);
  /** `window.changes` when the tiers were last checked. */
  checkedAt = -1;

  constructor(readonly definition: SloDefinition & { windowMs: number }) {
    this.window = new TimeBuckets(HOUR, Math.max(1, Math.ceil(definition.windowMs / HOUR)));
  }

  record(now: number, isBad: boolean): void {
    this.minutes.add(now, isBad);
    this.window.add(now, isBad);
  }
}

export class SloTracker {
  private readonly slos = new Map<string, TrackedSlo>();
  private readonly byOperation = new Map<string, TrackedSlo[]>();
  private readonly pending: SloAlert[] = [];

  constructor(private readonly clock: Clock = systemClock) {}

  register(definition: SloDefinition): void {
    if (!(definition.target > 0 && definition.target < 1)) throw new RangeError(`SLO ${definition.name}: target must be a fraction between 0 and 1 (exclusive), got ${definition.target}`);
    if (definition.type === 'LATENCY_P99' && !(definition.latencyThresholdMs! > 0)) throw new RangeError(`SLO ${definition.name}: LATENCY_P99 needs a latency threshold (latency-threshold or the operation's expected-latency-p99)`);
    const tracked = new TrackedSlo({ ...definition, windowMs: definition.windowMs ?? DEFAULT_SLO_WINDOW_MS });
    this.slos.set(definition.name, tracked);
    const list = this.byOperation.get(definition.operationName) ?? [];
    list.push(tracked);
    this.byOperation.set(definition.operationName, list);
  }

  definitions(): SloDefinition[] {
    return [...this.slos.values()].map((s) => s.definition);
  }

  hasSlo(operation: string): boolean {
    return this.byOperation.has(operation);
  }

  recordSuccess(operation: string): void {
    this.recordEvent(operation, false, undefined);
  }

  recordFailure(operation: string): void {
    this.recordEvent(operation, true, undefined);
  }

  /**
   * Records a request of `operation` against each of its SLOs, judged by the SLO's type; returns
   * the name of the first SLO the request counted against (spent budget of), if any.
   */
  record(operation: string, latencyMs: number, isError: boolean): string | undefined {
    return this.recordEvent(operation, isError, latencyMs);
  }

  private recordEvent(operation: string, isError: boolean, latencyMs: number | undefined): string | undefined {
    const list = this.byOperation.get(operation);
    if (!list) return undefined;
    const now = this.clock.now();
    let spent: string | undefined;
    for (const slo of list) {
      const { type, latencyThresholdMs } = slo.definition;
      const bad = type === 'LATENCY_P99' && latencyMs !== undefined ? latencyMs > latencyThresholdMs! : isError;
      slo.record(now, bad);
      if (bad) spent ??= slo.definition.name;
      this.checkTiers(slo);
    }
    return spent;
  }

  getStatus(name: string): SloStatus | undefined {
    const slo = this.slos.get(name);
    return slo && this.statusOf(slo);
  }

  /** Budget and burn only, O(1): what every span of the operation carries. */
  budgetOf(name: string): { target: number; budgetRemaining: number; burnRate: number } | undefined {
    const slo = this.slos.get(name);
    if (!slo) return undefined;
    slo.window.advance(this.clock.now());
    return { target: slo.definition.target, ...this.budgetAndBurn(slo) };
  }

  statuses(): SloStatus[] {
    return [...this.slos.values()].map((s) => this.statusOf(s));
  }

  /** Alerts raised since the last call (each tier once per crossing). */
  checkAlerts(): readonly SloAlert[] {
    for (const slo of this.slos.values()) this.checkTiers(slo);
    return this.pending.length ? this.pending.splice(0) : NO_ALERTS;
  }

  private budgetAndBurn(slo: TrackedSlo): { budgetRemaining: number; burnRate: number } {
    const burnRate = burnRateOf(slo);
    return { budgetRemaining: budgetRemainingAt(burnRate), burnRate };
  }

  /** Runs after every span, so it does nothing unless the window's totals changed. */
  private checkTiers(slo: TrackedSlo): void {
    slo.window.advance(this.clock.now());
    if (slo.window.changes === slo.checkedAt) return;
    slo.checkedAt = slo.window.changes;
    const burnRate = burnRateOf(slo);
    const budgetRemaining = budgetRemainingAt(burnRate);
    for (let i = 0; i < TIERS.length; i++) {
      const tier = TIERS[i]!;
      if (budgetRemaining > tier.threshold) slo.fired[i] = false;
      else if (!slo.fired[i]) {
        slo.fired[i] = true;
        this.pending.push({ sloName: slo.definition.name, severity: tier.severity, threshold: tier.threshold, budgetRemaining, burnRate });
      }
    }
  }

  private statusOf(slo: TrackedSlo): SloStatus {
    const now = this.clock.now();
    slo.window.advance(now);
    const { definition } = slo;
    const allowed = allowedBadFraction(definition.target);
    const burn = (minutes: number): number => {
      const { total, bad } = slo.minutes.last(now, minutes);
      return total === 0 ? 0 : roundRate(bad / total / allowed);
    };
    const burnRates = { oneHour: burn(60), fiveMinutes: burn(5), sixHours: burn(360), thirtyMinutes: burn(30) };
    const fastBurn = burnRates.oneHour > FAST_BURN && burnRates.fiveMinutes > FAST_BURN;
    const slowBurn = burnRates.sixHours > SLOW_BURN && burnRates.thirtyMinutes > SLOW_BURN;
    const { budgetRemaining, burnRate } = this.budgetAndBurn(slo);
    const { total, bad } = slo.window;
    const compliance: SloCompliance = total > 0 && budgetRemaining <= 0 ? 'VIOLATED' : budgetRemaining <= 0.5 || fastBurn || slowBurn ? 'AT_RISK' : 'HEALTHY';
    return {
      name: definition.name,
      operationName: definition.operationName,
      type: definition.type,
      target: definition.target,
      actual: total === 0 ? 1 : (total - bad) / total,
      budgetRemaining,
      burnRate,
      compliance,
      totalRequests: total,
      failedRequests: bad,
      windowMs: definition.windowMs,
      latencyThresholdMs: definition.latencyThresholdMs,
      burnRates,
      fastBurn,
      slowBurn,
    };
  }
}
