/**
 * The fleet view from replicas' summaries (src/fleet): histograms merge into the percentiles of the
 * union of requests, counts add up, SLO counts add up, an outlier replica is named by the rule of
 * src/fleet/outliers.ts, the history folds closed minutes once, and the view says how fresh it is.
 * Each replica is a real engine fed spans with exact times on a fake clock.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { FleetHistory } from '../../src/fleet/fleet-history.js';
import { FleetSnapshot, FleetView } from '../../src/fleet/fleet-view.js';
import { decodeMinute, decodeSummary, ReplicaSummarizer, type ReplicaSummary } from '../../src/fleet/replica-summary.js';
import { engineHarness } from '../support/engine-harness.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 10);
const OP = 'GET /orders/{id}';

/** A replica's engine at T0 that served `latencies` (ms) of OP, the first `errors` of them failing. */
function replica(latencies: readonly number[], errors = 0, slo = false) {
  const h = engineHarness();
  h.clock.set(T0);
  if (slo) h.engine.sloTracker.register({ name: 'orders-availability', operationName: OP, type: 'AVAILABILITY', target: 0.99, minEvents: 100, windowMs: 1000 });
  for (const [i, ms] of latencies.entries()) h.request('/orders/{id}', ms, i < errors);
  return h;
}

async function summaryOf(id: string, h: ReturnType<typeof replica>): Promise<ReplicaSummary> {
  // Through the wire format, as the fleet reads it.
  const decoded = decodeSummary((await new ReplicaSummarizer(h.engine, id, T0 - 60_000, 60).summarize(h.clock.now(), new Set())).text, 1000);
  expect(decoded).toBeDefined();
  return decoded!;
}

/** Nearest-rank percentile of raw values, computed here from the values themselves. */
function nearestRank(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

function view(clock = new FakeClock(T0)) {
  return new FleetView({ clock, ownId: 'a', publishIntervalMs: 5000, replicaTtlMs: 30_000, historyMinutes: 60, maxOperations: 1000, ownSlos: () => [] });
}

const fast = (n: number, ms = 4) => Array.from({ length: n }, (_, i) => ms + (i % 3));

describe('merging replicas', () => {
  it('adds requests and errors, and reads p99 from the union of the requests, not the mean of the replicas p99s', async () => {
    const a = [...fast(58), 300, 320];
    const b = fast(60);
    const c = fast(60);
    const fleet = await view().update([await summaryOf('a', replica(a, 3)), await summaryOf('b', replica(b, 1)), await summaryOf('c', replica(c))]);
    const merged = fleet.recentOf(OP)!;
    expect(merged.count).toBe(180);
    expect(merged.errors).toBe(4);
    const union = [...a, ...b, ...c];
    const trueP99 = nearestRank(union, 0.99);
    expect(trueP99).toBe(300);
    // The histogram reads within one bucket (+-12 %) of the true percentile.
    expect(Math.abs(merged.p99 / trueP99 - 1)).toBeLessThan(0.125);
    const meanOfP99s = (nearestRank(a, 0.99) + nearestRank(b, 0.99) + nearestRank(c, 0.99)) / 3;
    expect(Math.abs(merged.p99 / meanOfP99s - 1)).toBeGreaterThan(0.5);
    expect(Math.abs(merged.p50 / nearestRank(union, 0.5) - 1)).toBeLessThan(0.125);
  });

  it('names the replica whose error rate is clearly above the rest of the fleet, and no one on a handful of requests', async () => {
    const bad = replica(fast(60), 30);
    const fleet = await view().update([await summaryOf('a', replica(fast(60), 1)), await summaryOf('b', replica(fast(60))), await summaryOf('c', bad)]);
    expect(fleet.outliers.map((o) => o.replica)).toEqual(['c']);
    const reason = fleet.outliers[0]!.reasons[0]!;
    expect(reason).toMatchObject({ operation: OP, kind: 'errors', requests: 60, restRequests: 120 });
    expect(reason.value).toBeCloseTo(0.5);
    expect(reason.rest).toBeCloseTo(1 / 120);
    expect(fleet.replicas[0]).toMatchObject({ id: 'c', outlier: fleet.outliers[0] });

    const few = await view().update([await summaryOf('a', replica(fast(10))), await summaryOf('b', replica(fast(10))), await summaryOf('c', replica(fast(10), 8))]);
    expect(few.outliers).toEqual([]);
  });

  it('names a replica with a slow tail of its own, not one with a straggler', async () => {
    const slowTail = [...fast(50), ...Array.from({ length: 10 }, () => 200)];
    const fleet = await view().update([await summaryOf('a', replica(fast(60))), await summaryOf('b', replica(slowTail)), await summaryOf('c', replica(fast(60)))]);
    expect(fleet.outliers.map((o) => [o.replica, o.reasons[0]!.kind])).toEqual([['b', 'latency']]);
    const straggler = await view().update([await summaryOf('a', replica(fast(60))), await summaryOf('b', replica([...fast(59), 200])), await summaryOf('c', replica(fast(60)))]);
    expect(straggler.outliers).toEqual([]);
  });

  it('sums SLO counts: two replicas below min-events each make a verdict together', async () => {
    const one = await view().update([await summaryOf('a', replica(fast(60), 0, true))]);
    expect(one.slos[0]).toMatchObject({ name: 'orders-availability', compliance: 'INSUFFICIENT_DATA', totalRequests: 60 });
    const two = await view().update([await summaryOf('a', replica(fast(60), 0, true)), await summaryOf('b', replica(fast(60), 0, true))]);
    expect(two.slos[0]).toMatchObject({ compliance: 'HEALTHY', totalRequests: 120, failedRequests: 0, budgetRemaining: 1 });
    const failing = await view().update([await summaryOf('a', replica(fast(60), 0, true)), await summaryOf('b', replica(fast(60), 3, true))]);
    // A window of 1 s, watched whole: 3 bad of 120 events against 1 % allowed (1.2 bad events) spends the budget.
    expect(failing.slos[0]).toMatchObject({ compliance: 'VIOLATED', totalRequests: 120, failedRequests: 3, budgetRemaining: 0 });
  });

  it('judges health on the fleet figures: operations served only by another replica are listed', async () => {
    const a = replica(fast(20));
    const fleet = await view().update([await summaryOf('a', a), await summaryOf('b', replica(fast(40)))]);
    const health = a.engine.healthSummary(fleet);
    expect(health.operations.find((o) => o.operation === OP)?.requestCount).toBe(60);
  });

  it('holds as many operations as one replica may, counting the rest', async () => {
    const other = engineHarness();
    other.clock.set(T0);
    other.request('/other', 5);
    const summaries = [await summaryOf('a', replica(fast(5))), await summaryOf('b', other)];
    const capped = await FleetSnapshot.merge(summaries, T0, 'a', [], 1);
    expect(capped.operations).toEqual([OP]);
    expect(capped.operationsLeftOut).toBe(1);
  });
});

describe('the wire format', () => {
  it('round-trips a summary and a minute, and refuses malformed ones', async () => {
    const h = replica(fast(30), 2);
    const { text, minutes } = await new ReplicaSummarizer(h.engine, 'a', T0, 60).summarize(h.clock.now(), new Set());
    const back = decodeSummary(text, 1000)!;
    expect(back.operations.get(OP)).toMatchObject({ count: 30, errors: 2, firstAt: T0 });
    // fast(30) is 4, 5 and 6 ms ten times each: three buckets of ten.
    expect([...back.operations.get(OP)!.histogram].filter((n) => n > 0)).toEqual([10, 10, 10]);
    const minute = decodeMinute(minutes.get(back.currentMinute)!, 1000)!;
    expect(minute.get(OP)).toMatchObject({ count: 30, errors: 2 });
    const raw = JSON.parse(text);
    const withOps = (ops: unknown[]) => decodeSummary(JSON.stringify({ ...raw, ops }), 1000);
    expect(withOps([[OP, 3, 0, [20, 2, 21, 1], T0]])?.operations.get(OP)?.count).toBe(3);
    expect(withOps([[OP, 3, 5, [20, 3], T0]])).toBeUndefined(); // more errors than requests
    expect(withOps([[OP, 3, 0, [99, 3], T0]])).toBeUndefined(); // no bucket 99
    expect(withOps([[OP, 3, 0, [20, 2], T0]])).toBeUndefined(); // the histogram holds 2 requests, not 3
    expect(withOps([[OP, 3, 0, [20, 2, 20, 1], T0]])).toBeUndefined(); // a bucket twice
    expect(withOps([[OP, 3, 0, [20, 3]]])).toBeUndefined(); // no first request
    expect(decodeSummary(JSON.stringify({ ...raw, status: 'FINE' }), 1000)).toBeUndefined();
    expect(decodeSummary(text, 0)).toBeUndefined(); // more operations than allowed
    expect(decodeSummary('{"v":1', 1000)).toBeUndefined();
  });
});

describe('the fleet history', () => {
  const minute = (count: number, errors = 0) => new Map([[OP, { count, errors, histogram: Uint32Array.from({ length: 75 }, (_, i) => (i === 20 ? count : 0)) }]]);
  const M = Date.UTC(2026, 0, 1, 12, 0, 0);

  it('folds each closed minute once, replaces the current one, and keeps what a replica that left served', () => {
    const history = new FleetHistory(60, 1000);
    history.noteFirst(OP, M);
    history.fold('a', M, minute(10));
    history.fold('a', M, minute(10));
    expect(history.wanted('a', [M, M + 60_000], M + 60_000, M + 60_000)).toEqual([]);
    expect(history.wanted('b', [M], M + 60_000, M + 60_000)).toEqual([M]);
    history.setOpen('a', M + 60_000, minute(3));
    history.setOpen('a', M + 60_000, minute(5));
    history.setOpen('b', M + 60_000, minute(7, 7));
    const series = history.historyOf(OP)!.series(M + 90_000, 2);
    expect(series.map((s) => [s.minuteStart, s.count, s.errors])).toEqual([
      [M, 10, 0],
      [M + 60_000, 12, 7],
    ]);
    history.leave('b');
    expect(history.historyOf(OP)!.series(M + 90_000, 2)[1]!.count).toBe(12);
    history.prune(M + 62 * 60_000);
    expect(history.historyOf(OP)!.series(M + 62 * 60_000, 61)).toEqual([]);
  });
});

describe('freshness', () => {
  it('shows the fleet while merges are recent, and this replica own figures with a note otherwise', async () => {
    const clock = new FakeClock(T0);
    const v = view(clock);
    expect(v.current()).toBeUndefined();
    expect(v.note()).toMatch(/first merge .* pending .*this replica's own \(a\)/);
    await v.update([await summaryOf('a', replica(fast(5)))]);
    expect(v.current()).toBeDefined();
    clock.advance(2000);
    expect(v.note()).toMatch(/^FLEET: figures merged from 1 replica at .* \(2s ago\); each replica publishes every 5s$/);
    clock.advance(14_000);
    expect(v.current()).toBeUndefined();
    expect(v.note()).toMatch(/no merge since .* \(16s ago\)/);
    await v.update([await summaryOf('a', replica(fast(5)))]);
    v.failed('connect ECONNREFUSED 127.0.0.1:6390');
    expect(v.current()).toBeUndefined();
    expect(v.note()).toMatch(/Redis is not answering since .* \(connect ECONNREFUSED 127\.0\.0\.1:6390\); the figures are this replica's own \(a\)/);
  });
});
