// False positives on 100k spans of steady lognormal traffic (median 25 ms, sigma 0.5) with
// occasional isolated outliers (1 in 1000 at 40x) and 0.2 % errors: per-span flag rate (the
// spec's z-score), svc.anomaly.detected events, and detections (patterns), with the default
// persistence (3 spans over 1 s) and with none (every anomalous span worth an event).
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { FakeClock } from '../dist/analysis/clock.js';
import { Engine } from '../dist/wiring/service-engine.js';
import { lognormal, seededRandom } from '../test/support/random.ts';

const SPANS = 100_000;

function measure(label, anomalyDetection) {
  const clock = new FakeClock();
  let events = 0;
  let detections = 0;
  const engine = new Engine({ clock, anomalyDetection, emit: (name) => name === 'svc.anomaly.detected' && events++ });
  engine.onDetection(() => detections++);
  let flagged = 0;
  const counter = {
    onStart() {},
    onEnd(span) {
      if (span.attributes['svc.anomaly.detected']) flagged++;
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const tracer = new TracerProvider({ spanProcessors: [engine.createSpanProcessor(), counter] }).getTracer('bench');
  const next = seededRandom(42);
  const steadyLatency = lognormal(next, 25, 0.5);
  clock.advance(120_000);
  for (let i = 0; i < SPANS; i++) {
    const steady = steadyLatency();
    const latency = next() < 0.001 ? 25 * 40 : steady;
    const start = clock.now();
    const span = tracer.startSpan('GET', { kind: SpanKind.SERVER, startTime: start, attributes: { 'http.request.method': 'GET', 'http.route': i % 2 ? '/orders/:id' : '/cart' } });
    if (next() < 0.002) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(start + latency);
    clock.advance(20);
  }
  return { label, flagRate: flagged / SPANS, events, detections };
}

console.log(`anomaly false positives, ${SPANS.toLocaleString('en')} spans of steady traffic with isolated outliers`);
for (const { label, flagRate, events, detections } of [measure('no persistence', { persistence: 1, persistenceMs: 0 }), measure('default', {})]) {
  console.log(`  ${label.padEnd(14)} spans flagged ${(flagRate * 100).toFixed(2)}%   svc.anomaly.detected events ${String(events).padStart(5)}   detections ${detections}`);
}
