// What a server span costs from start to OTLP bytes, in one process: the bare SDK, svc without
// configuration and svc with bench/svc.yml, each with and without protobuf serialization of its
// batches. It separates svc's processing from the export cost of the attributes it adds, which
// the HTTP benchmark can only show together. Modes interleave batch by batch; medians printed.
// Then the export of real processes: the end with no collector, and spans at 2,000 req/s (below).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { SpanKind } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { loadConfig } from '../dist/config/load-config.js';
import { decoratorRegistry } from '../dist/metadata/decorator-registry.js';
import { ServiceMetadata } from '../dist/metadata/service-metadata.js';
import { Engine } from '../dist/wiring/service-engine.js';
import { load, sleep, start, stop } from './paired-servers.mjs';
import { printedSection } from './printed-section.mjs';

const { say, write } = printedSection('bench/export-cost.mjs', 'Export');

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
say(`server spans, ${BATCH} per batch, ${ROUNDS} batches per mode and column, modes interleaved; median ns/span`);
say(`  ${''.padEnd(20)} ${'start+end'.padStart(10)} ${'+ protobuf'.padStart(11)}`);
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
  say(`  ${mode.name.padEnd(20)} ${f.processed.toFixed(0).padStart(10)} ${f.exported.toFixed(0).padStart(11)}${extra}`);
});

// Then the export as real processes do it, servers under the preload (bench/paired-servers.mjs):
// - no collector listening (connections refused): how long after the server listened svc reports
//   the first failed export on stderr, and how long after SIGTERM the process exits, with spans
//   queued and nothing ever delivered (docs/telemetry.md, Shutdown); a server with no SIGTERM
//   handler of its own, so svc re-raises the signal after its flush;
// - LOAD_RATE req/s for LOAD_SECONDS on plain node:http (bench/hello-server.mjs), default
//   OTEL_BSP_* settings, OTLP/HTTP protobuf to a sink that counts the spans it receives: requests
//   answered, spans received, and what svc reported lost (queue full, failed exports).
const NO_COLLECTOR_RUNS = 5;
const LOAD_RATE = 2000;
const LOAD_SECONDS = 20;
const BARE_SERVER = `require('node:http').createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1', function () { console.log('LISTENING ' + this.address().port); });`;

const stateDir = mkdtempSync(join(tmpdir(), 'export-cost-'));
const svcEnv = (endpoint) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_SERVICE_NAME: 'export-cost',
  SVC_MCP_PORT: '0',
  SVC_CONFIG_FILE: 'bench/empty.yml',
  SVC_STORE_URL: `sqlite:${join(stateDir, 'state.db')}`,
});

async function closedPortEndpoint() {
  const probe = createNetServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** Resolves with performance.now() when the child's stderr has a line matching `pattern`. */
const stderrLine = (child, pattern) => new Promise((resolve) => createInterface({ input: child.stderr }).on('line', (line) => pattern.test(line) && resolve(performance.now())));

/** One server with no collector: ms from listening to the first failure line (when waited for), ms from SIGTERM to exit. */
async function noCollectorRun(waitForFirstFailure) {
  const server = await start(['--import', './register.mjs', '-e', BARE_SERVER], svcEnv(await closedPortEndpoint()), { server: false, name: 'no collector' });
  const listenedAt = performance.now();
  const firstFailure = stderrLine(server.child, /^svc: \w+ export to .* failed: /);
  const ended = stderrLine(server.child, /\(the process is ending\)/);
  await fetch(`http://127.0.0.1:${server.port}/queued`).then((res) => res.text());
  const firstFailureMs = waitForFirstFailure ? (await firstFailure) - listenedAt : undefined;
  const signalledAt = performance.now();
  await stop(server.child);
  const exitMs = performance.now() - signalledAt;
  const reported = await Promise.race([ended.then(() => true), sleep(100).then(() => false)]);
  return { firstFailureMs, exitMs, byTheSignal: server.child.signalCode === 'SIGTERM', reported };
}

say(`\nno collector listening (connections refused), ${NO_COLLECTOR_RUNS} runs each; median (max) ms`);
for (const [name, waitForFirstFailure] of [
  ['SIGTERM right after the first request', false],
  ['SIGTERM after the first failure line', true],
]) {
  const runs = [];
  for (let i = 0; i < NO_COLLECTOR_RUNS; i++) runs.push(await noCollectorRun(waitForFirstFailure));
  const figure = (values) => `${median(values).toFixed(0)} (${Math.max(...values).toFixed(0)})`;
  const firstFailure = waitForFirstFailure ? `first failure line ${figure(runs.map((r) => r.firstFailureMs))} after listening; ` : '';
  const ends = `${runs.filter((r) => r.byTheSignal).length} of ${runs.length} died by SIGTERM, ${runs.filter((r) => r.reported).length} reported the loss`;
  say(`  ${name.padEnd(40)} ${firstFailure}SIGTERM to exit ${figure(runs.map((r) => r.exitMs))}; ${ends}`);
}

const sink = await start(['bench/otlp-sink.mjs', '--count-spans'], {}, { server: false, name: 'sink' });
const loaded = await start(['--import', './register.mjs', 'bench/hello-server.mjs'], svcEnv(`http://127.0.0.1:${sink.port}`), { name: 'hello-server' });
const result = await load(loaded.port, { duration: LOAD_SECONDS, rate: LOAD_RATE, paths: ['/orders/42'] });
// with the requests autocannon left in flight when it stopped; the /__stats request has a span too
const spansExpected = (await (await fetch(`http://127.0.0.1:${loaded.port}/__stats`)).json()).requests + 1;
await stop(loaded.child); // hello-server closes on SIGTERM; svc exports what is queued at the natural end
const received = Number(await (await fetch(`http://127.0.0.1:${sink.port}/spans`)).text());
await stop(sink.child);
rmSync(stateDir, { recursive: true, force: true });
const lost = /telemetry lost .*/.exec(loaded.stderr)?.[0] ?? 'nothing';
say(`\n${LOAD_RATE} req/s for ${LOAD_SECONDS} s on plain node:http, default OTEL_BSP_* (queue 2048, batch 512, 5 s), OTLP/HTTP protobuf to a counting sink`);
say(`  ${Math.round(result.requests.average)} req/s answered (${result.non2xx} not 2xx); the sink received ${received} of the ${spansExpected} server spans; svc reported lost: ${lost}`);
await write();
