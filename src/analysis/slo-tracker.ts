/**
 * SLO error budgets over the SLO's rolling time window (default 30 days, `slos.<name>.window`), as
 * in the Google SRE workbook: the budget is the bad events the target allows over the window.
 *
 * - Good events: AVAILABILITY counts a request as good when it did not fail; LATENCY_P99 when its
 *   latency is at most the threshold (explicit, else the operation's expected p99).
 * - Events over the window: once the process has watched a whole window, the events in it; before
 *   that, the events expected over the window at the rate observed since the SLO was registered
 *   (events seen x window / time watched, the time at least one second). Allowed bad events =
 *   (1 - target) x those events.
 * - Each bad event spends 1 / (allowed bad events) of the budget, priced when it happens and given
 *   back only when it leaves the window: good traffic never refills the budget, and it never comes
 *   back faster than bad events age out. budgetRemaining = 1 - the spent shares, clamped to 0..1.
 * - Below `minEvents` events in the window (default 100, `slos.<name>.min-events`) the data is
 *   insufficient: compliance is INSUFFICIENT_DATA, no alert fires, and bad events wait unpriced
 *   until the minimum is reached, then are priced at the rate observed by then.
 * - burnRate = (bad / total over the window) / (1 - target): 1.0 spends the budget exactly by the
 *   end of the window.
 * - Multiwindow burn rates: fast burn when both the 1 h and 5 m burn rates exceed 14.4, slow burn
 *   when both the 6 h and 30 m ones exceed 6. Each needs, in its long window, `minEvents` events
 *   and enough that one bad event alone stays under the threshold (167 for a slow burn at 99.9 %).
 * - Compliance: VIOLATED when the budget is spent; AT_RISK when half of it is spent or a fast or
 *   slow burn is on; HEALTHY otherwise.
 * - Alert tiers: INFO at 50 % remaining; WARNING at 25 % or on a slow burn; CRITICAL at 10 % or on
 *   a fast burn (the page: a 100 % outage of a 99.9 % SLO reaches it in 52 s). Each tier fires once
 *   when its condition starts and re-arms when it ends with sufficient data (a burn ends when its
 *   long window falls under half the threshold, so a rate hovering at the threshold alerts once).
 *
 * Counts live in time rings (src/analysis/time-ring.ts) with running totals: 720 buckets over the
 * window, and rings for the 5 m, 30 m, 1 h and 6 h burn windows, so recording, checking the tiers
 * and reading a budget are O(1); an SLO holds about 30 KB whatever its traffic.
 *
 * The rings and the alert arming survive a restart (src/analysis/slo-budget-records.ts): `snapshot`
 * reads them by absolute bucket number, `merge` adds a previous run's into what this run counted.
 */
import { type Clock, systemClock } from './clock.js';
import { TimeRing } from './time-ring.js';

export type SloType = 'AVAILABILITY' | 'LATENCY_P99';
export type SloCompliance = 'HEALTHY' | 'AT_RISK' | 'VIOLATED' | 'INSUFFICIENT_DATA';
export type SloAlertSeverity = 'INFO' | 'WARNING' | 'CRITICAL';
/** What put the SLO in the tier: its budget remaining, or a fast or slow burn. */
export type SloAlertTrigger = 'budget' | 'fast_burn' | 'slow_burn';

export interface SloDefinition {
  readonly name: string;
  readonly operationName: string;
  readonly type: SloType;
  /** Fraction, 0.999 for 99.9 %. */
  readonly target: number;
  /** LATENCY_P99 only. */
  readonly latencyThresholdMs?: number;
  readonly windowMs?: number;
  /** Events in the window below which the data is insufficient (default 100). */
  readonly minEvents?: number;
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
  /** Events needed in the window for a verdict. */
  readonly minEvents: number;
  /** Time the SLO has been watched, up to the window. */
  readonly observedMs: number;
  /** Events over the window the budget is taken of: counted, or expected at the observed rate. */
  readonly windowEvents: number;
}

export interface SloAlert {
  readonly sloName: string;
  readonly severity: SloAlertSeverity;
  /** The budget threshold of the tier: 0.5, 0.25 or 0.1 of the budget remaining. */
  readonly threshold: number;
  readonly trigger: SloAlertTrigger;
  readonly budgetRemaining: number;
  /** Over the window for a budget trigger; over the 1 h (fast) or 6 h (slow) window for a burn. */
  readonly burnRate: number;
}

/** An SLO's event counts, as a replica publishes them to its fleet: counts add up across replicas. */
export interface SloCounts {
  /** Events and bad events in the window. */
  readonly total: number;
  readonly bad: number;
  /** Events over the window the budget is taken of (counted, or expected at the observed rate). */
  readonly windowEvents: number;
  readonly observedMs: number;
  /** [events, bad events] in the 5 m, 30 m, 1 h and 6 h burn windows. */
  readonly burn: {
    readonly fiveMinutes: readonly [number, number];
    readonly thirtyMinutes: readonly [number, number];
    readonly oneHour: readonly [number, number];
    readonly sixHours: readonly [number, number];
  };
}

/**
 * An SLO's state as a previous run left it: per ring (the window's, then the 5 m, 30 m, 1 h and 6 h
 * burn rings, sloRings), the buckets holding events as rows of [bucket number, ...the ring's
 * fields], and the alert tiers' and burns' arming.
 */
export interface SloSnapshot {
  /** When the SLO was first watched, epoch ms. */
  readonly startedAt: number;
  /** Per tier (INFO, WARNING, CRITICAL): it alerted and waits for its condition to end. */
  readonly fired: readonly boolean[];
  /** Per burn (fast, slow): on, until its long window falls under half the threshold. */
  readonly burning: readonly boolean[];
  readonly rings: readonly (readonly (readonly number[])[])[];
}

export interface RingShape {
  readonly bucketMs: number;
  readonly size: number;
  /** Numbers per bucket: events and bad events; the window's also budget spent and bad events priced. */
  readonly fields: number;
}

/** An SLO's rings: its window's, then the 5 m, 30 m, 1 h and 6 h burn windows'. */
export function sloRings(windowMs: number): readonly RingShape[] {
  return [
    { bucketMs: Math.ceil(windowMs / WINDOW_BUCKETS), size: WINDOW_BUCKETS, fields: 4 },
    { bucketMs: 5 * SECOND, size: 60, fields: 2 },
    { bucketMs: 30 * SECOND, size: 60, fields: 2 },
    { bucketMs: MINUTE, size: 60, fields: 2 },
    { bucketMs: 5 * MINUTE, size: 72, fields: 2 },
  ];
}

export const DEFAULT_SLO_WINDOW_MS = 30 * 24 * 60 * 60_000;
export const DEFAULT_SLO_MIN_EVENTS = 100;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const WINDOW_BUCKETS = 720;
const TIERS: readonly { threshold: number; severity: SloAlertSeverity }[] = [
  { threshold: 0.5, severity: 'INFO' },
  { threshold: 0.25, severity: 'WARNING' },
  { threshold: 0.1, severity: 'CRITICAL' },
];
const FAST_BURN = 14.4;
const SLOW_BURN = 6;
/** Window ring fields. */
const TOTAL = 0;
const BAD = 1;
/** Budget spent by the bucket's bad events (shares of the allowed bad events). */
const SPENT = 2;
/** Bad events of the bucket already priced. */
const PRICED = 3;

/** 1 - target without binary noise (1 - 0.99 is 0.010000000000000009). */
function allowedBadFraction(target: number): number {
  return Math.round((1 - target) * 1e12) / 1e12;
}

/** Rates rounded to 12 digits, so a budget spent exactly to a tier reads as that tier. */
function roundRate(rate: number): number {
  return Math.round(rate * 1e12) / 1e12;
}

function burnOf(ring: TimeRing, now: number, allowed: number): number {
  const total = ring.total(now, TOTAL);
  return total === 0 ? 0 : roundRate(ring.total(now, BAD) / total / allowed);
}

const NO_ALERTS: readonly SloAlert[] = Object.freeze([]);

class TrackedSlo {
  readonly window: TimeRing;
  readonly fiveMinutes: TimeRing;
  readonly thirtyMinutes: TimeRing;
  readonly oneHour: TimeRing;
  readonly sixHours: TimeRing;
  private readonly burnRings: readonly TimeRing[];
  readonly allowed: number;
  /** Per tier: it alerted and waits for its condition to end before alerting again. */
  readonly fired: boolean[] = TIERS.map(() => false);
  /** Per burn (fast, slow): the alert saw it start and waits for its long window to fall under half the threshold. */
  private readonly burning = [false, false];
  /** The window holds `minEvents` events: bad events are priced as they come. */
  sufficient = false;
  /** Counted since the last checkpoint took it. */
  changed = false;

  constructor(
    readonly definition: SloDefinition & { windowMs: number; minEvents: number },
    public startedAt: number,
  ) {
    [this.window, this.fiveMinutes, this.thirtyMinutes, this.oneHour, this.sixHours] = sloRings(definition.windowMs).map((r) => new TimeRing(r.bucketMs, r.size, r.fields)) as [
      TimeRing,
      TimeRing,
      TimeRing,
      TimeRing,
      TimeRing,
    ];
    this.burnRings = [this.fiveMinutes, this.thirtyMinutes, this.oneHour, this.sixHours];
    this.allowed = allowedBadFraction(definition.target);
  }

  record(now: number, isBad: boolean): void {
    this.changed = true;
    const slot = this.window.add(now, TOTAL);
    for (const ring of this.burnRings) {
      const s = ring.add(now, TOTAL);
      if (isBad) ring.addTo(s, BAD);
    }
    if (isBad) this.window.addTo(slot, BAD);
    // The event that makes the window sufficient is priced with the waiting ones, not twice.
    const priced = this.sufficient;
    if (!this.refresh(now) || !priced) return;
    if (isBad) {
      this.window.addTo(slot, SPENT, 1 / this.allowedBadEvents(now));
      this.window.addTo(slot, PRICED);
    }
  }

  /** Whether the window holds enough events; prices the waiting bad events when it comes to. */
  refresh(now: number): boolean {
    const enough = this.window.total(now, TOTAL) >= this.definition.minEvents;
    if (enough && !this.sufficient) this.priceWaiting(now);
    return (this.sufficient = enough);
  }

  /** Events over the window: counted once a whole window was watched, else expected at the observed rate. */
  windowEvents(now: number): number {
    const watched = Math.min(this.definition.windowMs, Math.max(SECOND, now - this.startedAt));
    return (this.window.total(now, TOTAL) * this.definition.windowMs) / watched;
  }

  allowedBadEvents(now: number): number {
    return this.allowed * this.windowEvents(now);
  }

  budgetRemaining(now: number): number {
    return Math.min(1, Math.max(0, roundRate(1 - this.window.total(now, SPENT))));
  }

  burnRate(now: number): number {
    return burnOf(this.window, now, this.allowed);
  }

  /** The budget remaining after each of the window's buckets, oldest first: its burn-down over the window. */
  budgetCurve(now: number): { start: number; budgetRemaining: number }[] {
    let spent = 0;
    return this.window.buckets(now, WINDOW_BUCKETS).map(({ start, slot }) => {
      spent += this.window.get(slot, SPENT);
      return { start, budgetRemaining: Math.min(1, Math.max(0, roundRate(1 - spent))) };
    });
  }

  fastBurnRate(now: number): number | undefined {
    if (this.oneHour.total(now, TOTAL) < this.minBurnEvents(FAST_BURN)) return undefined;
    const oneHour = burnOf(this.oneHour, now, this.allowed);
    return oneHour > FAST_BURN && burnOf(this.fiveMinutes, now, this.allowed) > FAST_BURN ? oneHour : undefined;
  }

  slowBurnRate(now: number): number | undefined {
    if (this.sixHours.total(now, TOTAL) < this.minBurnEvents(SLOW_BURN)) return undefined;
    const sixHours = burnOf(this.sixHours, now, this.allowed);
    return sixHours > SLOW_BURN && burnOf(this.thirtyMinutes, now, this.allowed) > SLOW_BURN ? sixHours : undefined;
  }

  /**
   * A burn for the alert tiers: on when `rate` (the burn, if on) is defined, off again only when
   * the long window's burn falls under half the threshold, so a rate hovering at the threshold
   * alerts once. Returns the long window's burn while on.
   */
  latchBurn(which: 0 | 1, rate: number | undefined, long: TimeRing, threshold: number, now: number): number | undefined {
    if (rate !== undefined) this.burning[which] = true;
    else if (this.burning[which] && burnOf(long, now, this.allowed) < threshold / 2) this.burning[which] = false;
    return this.burning[which] ? (rate ?? burnOf(long, now, this.allowed)) : undefined;
  }

  /**
   * Events a burn's long window needs: `minEvents`, and enough that one bad event alone stays under
   * the threshold (1 / (threshold x (1 - target)): 70 for a fast and 167 for a slow burn at 99.9 %).
   */
  private minBurnEvents(threshold: number): number {
    return Math.max(this.definition.minEvents, Math.floor(1 / (threshold * this.allowed)) + 1);
  }

  snapshot(now: number): SloSnapshot {
    const rings = [this.window, ...this.burnRings].map((ring) => {
      const rows: number[][] = [];
      for (const { start, slot } of ring.buckets(now, ring.size)) {
        if (ring.get(slot, TOTAL) === 0) continue;
        const row = [start / ring.bucketMs];
        for (let field = 0; field < ring.fields; field++) row.push(ring.get(slot, field));
        rows.push(row);
      }
      return rows;
    });
    return { startedAt: this.startedAt, fired: [...this.fired], burning: [...this.burning], rings };
  }

  /**
   * Adds a previous run's counts by bucket (buckets that left a ring are dropped) and its arming;
   * the earlier first watch stays. False, changing nothing, when none of its buckets is still kept.
   * Bad events it left unpriced are priced at today's allowance once the window holds enough.
   */
  merge(now: number, snapshot: SloSnapshot): boolean {
    const rings = [this.window, ...this.burnRings];
    const kept = rings.map((ring, r) => {
      ring.slotAt(now);
      return (snapshot.rings[r] ?? []).filter((row) => row[0]! > ring.newestBucket - ring.size);
    });
    if (kept.every((rows) => rows.length === 0)) return false;
    rings.forEach((ring, r) => {
      for (const row of kept[r]!) {
        const slot = ring.addAt(now, row[0]!, 0, row[1]!);
        for (let field = 1; field < ring.fields; field++) ring.addTo(slot, field, row[field + 1]!);
      }
    });
    this.startedAt = Math.min(this.startedAt, snapshot.startedAt);
    for (let i = 0; i < this.fired.length; i++) this.fired[i] ||= snapshot.fired[i] === true;
    for (let i = 0; i < this.burning.length; i++) this.burning[i] ||= snapshot.burning[i] === true;
    this.changed = true;
    this.sufficient = false;
    this.refresh(now);
    return true;
  }

  /** Prices, at today's allowance, the bad events recorded while the data was insufficient. */
  private priceWaiting(now: number): void {
    const price = 1 / this.allowedBadEvents(now);
    for (const { slot } of this.window.buckets(now, WINDOW_BUCKETS)) {
      const waiting = this.window.get(slot, BAD) - this.window.get(slot, PRICED);
      if (waiting <= 0) continue;
      this.window.addTo(slot, SPENT, waiting * price);
      this.window.addTo(slot, PRICED, waiting);
    }
  }
}

export class SloTracker {
  private readonly slos = new Map<string, TrackedSlo>();
  private readonly byOperation = new Map<string, TrackedSlo[]>();
  private readonly pending: SloAlert[] = [];

  constructor(private readonly clock: Clock = systemClock) {}

  register(definition: SloDefinition): void {
    if (!(definition.target > 0 && definition.target < 1)) throw new RangeError(`SLO ${definition.name}: target must be a fraction between 0 and 1 (exclusive), got ${definition.target}`);
    if (definition.type === 'LATENCY_P99' && !(definition.latencyThresholdMs! > 0))
      throw new RangeError(`SLO ${definition.name}: LATENCY_P99 needs a latency threshold (latency-threshold or the operation's expected-latency-p99)`);
    if (definition.minEvents !== undefined && !(Number.isInteger(definition.minEvents) && definition.minEvents >= 1))
      throw new RangeError(`SLO ${definition.name}: minEvents must be a whole number of at least 1, got ${definition.minEvents}`);
    const windowMs = definition.windowMs ?? DEFAULT_SLO_WINDOW_MS;
    const tracked = new TrackedSlo({ ...definition, windowMs, minEvents: definition.minEvents ?? DEFAULT_SLO_MIN_EVENTS }, this.clock.now());
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
      this.checkTiers(slo, now);
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
    const now = this.clock.now();
    return { target: slo.definition.target, budgetRemaining: slo.budgetRemaining(now), burnRate: slo.burnRate(now) };
  }

  /**
   * The SLO's budget remaining over its window, oldest first, at `points` times evenly apart (the
   * window's 720 buckets taken every so many): it ends at the budget remaining now.
   */
  budgetCurve(name: string, points: number): { start: number; budgetRemaining: number }[] {
    const curve = this.slos.get(name)?.budgetCurve(this.clock.now()) ?? [];
    const step = Math.max(1, Math.ceil(curve.length / points));
    return curve.filter((_, i) => (curve.length - 1 - i) % step === 0);
  }

  statuses(): SloStatus[] {
    return [...this.slos.values()].map((s) => this.statusOf(s));
  }

  /** The SLO's counts, which add up across the replicas of a fleet. */
  countsOf(name: string): SloCounts | undefined {
    const slo = this.slos.get(name);
    if (!slo) return undefined;
    const now = this.clock.now();
    const pair = (ring: TimeRing): [number, number] => [ring.total(now, TOTAL), ring.total(now, BAD)];
    return {
      total: slo.window.total(now, TOTAL),
      bad: slo.window.total(now, BAD),
      windowEvents: slo.windowEvents(now),
      observedMs: Math.min(slo.definition.windowMs, now - slo.startedAt),
      burn: { fiveMinutes: pair(slo.fiveMinutes), thirtyMinutes: pair(slo.thirtyMinutes), oneHour: pair(slo.oneHour), sixHours: pair(slo.sixHours) },
    };
  }

  /** The SLOs that counted since the last call: what a checkpoint writes. */
  takeChanged(): string[] {
    const changed: string[] = [];
    for (const [name, slo] of this.slos) {
      if (!slo.changed) continue;
      slo.changed = false;
      changed.push(name);
    }
    return changed;
  }

  /** The SLO's rings and alert arming by absolute bucket, for keeping them across a restart. */
  snapshot(name: string): SloSnapshot | undefined {
    return this.slos.get(name)?.snapshot(this.clock.now());
  }

  /** Adds a previous run's state of the SLO to what this run counted; false when nothing of it is still within the rings. */
  merge(name: string, snapshot: SloSnapshot): boolean {
    return this.slos.get(name)?.merge(this.clock.now(), snapshot) ?? false;
  }

  /** Alerts raised since the last call (each tier once per crossing). */
  checkAlerts(): readonly SloAlert[] {
    const now = this.clock.now();
    for (const slo of this.slos.values()) this.checkTiers(slo, now);
    return this.pending.length ? this.pending.splice(0) : NO_ALERTS;
  }

  /** O(1): runs after every span of the SLO's operation. Nothing fires or re-arms on insufficient data. */
  private checkTiers(slo: TrackedSlo, now: number): void {
    if (!slo.refresh(now)) return;
    const budgetRemaining = slo.budgetRemaining(now);
    const fast = slo.latchBurn(0, slo.fastBurnRate(now), slo.oneHour, FAST_BURN, now);
    const slow = slo.latchBurn(1, slo.slowBurnRate(now), slo.sixHours, SLOW_BURN, now);
    for (let i = 0; i < TIERS.length; i++) {
      const tier = TIERS[i]!;
      const burn = tier.severity === 'CRITICAL' ? fast : tier.severity === 'WARNING' ? slow : undefined;
      const byBudget = budgetRemaining <= tier.threshold;
      if (!byBudget && burn === undefined) slo.fired[i] = false;
      else if (!slo.fired[i]) {
        slo.fired[i] = true;
        const trigger: SloAlertTrigger = byBudget ? 'budget' : tier.severity === 'CRITICAL' ? 'fast_burn' : 'slow_burn';
        const burnRate = byBudget ? slo.burnRate(now) : burn!;
        this.pending.push({ sloName: slo.definition.name, severity: tier.severity, threshold: tier.threshold, trigger, budgetRemaining, burnRate });
      }
    }
  }

  private statusOf(slo: TrackedSlo): SloStatus {
    const now = this.clock.now();
    const { definition } = slo;
    const sufficient = slo.refresh(now);
    const burnRates = {
      oneHour: burnOf(slo.oneHour, now, slo.allowed),
      fiveMinutes: burnOf(slo.fiveMinutes, now, slo.allowed),
      sixHours: burnOf(slo.sixHours, now, slo.allowed),
      thirtyMinutes: burnOf(slo.thirtyMinutes, now, slo.allowed),
    };
    const fastBurn = sufficient && slo.fastBurnRate(now) !== undefined;
    const slowBurn = sufficient && slo.slowBurnRate(now) !== undefined;
    const budgetRemaining = slo.budgetRemaining(now);
    const total = slo.window.total(now, TOTAL);
    const bad = slo.window.total(now, BAD);
    const compliance = complianceOf(sufficient, budgetRemaining, fastBurn || slowBurn);
    return {
      name: definition.name,
      operationName: definition.operationName,
      type: definition.type,
      target: definition.target,
      actual: total === 0 ? 1 : (total - bad) / total,
      budgetRemaining,
      burnRate: slo.burnRate(now),
      compliance,
      totalRequests: total,
      failedRequests: bad,
      windowMs: definition.windowMs,
      latencyThresholdMs: definition.latencyThresholdMs,
      burnRates,
      fastBurn,
      slowBurn,
      minEvents: definition.minEvents,
      observedMs: Math.min(definition.windowMs, now - slo.startedAt),
      windowEvents: slo.windowEvents(now),
    };
  }
}

/** Too few events say nothing; a spent budget is violated; half spent, or burning fast or slowly, is at risk. */
function complianceOf(sufficient: boolean, budgetRemaining: number, burning: boolean): SloCompliance {
  if (!sufficient) return 'INSUFFICIENT_DATA';
  return budgetRemaining <= 0 ? 'VIOLATED' : budgetRemaining <= 0.5 || burning ? 'AT_RISK' : 'HEALTHY';
}

const burnOfCounts = ([total, bad]: readonly [number, number], allowed: number): number => (total === 0 ? 0 : roundRate(bad / total / allowed));

/**
 * The status of an SLO from counts summed over the replicas of a fleet, by the same rules as one
 * process's, except the budget: bad events over the allowed bad events of the summed window
 * events (1 - bad / ((1 - target) x events)), as the counts carry no time of pricing.
 */
export function sloStatusFromCounts(definition: SloDefinition, counts: SloCounts): SloStatus {
  const windowMs = definition.windowMs ?? DEFAULT_SLO_WINDOW_MS;
  const minEvents = definition.minEvents ?? DEFAULT_SLO_MIN_EVENTS;
  const allowed = allowedBadFraction(definition.target);
  const sufficient = counts.total >= minEvents;
  const minBurn = (threshold: number) => Math.max(minEvents, Math.floor(1 / (threshold * allowed)) + 1);
  const burnRates = {
    oneHour: burnOfCounts(counts.burn.oneHour, allowed),
    fiveMinutes: burnOfCounts(counts.burn.fiveMinutes, allowed),
    sixHours: burnOfCounts(counts.burn.sixHours, allowed),
    thirtyMinutes: burnOfCounts(counts.burn.thirtyMinutes, allowed),
  };
  const fastBurn = sufficient && counts.burn.oneHour[0] >= minBurn(FAST_BURN) && burnRates.oneHour > FAST_BURN && burnRates.fiveMinutes > FAST_BURN;
  const slowBurn = sufficient && counts.burn.sixHours[0] >= minBurn(SLOW_BURN) && burnRates.sixHours > SLOW_BURN && burnRates.thirtyMinutes > SLOW_BURN;
  const allowedBad = allowed * counts.windowEvents;
  const budgetRemaining = !sufficient || allowedBad <= 0 ? 1 : Math.min(1, Math.max(0, roundRate(1 - counts.bad / allowedBad)));
  const compliance = complianceOf(sufficient, budgetRemaining, fastBurn || slowBurn);
  return {
    name: definition.name,
    operationName: definition.operationName,
    type: definition.type,
    target: definition.target,
    actual: counts.total === 0 ? 1 : (counts.total - counts.bad) / counts.total,
    budgetRemaining,
    burnRate: burnOfCounts([counts.total, counts.bad], allowed),
    compliance,
    totalRequests: counts.total,
    failedRequests: counts.bad,
    windowMs,
    latencyThresholdMs: definition.latencyThresholdMs,
    burnRates,
    fastBurn,
    slowBurn,
    minEvents,
    observedMs: counts.observedMs,
    windowEvents: counts.windowEvents,
  };
}
