// What a server span costs from start to OTLP bytes, in one process: the bare SDK, svc without
// configuration and svc with bench/svc.yml, each with and without protobuf serialization of its
// batches. It separates svc's processing from the export cost of the attributes it adds, which
// the HTTP benchmark can only show together. Modes interleave batch by batch; medians printed.
import { SpanKind } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { loadConfig } from '../dist/config/load-config.js';
import { decoratorRegistry } from '../dist/metadata/decorator-registry.js';
import { ServiceMetadata } from '../dist/metadata/service-metadata.js';
import { Engine } from '../dist/service-engine.js';

const BATCH = 512; // the BatchSpanProcessor's default export batch
const ROUNDS = 500;

function svcProcessor(configFile) {
  const { config } = loadConfig({ args: [], env: { SVC_CONFIG_FILE: configFile } });
  const metadata = new ServiceMetadata(config, decoratorRegistry(), {});
  return Engine.fromConfig(config, metadata).createSpanProcessor(metadata);
}

const ended = [];
const collector = { onStart() {}, onEnd: (span) => ended.push(span), forceFlush: async () => {}, shutdown: async () => {} };
const modes = [
  { name: 'bare SDK', processors: [] },
  { name: 'svc, no config', processors: [svcProcessor('bench/empty.yml')] },
  { name: 'svc, bench/svc.yml', processors: [svcProcessor('bench/svc.yml')] },
].map((m) => ({ ...m, tracer: new TracerProvider({ spanProcessors: [...m.processors, collector] }).getTracer('bench') }));

// what the HTTP instrumentation puts on a server span of bench/hello-server.mjs
const requestAttributes = () => ({
  'http.request.method': 'GET',
  'url.scheme': 'http',
  'server.address': '127.0.0.1',
  'network.peer.address': '127.0.0.1',
  'network.peer.port': 50312,
  'network.protocol.version': '1.1',
  'user_agent.original': 'autocannon',
  'url.path': '/orders/42',
  'client.address': '127.0.0.1',
  'server.port': 37583,
});

/** ns per span for one batch of requests ~0.5 ms long, optionally serialized as one export. */
function batch(tracer, serialize) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < BATCH; i++) {
    const now = Date.now();
    const span = tracer.startSpan('GET', { kind: SpanKind.SERVER, attributes: requestAttributes(), startTime: now - 0.5 });
    span.setAttribute('http.response.status_code', 200);
    span.end(now);
  }
  if (serialize) ProtobufTraceSerializer.serializeRequest(ended.splice(0));
  else ended.length = 0;
  return Number(process.hrtime.bigint() - start) / BATCH;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`server spans, ${BATCH} per batch, ${ROUNDS} batches per mode and column, modes interleaved; median ns/span`);
console.log(`  ${''.padEnd(20)} ${'start+end'.padStart(10)} ${'+ protobuf'.padStart(11)}`);
const figures = modes.map(() => ({}));
for (const serialize of [false, true]) {
  const runs = modes.map(() => []);
  for (let round = 0; round < ROUNDS + 50; round++) {
    modes.forEach((mode, i) => {
      const ns = batch(mode.tracer, serialize);
      if (round >= 50) runs[i].push(ns); // the first rounds warm up the JIT
    });
  }
  for (const [i, r] of runs.entries()) figures[i][serialize ? 'exported' : 'processed'] = median(r);
}
const [bare] = figures;
modes.forEach((mode, i) => {
  const f = figures[i];
  const extra =
    i === 0 ? '' : `   svc adds ${(f.processed - bare.processed).toFixed(0)} ns processing, ${(f.exported - bare.exported - (f.processed - bare.processed)).toFixed(0)} ns exporting its attributes`;
  console.log(`  ${mode.name.padEnd(20)} ${f.processed.toFixed(0).padStart(10)} ${f.exported.toFixed(0).padStart(11)}${extra}`);
});
