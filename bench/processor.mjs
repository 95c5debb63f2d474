// Per-span cost of svc's span processor (naming, enrichment and analysis), measured against a
// no-op processor in the same TracerProvider setup, interleaved batch by batch so both see the
// same machine state. Prints medians over 1M spans per side. A second measurement does before
// each span what a request's own work does around it: touches 0.5 MB of other memory and
// allocates ~20 KB of short-lived objects (plain OTel's hello-world request allocates about that).
// In a server svc's per-span cost is mostly cache misses on its state (docs/analysis.md, "Cost").
import { SpanKind } from '@opentelemetry/api';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { SloTracker } from '../dist/analysis/slo-tracker.js';
import { Engine } from '../dist/wiring/service-engine.js';
import { printedSection } from './printed-section.mjs';

const section = printedSection('bench/processor.mjs', 'Span processor');

const BATCHES = 100;
const BATCH = 10_000;
const OPERATIONS = 50;

const noop = { onStart() {}, onEnding() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} };
const slos = new SloTracker();
slos.register({ name: 'orders-availability', operationName: 'GET /orders/{id}', type: 'AVAILABILITY', target: 0.999 });
const engine = new Engine({ sloTracker: slos, staticBaselines: new Map([['GET /orders/{id}', { latencyP50Ms: 20, latencyP99Ms: 80, errorRate: 0.001 }]]) });
const withSvc = new TracerProvider({ spanProcessors: [engine.createSpanProcessor()] }).getTracer('bench');
const bare = new TracerProvider({ spanProcessors: [noop] }).getTracer('bench');

const routes = Array.from({ length: OPERATIONS }, (_, i) => (i === 0 ? '/orders/:id' : `/resource-${i}/:id`));
const serverAttributes = routes.map((route) => ({ 'http.request.method': 'GET', 'http.route': route, 'url.path': route.replace(':id', '42') }));
const clientAttributes = { 'server.address': 'inventory.internal', 'server.port': 8080, 'http.request.method': 'GET' };

/**
 * ns per span over `count` spans: 4 server spans (cycling through the operations) for each client
 * span, latencies 5-45 ms. `between`, when given, runs before each span and is not timed.
 */
function batch(tracer, count, between) {
  let t = Date.now() - 60_000;
  let servers = 0;
  let timed = 0n;
  let start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    if (between) {
      timed += process.hrtime.bigint() - start;
      between();
      start = process.hrtime.bigint();
    }
    const client = i % 5 === 4;
    const span = tracer.startSpan('GET', { kind: client ? SpanKind.CLIENT : SpanKind.SERVER, startTime: t, attributes: client ? clientAttributes : serverAttributes[servers++ % OPERATIONS] });
    span.end(t + 5 + (i % 41));
    t += 1;
  }
  timed += process.hrtime.bigint() - start;
  return Number(timed) / count;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Medians of `batches` interleaved batches per side, after 10 of warm-up. */
function measure(batches, count, between) {
  const svc = [];
  const bareNs = [];
  for (let i = 0; i < 10 + batches; i++) {
    const s = batch(withSvc, count, between);
    const b = batch(bare, count, between);
    if (i >= 10) {
      svc.push(s);
      bareNs.push(b);
    }
  }
  return { svc: median(svc), bare: median(bareNs) };
}

const warm = measure(BATCHES, BATCH);
section.say(`span processor, ${(BATCHES * BATCH).toLocaleString('en')} spans per side (${OPERATIONS} operations, 1 in 5 a client span)`);
section.say(`  span start+end with a no-op processor  median ${warm.bare.toFixed(0)} ns/span`);
section.say(`  span start+end with svc's processor    median ${warm.svc.toFixed(0)} ns/span`);
section.say(`  svc's processor alone (difference)     median ${(warm.svc - warm.bare).toFixed(0)} ns/span  (target < 1000 ns)`);

const disturbance = new Uint8Array(512 * 1024);
// biome-ignore lint/correctness/noUnusedVariables: written, never read: a request keeps its objects while its span ends
let requestObjects;
function requestWork() {
  for (let i = 0; i < disturbance.length; i += 64) disturbance[i]++;
  requestObjects = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item ${i}`, tags: [i, i + 1] }));
}
const disturbed = measure(100, 200, requestWork);
section.say(`with a request's work between spans (0.5 MB touched, ~20 KB allocated), ${(100 * 200).toLocaleString('en')} spans per side`);
section.say(`  svc's processor alone (difference)     median ${(disturbed.svc - disturbed.bare).toFixed(0)} ns/span`);
await section.write();
