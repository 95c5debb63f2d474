/**
 * The summarizer keeps each operation's rows between publishes (src/fleet/replica-summary.ts): what
 * changed must show in the next summary, what did not must read as before, and a summarizer that
 * kept rows must publish what a fresh one publishes at the same time. Real engines on a fake clock.
 */
import { describe, expect, it } from 'vitest';
import { CLOSED_MINUTES_PER_PUBLISH, decodeMinute, decodeSummary, ReplicaSummarizer, type ReplicaSummary } from '../../src/fleet/replica-summary.js';
import { engineHarness } from '../support/engine-harness.js';

const M0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MINUTE = 60_000;
const A = 'GET /a';
const B = 'GET /b';

function setup() {
  const h = engineHarness();
  h.clock.set(M0 + 10_000);
  return { h, summarizer: new ReplicaSummarizer(h.engine, 'r1', M0, 60) };
}

function decoded(text: string): ReplicaSummary {
  const summary = decodeSummary(text, 1000);
  expect(summary).toBeDefined();
  return summary!;
}

const counts = (s: ReplicaSummary, op: string) => {
  const o = s.operations.get(op);
  return o && { count: o.count, errors: o.errors, histogram: [...o.histogram] };
};

describe('the summarizer keeps rows between publishes', () => {
  it('shows a request in the next summary, on its operation only', async () => {
    const { h, summarizer } = setup();
    h.request('/a', 5);
    h.request('/b', 50);
    const first = decoded((await summarizer.summarize(h.clock.now(), new Set())).text);
    expect(counts(first, A)?.count).toBe(1);
    h.clock.advance(5000);
    h.request('/a', 500, true);
    const { text, minutes, currentMinute } = await summarizer.summarize(h.clock.now(), new Set());
    const second = decoded(text);
    expect(counts(second, A)).toMatchObject({ count: 2, errors: 1 });
    expect(second.operations.get(A)!.histogram.reduce((x, y) => x + y, 0)).toBe(2);
    expect(counts(second, B)).toEqual(counts(first, B));
    expect(second.seenAt).toBe(M0 + 15_000);
    expect(decodeMinute(minutes.get(currentMinute)!, 1000)!.get(A)).toMatchObject({ count: 2, errors: 1 });
  });

  it('moves the recent minutes when the minute turns, with no request since', async () => {
    const { h, summarizer } = setup();
    for (let i = 0; i < 4; i++) h.request('/a', 5);
    await summarizer.summarize(h.clock.now(), new Set());
    h.clock.set(M0 + MINUTE + 1000);
    const turned = await summarizer.summarize(h.clock.now(), new Set());
    expect(counts(decoded(turned.text), A)?.count).toBe(4);
    // The closed minute goes out with its requests; the current one has none.
    expect(decodeMinute(turned.minutes.get(M0)!, 1000)!.get(A)?.count).toBe(4);
    expect(turned.minutes.has(M0 + MINUTE)).toBe(false);
    expect(decoded(turned.text).minutes).toEqual([M0]);
    // Past the recent minutes (5): listed without requests; past the history (60): gone.
    h.clock.set(M0 + 5 * MINUTE + 1000);
    expect(counts(decoded((await summarizer.summarize(h.clock.now(), new Set([M0]))).text), A)?.count).toBe(0);
    h.clock.set(M0 + 61 * MINUTE + 1000);
    const gone = decoded((await summarizer.summarize(h.clock.now(), new Set([M0]))).text);
    expect(gone.operations.size).toBe(0);
    expect(gone.minutes).toEqual([]);
  });

  it('is one snapshot at now: requests while its pieces run, even in the next minute, wait for the next summary', async () => {
    const { h, summarizer } = setup();
    for (let m = 0; m < 5; m++) {
      h.clock.set(M0 + m * MINUTE + 1000);
      for (let i = 0; i <= m; i++) h.request('/a', 5);
    }
    h.clock.set(M0 + 4 * MINUTE + 59_000);
    const pending = summarizer.summarize(h.clock.now(), new Set());
    // Its first piece has run: the minute turns and requests arrive before the next.
    h.clock.set(M0 + 5 * MINUTE + 1000);
    for (let i = 0; i < 10; i++) h.request('/a', 500, true);
    h.request('/b', 5);
    const { text, minutes, currentMinute } = await pending;
    const summary = decoded(text);
    expect(currentMinute).toBe(M0 + 4 * MINUTE);
    // Minutes 0 to 4 served 1 + 2 + 3 + 4 + 5 requests of 5 ms, none failing.
    const a = summary.operations.get(A)!;
    expect([a.count, a.errors, a.histogram.filter((n) => n > 0)]).toEqual([15, 0, Uint32Array.of(15)]);
    expect(summary.operations.has(B)).toBe(false);
    expect(decodeMinute(minutes.get(currentMinute)!, 1000)!.get(A)).toMatchObject({ count: 5, errors: 0 });
    // The next summary has them.
    const next = decoded((await summarizer.summarize(h.clock.now(), new Set([M0, M0 + MINUTE, M0 + 2 * MINUTE, M0 + 3 * MINUTE]))).text);
    expect(counts(next, A)).toMatchObject({ count: 2 + 3 + 4 + 5 + 10, errors: 10 });
    expect(counts(next, B)?.count).toBe(1);
  });

  it('publishes what a fresh summarizer publishes, after requests, quiet publishes and turning minutes', async () => {
    const { h, summarizer } = setup();
    const written = new Set<number>();
    // Ten minutes: /a every publish, /b in even minutes only, /c once.
    for (let step = 0; step < 120; step++) {
      h.request('/a', 1 + (step % 40));
      if (Math.floor(step / 12) % 2 === 0) h.request('/b', 20, step % 5 === 0);
      if (step === 30) h.request('/c', 300);
      const now = h.clock.now();
      const kept = await summarizer.summarize(now, written);
      const fresh = await new ReplicaSummarizer(h.engine, 'r1', M0, 60).summarize(now, written);
      expect(decoded(kept.text)).toEqual(decoded(fresh.text));
      expect([...kept.minutes.keys()]).toEqual([...fresh.minutes.keys()]);
      for (const [minute, text] of kept.minutes) expect(decodeMinute(text, 1000)).toEqual(decodeMinute(fresh.minutes.get(minute)!, 1000));
      for (const minute of kept.minutes.keys()) if (minute < kept.currentMinute) written.add(minute);
      h.clock.advance(5000);
    }
    expect(written.size).toBe(10); // minutes 0 to 9 closed by 10:05
  });

  it(`writes a backlog of closed minutes ${CLOSED_MINUTES_PER_PUBLISH} per publish, newest first`, async () => {
    const { h, summarizer } = setup();
    for (let m = 0; m < 5; m++) {
      h.clock.set(M0 + m * MINUTE + 1000);
      h.request('/a', 5);
    }
    const written = new Set<number>();
    const rounds: number[][] = [];
    for (let round = 0; round < 3; round++) {
      const { minutes, currentMinute } = await summarizer.summarize(h.clock.now(), written);
      const closed = [...minutes.keys()].filter((m) => m < currentMinute);
      rounds.push(closed.map((m) => (m - M0) / MINUTE));
      for (const m of closed) written.add(m);
    }
    expect(rounds).toEqual([[2, 3], [0, 1], []]);
  });
});
