// Heap held per tracked operation (docs/analysis.md, Bounds): 1000 operations, each with a
// full rolling window (1000 observations) and traffic in every minute its history keeps (60 and the current one),
// read once by a health summary as a tool call reads it (what the reads keep between calls counts too).
// Run against the built output: `npm run build && node --expose-gc bench/operation-memory.mjs`.

import { AnalysisEngine } from '../dist/analysis/analysis-engine.js';
import { FakeClock } from '../dist/analysis/clock.js';
import { MinuteHistory } from '../dist/analysis/minute-history.js';
import { printedSection } from './printed-section.mjs';

const OPERATIONS = 1000;
if (!globalThis.gc) throw new Error('run with node --expose-gc');
const held = () => {
  globalThis.gc();
  globalThis.gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};
const perOperation = (bytes) => `${(bytes / OPERATIONS / 1024).toFixed(1)} KB`;

// Measured one at a time: a structure freed during the other's measurement would hide its size.
if (process.argv[2] === 'history') {
  const before = held();
  const histories = [];
  for (let o = 0; o < OPERATIONS; o++) {
    const history = new MinuteHistory(60);
    for (let minute = 0; minute <= 60; minute++) for (let i = 0; i < 20; i++) history.add(minute * 60_000 + i, 1 + ((i * 37) % 500), i % 7 === 0);
    histories.push(history);
  }
  console.log(`minute history, 61 minutes with traffic (60 whole and the current): ${perOperation(held() - before)} per operation (${histories.length} operations)`);
} else {
  const clock = new FakeClock(0);
  const engine = new AnalysisEngine({ clock });
  const before = held();
  for (let minute = 0; minute <= 60; minute++) {
    for (let o = 0; o < OPERATIONS; o++) for (let i = 0; i < 17; i++) engine.observe(`GET /op-${o}`, 1 + ((i * 37 + minute) % 500), i % 11 === 0);
    clock.advance(60_000);
  }
  engine.healthSummary();
  const section = printedSection('bench/operation-memory.mjs', 'Memory per tracked operation');
  section.say(`engine, 1037 observations over 61 minutes: ${perOperation(held() - before)} per operation (${engine.health.operations().length} operations)`);
  await section.write();
}
