/**
 * The fleet's per-minute history of each operation, for get_trend_analysis: each replica's minutes
 * summed, histograms included. A replica writes its current minute at every publish and each
 * minute once more after it closes; a closed minute is read once and added to the fleet's sums
 * ("folded"), the current one is kept per replica and replaced at every read. A replica that
 * leaves has its last current minute folded as it was.
 *
 * Bounded like a replica's own history: operations up to `maxOperations`, minutes up to
 * `historyMinutes` and the current one, 75 buckets each.
 */
import { HISTOGRAM_BUCKETS, histogramPercentile } from '../analysis/latency-histogram.js';
import type { MinuteStats } from '../analysis/minute-history.js';
import { addHistogram, type OperationCounts, type ReplicaMinute } from './replica-summary.js';

const MINUTE_MS = 60_000;

interface Cell {
  count: number;
  errors: number;
  readonly histogram: Uint32Array;
}

/** What get_trend_analysis reads of an operation's history: the fleet's, or one process's MinuteHistory. */
export interface OperationHistory {
  series(now: number, count: number): MinuteStats[];
  observedMs(start: number, now: number): number;
}

export class FleetHistory {
  /** Operation → minute start → the folded minutes of every replica. */
  private readonly closed = new Map<string, Map<number, Cell>>();
  /** Replica → minutes folded, and its current minute as last read. */
  private readonly replicas = new Map<string, { readonly folded: Set<number>; open?: { minute: number; data: ReplicaMinute } }>();
  /** The first request of an operation in any replica. */
  private readonly firstAt = new Map<string, number>();
  /** Operations left out beyond `maxOperations`. */
  overflow = 0;
  /** The oldest minute kept at the last prune. */
  private prunedTo = Number.NaN;

  constructor(
    private readonly historyMinutes: number,
    private readonly maxOperations: number,
  ) {}

  /**
   * Whether `minute` is a minute start this history holds at `now` (this replica's clock): within
   * the history, or up to one minute ahead for a replica whose clock runs a little fast. A far-off
   * clock or a rogue writer would otherwise add minutes that no prune removes.
   */
  keeps(minute: number, now: number): boolean {
    const current = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    return minute % MINUTE_MS === 0 && minute >= current - this.historyMinutes * MINUTE_MS && minute <= current + MINUTE_MS;
  }

  /** Closed minutes of `replica` still to be read (among those it published and this history keeps at `now`), oldest first. */
  wanted(replica: string, published: readonly number[], currentMinute: number, now: number): number[] {
    const folded = this.replicas.get(replica)?.folded;
    return published.filter((m) => m < currentMinute && this.keeps(m, now) && !folded?.has(m));
  }

  /** A closed minute of `replica`, added once. */
  fold(replica: string, minute: number, data: ReplicaMinute): void {
    const state = this.stateOf(replica);
    if (state.folded.has(minute)) return;
    state.folded.add(minute);
    if (state.open?.minute === minute) state.open = undefined;
    for (const [operation, counts] of data) this.add(operation, minute, counts);
  }

  /** `replica`'s current minute as just read; an earlier current minute it replaces was folded by now or is folded here. */
  setOpen(replica: string, minute: number, data: ReplicaMinute): void {
    const state = this.stateOf(replica);
    if (state.open && state.open.minute < minute && !state.folded.has(state.open.minute)) this.fold(replica, state.open.minute, state.open.data);
    state.open = { minute, data };
  }

  noteFirst(operation: string, at: number): void {
    const known = this.firstAt.get(operation);
    if (known === undefined || at < known) this.firstAt.set(operation, at);
  }

  /** A replica left the fleet: what it served in its last minute stays, as last read. */
  leave(replica: string): void {
    const state = this.replicas.get(replica);
    if (state?.open && !state.folded.has(state.open.minute)) this.fold(replica, state.open.minute, state.open.data);
    this.replicas.delete(replica);
  }

  /** Drops minutes that left the history at `now`, once per minute (one folded older meanwhile goes at the next). */
  prune(now: number): void {
    const oldest = Math.floor(now / MINUTE_MS) * MINUTE_MS - this.historyMinutes * MINUTE_MS;
    if (oldest === this.prunedTo) return;
    this.prunedTo = oldest;
    for (const [operation, minutes] of this.closed) {
      for (const minute of minutes.keys()) if (minute < oldest) minutes.delete(minute);
      if (minutes.size === 0) this.closed.delete(operation);
    }
    for (const state of this.replicas.values()) for (const minute of state.folded) if (minute < oldest) state.folded.delete(minute);
  }

  /** Closed minutes held, over all operations. */
  heldMinutes(): number {
    let held = 0;
    for (const minutes of this.closed.values()) held += minutes.size;
    return held;
  }

  replicaIds(): string[] {
    return [...this.replicas.keys()];
  }

  /** The operation's fleet history, or undefined when no replica published it. */
  historyOf(operation: string): OperationHistory | undefined {
    const firstAt = this.firstAt.get(operation);
    if (!this.closed.has(operation) && ![...this.replicas.values()].some((r) => r.open?.data.has(operation))) return undefined;
    return {
      series: (now, count) => this.series(operation, now, count),
      observedMs: (start, now) => {
        const from = firstAt === undefined ? start : Math.max(start, firstAt);
        return Math.max(0, Math.min(start + MINUTE_MS, now) - from);
      },
    };
  }

  private series(operation: string, now: number, count: number): MinuteStats[] {
    const current = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    const history = this.historyOf(operation)!;
    const out: MinuteStats[] = [];
    for (let minute = current - (count - 1) * MINUTE_MS; minute <= current; minute += MINUTE_MS) {
      const cell: Cell = { count: 0, errors: 0, histogram: new Uint32Array(HISTOGRAM_BUCKETS) };
      const folded = this.closed.get(operation)?.get(minute);
      if (folded) addCell(cell, folded);
      for (const r of this.replicas.values()) {
        const open = r.open?.minute === minute ? r.open.data.get(operation) : undefined;
        if (open) addCell(cell, open);
      }
      if (cell.count === 0) continue;
      out.push({
        minuteStart: minute,
        observedMs: history.observedMs(minute, now),
        count: cell.count,
        errors: cell.errors,
        errorRate: cell.errors / cell.count,
        p50: histogramPercentile([cell.histogram], 0.5),
        p99: histogramPercentile([cell.histogram], 0.99),
      });
    }
    return out;
  }

  private stateOf(replica: string) {
    let state = this.replicas.get(replica);
    if (!state) this.replicas.set(replica, (state = { folded: new Set() }));
    return state;
  }

  private add(operation: string, minute: number, counts: OperationCounts): void {
    let minutes = this.closed.get(operation);
    if (!minutes) {
      if (this.closed.size >= this.maxOperations) {
        this.overflow++;
        return;
      }
      this.closed.set(operation, (minutes = new Map()));
    }
    let cell = minutes.get(minute);
    if (!cell) minutes.set(minute, (cell = { count: 0, errors: 0, histogram: new Uint32Array(HISTOGRAM_BUCKETS) }));
    addCell(cell, counts);
  }
}

function addCell(into: Cell, from: OperationCounts): void {
  into.count += from.count;
  into.errors += from.errors;
  addHistogram(into.histogram, from.histogram);
}
