// Fleet figures (docs/state.md, Fleet view): the size of what a replica publishes every
// svc.fleet.publish-interval (its summary and its current minute) for 50 and 500 operations with
// realistic traffic, the worst case at the defaults (1000 operations, 1024-character names, all 75
// histogram buckets filled), and the CPU time of building a summary and of merging three.
import { FakeClock } from '../dist/analysis/clock.js';
import { FleetSnapshot } from '../dist/fleet/fleet-view.js';
import { decodeSummary, encodeSummary, summarizeReplica } from '../dist/fleet/replica-summary.js';
import { Engine } from '../dist/service-engine.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 30);

/** An engine whose operations each served `perMinute` requests in each of the last `minutes` minutes. */
function replica(operations, { perMinute = 60, minutes = 5, name = (i) => `GET /api/v1/resource-${i}/{id}`, spread = 'realistic' } = {}) {
  const clock = new FakeClock(T0 - (minutes - 1) * MINUTE);
  const engine = new Engine({ clock, maxOperations: 1000 });
  for (let m = 0; m < minutes; m++) {
    for (let op = 0; op < operations; op++) {
      for (let r = 0; r < perMinute; r++) {
        // realistic: a few ms to a few hundred ms (about 15 buckets); full: one request per bucket.
        const ms = spread === 'full' ? 0.01 * 1.25 ** (r % 75) * 1.1 : 3 * Math.exp(((r * 7919) % 100) / 22);
        engine.health.recordSpan(name(op), ms, r % 50 === 0);
      }
    }
    if (m < minutes - 1) clock.advance(MINUTE);
  }
  return { engine, clock };
}

function sizes(label, operations, options) {
  const { engine, clock } = replica(operations, options);
  const build = () => {
    const started = process.hrtime.bigint();
    const built = summarizeReplica(engine, 'host-1:12345:ab12', T0 - MINUTE, clock.now(), 60, new Set());
    const text = encodeSummary(built.summary);
    return { ...built, text, ms: Number(process.hrtime.bigint() - started) / 1e6 };
  };
  const runs = Array.from({ length: 11 }, build);
  const { summary, minutes, text } = runs[0];
  const buildMs = runs.map((r) => r.ms).sort((x, y) => x - y)[5];
  const current = minutes.get(summary.currentMinute);
  const kb = (s) => `${(Buffer.byteLength(s) / 1024).toFixed(1)} KB`;
  console.log(`${label.padEnd(58)} summary ${kb(text).padStart(9)}  current minute ${kb(current).padStart(9)}  built and encoded in ${buildMs.toFixed(1)} ms (median of 11)`);
  return text;
}

console.log('What a replica writes to Redis every publish interval:');
sizes('50 operations, 60 requests/min each', 50);
const text500 = sizes('500 operations, 60 requests/min each', 500);
sizes('worst case: 1000 operations, 1024-char names, 75 buckets', 1000, { perMinute: 75, minutes: 1, name: (i) => `GET /${String(i).padStart(6, '0')}/${'x'.repeat(1012)}`, spread: 'full' });

// Merging three replicas of 500 operations: what each refresh costs, off the tool calls.
const summaries = ['a', 'b', 'c'].map((id) => ({ ...decodeSummary(text500, 1000), id }));
const runs = [];
for (let i = 0; i < 20; i++) {
  const start = process.hrtime.bigint();
  new FleetSnapshot(summaries, T0, 'a', []);
  runs.push(Number(process.hrtime.bigint() - start) / 1e6);
}
runs.sort((x, y) => x - y);
console.log(`merging 3 replicas of 500 operations (decoded): median ${runs[10].toFixed(1)} ms over 20 runs`);
const decodeRuns = [];
for (let i = 0; i < 20; i++) {
  const start = process.hrtime.bigint();
  decodeSummary(text500, 1000);
  decodeRuns.push(Number(process.hrtime.bigint() - start) / 1e6);
}
decodeRuns.sort((x, y) => x - y);
console.log(`decoding one summary of 500 operations: median ${decodeRuns[10].toFixed(1)} ms over 20 runs`);
