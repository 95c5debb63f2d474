// Fleet figures (docs/state.md, Fleet view): the size of what a replica publishes every
// svc.fleet.publish-interval (its summary and its current minute) for 50 and 500 operations with
// realistic traffic and the worst case at the defaults (1000 operations, 1024-character names, all
// 75 histogram buckets filled), and the longest piece of a publish and merge round that holds the
// event loop: building the summary (one piece), then decoding each replica's summary and minute
// and merging (each its own piece, as src/fleet/fleet-link.ts runs them).
import v8 from 'node:v8';
import vm from 'node:vm';
import { FakeClock } from '../dist/analysis/clock.js';
import { FleetView } from '../dist/fleet/fleet-view.js';
import { decodeMinute, decodeSummary, nextTurn, ReplicaSummarizer } from '../dist/fleet/replica-summary.js';
import { Engine } from '../dist/wiring/service-engine.js';

const MINUTE = 60_000;
const INTERVAL = 5000;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 30);
const ROUNDS = 21;
// Each measured publish or merge starts after a full collection, so the garbage of building the
// replicas' traffic here is not collected inside it (what it allocates itself still is).
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc');

// realistic: a few ms to a few hundred ms (about 15 buckets); full: one request per bucket.
const latency = (spread, r) => (spread === 'full' ? 0.01 * 1.25 ** (r % 75) * 1.1 : 3 * Math.exp(((r * 7919) % 100) / 22));

/** A replica whose operations each served `perMinute` requests in each of the last `minutes` minutes. */
function replica(operations, { perMinute = 60, minutes = 5, name = (i) => `GET /api/v1/resource-${i}/{id}`, spread = 'realistic' } = {}) {
  const clock = new FakeClock(T0 - (minutes - 1) * MINUTE);
  const engine = new Engine({ clock, maxOperations: 1000 });
  const serve = (requests, from = 0) => {
    for (let op = 0; op < operations; op++) {
      for (let r = from; r < from + requests; r++) engine.health.recordSpan(name(op), latency(spread, r), r % 50 === 0);
    }
  };
  for (let m = 0; m < minutes; m++) {
    serve(perMinute);
    if (m < minutes - 1) clock.advance(MINUTE);
  }
  const summarizer = new ReplicaSummarizer(engine, 'host-1:12345:ab12', T0 - MINUTE, 60);
  const written = new Set();
  let served = 0;
  /** One publish: the longest piece that held the event loop, all pieces together, and what it wrote. */
  const publish = async () => {
    collect();
    const { value: out, longest, total } = await pieces(() => summarizer.summarize(clock.now(), written));
    for (const m of out.minutes.keys()) if (m < out.currentMinute) written.add(m);
    return { ...out, longest, total };
  };
  /** The next interval: every operation serves its requests of 5 s. */
  const next = () => {
    clock.advance(INTERVAL);
    serve(Math.max(1, Math.round((perMinute * INTERVAL) / MINUTE)), (served += 7));
  };
  return { publish, next, clock };
}

/**
 * Runs `task` and measures how it holds the event loop, as a request waiting on it would see it:
 * a probe asks for every turn of the loop, and the longest gap between two turns is the longest
 * piece (wall time: on this shared machine it includes whatever else ran meanwhile). `total` is
 * from start to end.
 */
async function pieces(task) {
  let longest = 0;
  let done = false;
  const started = performance.now();
  let last = started;
  const probe = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    if (process.env.PIECES) process.stderr.write(`${(now - last).toFixed(2)} `);
    last = now;
    if (!done) setImmediate(probe);
  };
  setImmediate(probe);
  const value = await task();
  const total = performance.now() - started;
  done = true;
  await new Promise((resolve) => setImmediate(resolve));
  if (process.env.PIECES) process.stderr.write('\n');
  return { value, longest, total };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (s) => `${(Buffer.byteLength(s) / 1024).toFixed(1)} KB`;

async function publishFigures(label, operations, options) {
  const r = replica(operations, options);
  const first = await r.publish();
  const steady = [];
  let last = first;
  for (let i = 0; i < ROUNDS; i++) {
    r.next();
    last = await r.publish();
    steady.push(last);
  }
  // The first publish after the minute turns: recent sums made again, the closed minute written.
  r.clock.set(Math.ceil(r.clock.now() / MINUTE) * MINUTE + 100);
  const turn = await r.publish();
  const current = last.minutes.get(last.currentMinute);
  const f = (x) => x.toFixed(2);
  const figures = (p) => `${f(p.longest)} ms of ${f(p.total)} ms`;
  const mid = { longest: median(steady.map((p) => p.longest)), total: median(steady.map((p) => p.total)) };
  console.log(`${label}: summary ${kb(last.text)}, current minute ${kb(current)}`);
  console.log(`  publish, every operation with new requests (medians of ${ROUNDS}): longest piece ${figures(mid)}`);
  console.log(`  first publish: longest piece ${figures(first)}; first after the minute turns: ${figures(turn)}`);
  return { last, steady: mid };
}

console.log('What a replica writes to Redis every publish interval, and how it holds the event loop:');
await publishFigures('50 operations, 60 requests/min each', 50);
const { last: last500, steady: steady500 } = await publishFigures('500 operations, 60 requests/min each', 500);
const { last: worst } = await publishFigures('worst case: 1000 operations, 1024-char names, 75 buckets', 1000, {
  perMinute: 75,
  minutes: 1,
  name: (i) => `GET /${String(i).padStart(6, '0')}/${'x'.repeat(1012)}`,
  spread: 'full',
});

// A reader decodes each summary in one piece (JSON.parse is not split).
const decodeWorst = Array.from({ length: ROUNDS }, () => {
  collect();
  const started = performance.now();
  decodeSummary(worst.text, 1000);
  return performance.now() - started;
});
console.log(`  a reader decodes that summary in one piece of ${median(decodeWorst).toFixed(2)} ms (median of ${ROUNDS})`);

// Merging three replicas of 500 operations as src/fleet/fleet-link.ts does: decoding each summary
// and each current minute in a turn of its own, then merging in pieces.
const clock = new FakeClock(T0);
const view = new FleetView({ clock, ownId: 'a', publishIntervalMs: INTERVAL, replicaTtlMs: 30_000, historyMinutes: 60, maxOperations: 1000, ownSlos: () => [] });
const currentText = last500.minutes.get(last500.currentMinute);
const texts = ['a', 'b', 'c'].map((id) => last500.text.replace('"host-1:12345:ab12"', JSON.stringify(id)));
const merge = async () => {
  const summaries = [];
  for (const text of texts) {
    await nextTurn();
    summaries.push(decodeSummary(text, 1000));
  }
  for (const s of summaries) {
    await nextTurn();
    view.history.setOpen(s.id, s.currentMinute, decodeMinute(currentText, 1000));
  }
  await nextTurn();
  await view.update(summaries);
};
const merges = [];
for (let i = 0; i < 2 * ROUNDS; i++) {
  collect();
  merges.push(await pieces(merge));
}
const mergeFigures = { longest: median(merges.map((m) => m.longest)), total: median(merges.map((m) => m.total)) };
const f = (x) => x.toFixed(2);
console.log(`merging 3 replicas of 500 operations (medians of ${2 * ROUNDS}): longest piece ${f(mergeFigures.longest)} ms of ${f(mergeFigures.total)} ms`);
console.log(`longest piece of a publish and merge round (500 operations, 3 replicas): ${f(Math.max(steady500.longest, mergeFigures.longest))} ms`);
