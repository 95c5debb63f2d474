// What a rolling baseline's p50 read costs when its rank moved by one place since the last read,
// with every latency of the window in one bucket (20-20.7 ms), so a step that scans its bucket
// reads all 1000 observations. Each add replaces a latency above the p50 with one below it or the
// reverse: alternating, the rank steps down, up, down...; in runs, 1000 steps one way then 1000
// the other. A step to a known neighbour reads no bucket; one whose neighbour is unknown scans.
// BENCH_BEFORE=<a dist directory> (another commit's build) times that build beside this one,
// interleaved. Run against the built output: `npm run build && node bench/baseline-steps.mjs`.
import { fileURLToPath } from 'node:url';

const CAPACITY = 1000;
const ROUNDS = 30;
const READS = 2000;

const builds = { now: fileURLToPath(new URL('../dist', import.meta.url)) };
if (process.env.BENCH_BEFORE) builds.before = process.env.BENCH_BEFORE.replace(/\/$/, '');
const sides = [];
for (const [name, dist] of Object.entries(builds)) sides.push({ name, RollingWindow: (await import(`${dist}/analysis/rolling-window.js`)).RollingWindow });

let seed = 1;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
/** The i-th latency: below the p50 (20-20.3 ms) or above it (20.4-20.7 ms); the one it replaces, CAPACITY earlier, is on the other side. */
const latency = (i, alternating) => ((alternating ? Math.floor(i / CAPACITY) + i : Math.floor(i / CAPACITY)) % 2 ? 20.4 : 20) + random() * 0.3;

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const alternating of [true, false]) {
  const stream = Float64Array.from({ length: CAPACITY + ROUNDS * READS }, (_, i) => latency(i, alternating));
  const times = new Map(sides.map((side) => [side, []]));
  const checks = new Map(sides.map((side) => [side, 0]));
  const windows = new Map(
    sides.map((side) => {
      const window = new side.RollingWindow(CAPACITY);
      for (let i = 0; i < CAPACITY; i++) window.add(stream[i], false);
      window.percentile(0.5, 0);
      return [side, window];
    }),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 ? sides : [...sides].reverse()) {
      const window = windows.get(side);
      let ns = 0n;
      let sum = 0;
      for (let i = CAPACITY + round * READS; i < CAPACITY + (round + 1) * READS; i++) {
        window.add(stream[i], false);
        const start = process.hrtime.bigint();
        sum += window.percentile(0.5, 0);
        ns += process.hrtime.bigint() - start;
      }
      if (round >= 5) times.get(side).push(Number(ns) / READS);
      checks.set(side, checks.get(side) + sum);
    }
  }
  if (new Set(checks.values()).size > 1) throw new Error('the builds read different percentiles');
  const figures = sides.map((side) => `${side.name} ${median(times.get(side)).toFixed(0)} ns`).join(', ');
  console.log(`p50 read after a step ${alternating ? 'down, up, down... (alternating)' : 'the same way as the last (runs)'}: ${figures} per read (median of ${ROUNDS - 5} rounds of ${READS})`);
}
