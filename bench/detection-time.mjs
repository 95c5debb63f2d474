// Time to detect, by request rate and size of the change (docs/analysis.md, "Time to detect"):
// the built engine with nothing configured, a fake clock and seeded lognormal traffic (median
// 2 ms, log sigma 0.3 or 0.8), ten minutes of normal traffic, then a change that lasts. Prints a
// Markdown table of the seconds from the change to the first detection naming the expected pattern
// (also its section of docs/performance.md).
// Deterministic (seeded), so a rerun prints the same table. `npm run build && node bench/detection-time.mjs`.

import { AnalysisEngine } from '../dist/analysis/analysis-engine.js';
import { FakeClock } from '../dist/analysis/clock.js';

const OP = 'GET /orders/{id}';

function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Seconds from the change to its detection (undefined: not within `limitSeconds`). */
export function timeToDetect({ rate, factor = 1, errorRate = 0, sigma = 0.3, baseErrors = 0.005, limitSeconds = 300 }) {
  const clock = new FakeClock();
  const engine = new AnalysisEngine({ clock });
  const expected = errorRate > baseErrors ? 'error_rate_spike' : 'latency_degradation';
  let detectedAt;
  engine.onDetection((d) => {
    if (detectedAt === undefined && d.patterns.includes(expected)) detectedAt = d.timestamp;
  });
  const random = seeded(rate * 1000 + Math.round(factor * 10) + Math.round(errorRate * 100));
  const latency = () => 2 * Math.exp(sigma * Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random()));
  const gap = 1000 / rate;
  for (let t = 0; t < 600_000; t += gap) {
    engine.observe(OP, latency(), random() < baseErrors);
    clock.advance(gap);
  }
  if (detectedAt !== undefined) return 'false alarm';
  const changeAt = clock.now();
  for (let t = 0; t < limitSeconds * 1000 && detectedAt === undefined; t += gap) {
    engine.observe(OP, latency() * factor, random() < Math.max(errorRate, baseErrors));
    clock.advance(gap);
  }
  return detectedAt === undefined ? undefined : (detectedAt - changeAt) / 1000;
}

const RATES = [1, 10, 50, 100, 1000];
const CHANGES = [
  ['latency 1.5x', { factor: 1.5 }],
  ['latency 2x', { factor: 2 }],
  ['latency 5x', { factor: 5 }],
  ['latency 25x', { factor: 25 }],
  ['latency 2x, heavy tail (sigma 0.8)', { factor: 2, sigma: 0.8 }],
  ['errors 0.5 % -> 15 %', { errorRate: 0.15 }],
  ['errors 0.5 % -> 20 %', { errorRate: 0.2 }],
  ['errors 0.5 % -> 100 % (outage)', { errorRate: 1 }],
];

if (import.meta.url === `file://${process.argv[1]}`) {
  const cell = (v) => (v === undefined ? 'not in 5 min' : typeof v === 'string' ? v : `${v.toFixed(0)} s`);
  const { printedSection } = await import('./printed-section.mjs');
  const section = printedSection('bench/detection-time.mjs', 'Time to detect');
  section.say(`| change | ${RATES.map((r) => `${r} req/s`).join(' | ')} |`);
  section.say(`| --- | ${RATES.map(() => '---').join(' | ')} |`);
  for (const [name, change] of CHANGES) section.say(`| ${name} | ${RATES.map((rate) => cell(timeToDetect({ rate, ...change }))).join(' | ')} |`);
  await section.write({ fenced: false });
}
