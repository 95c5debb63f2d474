// Overhead by framework: CPU per request, p99 latency and RSS of the same small app
// (bench/framework-app.cjs: `/users/:id`, `/users/:id/orders/:orderId`, a 404) on Express 5,
// Fastify 5 and plain node:http, each started three ways:
//   plain  no instrumentation
//   OTel   node --import @opentelemetry/auto-instrumentations-node/register (OpenTelemetry's own)
//   svc    node --import ./register.mjs, the MCP tool server listening, no agent connected
// OTel and svc get the same environment: traces and logs over OTLP/HTTP protobuf to one
// discarding sink (bench/otlp-sink.mjs), so exporting costs both the same; no metrics; the same
// resource detectors (the cloud ones, which probe metadata endpoints, left out); svc without
// configuration (bench/empty.yml).
//
// Method (as bench/http.mjs, whose comment says why): all nine servers run at once, fresh ones
// every round; the load moves from one to the next in short slices, and each cycle visits every
// framework with its three variants back to back in rotating order (A B C, B C A, C A B), so a
// burst of noise from other tenants hits them alike. CPU per request is the server's CPU time
// (process.cpuUsage, asked over the IPC channel, so measuring adds no span) over the requests it
// served in the slice. svc/OTel is the median of the ratios of slices of the same cycle; the
// 25th-75th percentiles of those ratios show the noise: parity within noise when they include 1.
// RSS is read before any load, right after the warm-up, in the middle of every slice (under load)
// and after IDLE_SECONDS without load; each is the median over rounds, with svc - OTel in MB.
// No agent connects at any point: the MCP SDK is loaded by the first agent (docs/mcp.md).
// Where `taskset` exists, the servers share the last core and the load generator and the sink
// use the others. About 5 minutes; BENCH_FRAMEWORK_ROUNDS, _CYCLES, _SLICE_SECONDS, _RATE and
// BENCH_FRAMEWORKS (e.g. "fastify") change the defaults below.
import { median, load as paced, paired, pinned, ratio, row, serverCore, sleep, start, stats, stop, toolServerUrl } from './paired-servers.mjs';

const ROUNDS = Number(process.env.BENCH_FRAMEWORK_ROUNDS ?? 4);
const CYCLES = Number(process.env.BENCH_FRAMEWORK_CYCLES ?? 2);
const SLICE_SECONDS = Number(process.env.BENCH_FRAMEWORK_SLICE_SECONDS ?? 2);
const WARMUP_SECONDS = 2;
// Long enough for V8's memory reducer, which shrinks the heap once allocation has stopped.
const IDLE_SECONDS = 10;
const CONNECTIONS = 16;
// A fixed rate, not as fast as the server can go: every variant serves the same requests and
// allocates at the same pace, and the exporters keep up (at saturation the batch span processor's
// queue overflows, and spans dropped unexported would make the costlier variant look cheaper).
const RATE = Number(process.env.BENCH_FRAMEWORK_RATE ?? 1000);
const FRAMEWORKS = (process.env.BENCH_FRAMEWORKS ?? 'express,fastify,http').split(',');
const PATHS = ['/users/42', '/users/42/orders/7', '/no/such/route'];
const MB = 1024 * 1024;

const load = (port, duration) => paced(port, { duration, rate: RATE, paths: PATHS, connections: CONNECTIONS });

const sink = await start(['bench/otlp-sink.mjs'], {}, { server: false, name: 'sink' });
const telemetryEnv = (framework) => ({
  OTEL_SERVICE_NAME: `bench-${framework}`,
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.port}`,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_LOGS_EXPORTER: 'otlp',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_NODE_RESOURCE_DETECTORS: 'env,host,os,process',
});
const VARIANTS = [
  { key: 'plain', name: 'plain', preload: [], env: () => ({}) },
  { key: 'otel', name: 'OTel', preload: ['--import', '@opentelemetry/auto-instrumentations-node/register'], env: telemetryEnv },
  { key: 'svc', name: 'svc', preload: ['--import', './register.mjs'], env: (framework) => ({ ...telemetryEnv(framework), SVC_MCP_PORT: '0', SVC_CONFIG_FILE: 'bench/empty.yml' }) },
];
/** One slot per framework and variant; each collects its slices and RSS readings over all rounds. */
const slots = FRAMEWORKS.flatMap((framework) =>
  VARIANTS.map((variant) => ({ framework, variant, name: `${framework}/${variant.name}`, slices: [], rss: { start: [], warm: [], load: [], idle: [] } })),
);
const slotOf = (framework, key) => slots.find((s) => s.framework === framework && s.variant.key === key);

/** One slice of load: throughput, the server's CPU per request, its RSS in the middle of the slice. */
async function slice(slot, server) {
  const before = await stats(server);
  const running = load(server.port, SLICE_SECONDS);
  await sleep((SLICE_SECONDS * 1000) / 2);
  const during = await stats(server);
  const result = await running;
  const after = await stats(server);
  if (result.errors || result.timeouts) console.log(`  ${slot.name}: ${result.errors} errors, ${result.timeouts} timeouts in a slice`);
  if (result.requests.total < 0.95 * RATE * SLICE_SECONDS) console.log(`  ${slot.name}: ${result.requests.total} requests in a slice, short of ${RATE} per second`);
  slot.slices.push({ p99: result.latency.p99, cpu: (after.cpuMicros - before.cpuMicros) / (after.requests - before.requests) });
  slot.rss.load.push(during.rss);
}

const begun = Date.now();
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const servers = new Map();
    for (const slot of slots) {
      const server = await start([...slot.variant.preload, 'bench/framework-app.cjs', slot.framework], slot.variant.env(slot.framework), { name: slot.name });
      servers.set(slot, server);
    }
    // svc's tool server must be listening (no agent will connect to it).
    for (const slot of slots.filter((s) => s.variant.key === 'svc')) {
      await toolServerUrl(servers.get(slot), slot.name);
    }
    await sleep(1000);
    for (const [slot, server] of servers) slot.rss.start.push((await stats(server)).rss);
    for (const [slot, server] of servers) {
      await load(server.port, WARMUP_SECONDS);
      slot.rss.warm.push((await stats(server)).rss);
    }
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      for (let f = 0; f < FRAMEWORKS.length; f++) {
        const framework = FRAMEWORKS[(f + cycle) % FRAMEWORKS.length];
        for (let v = 0; v < VARIANTS.length; v++) {
          const slot = slotOf(framework, VARIANTS[(v + cycle + round) % VARIANTS.length].key);
          await slice(slot, servers.get(slot));
        }
      }
    }
    await sleep(IDLE_SECONDS * 1000);
    for (const [slot, server] of servers) slot.rss.idle.push((await stats(server)).rss);
    await Promise.all([...servers.values()].map((server) => stop(server.child)));
    const cpuOfRound = (slot) => median(slot.slices.slice(-CYCLES).map((s) => s.cpu)).toFixed(1);
    console.log(`round ${round}: median CPU µs/request  ${slots.map((slot) => `${slot.name} ${cpuOfRound(slot)}`).join(' | ')}`);
  }
} finally {
  await stop(sink.child);
}

const figure = (slot, key) => median(slot.slices.map((s) => s[key]));
const mb = (slot, phase) => median(slot.rss[phase]) / MB;
const signed = (value) => `${value >= 0 ? '+' : ''}${value.toFixed(1)}`;

console.log(
  `\nOverhead by framework: GET ${PATHS.join(', ')} in turn at ${RATE} requests/s over ${CONNECTIONS} connections; ` +
    `${ROUNDS} rounds of fresh servers, each ${CYCLES} cycles of ${SLICE_SECONDS} s slices per server after ${WARMUP_SECONDS} s of warm-up (${((Date.now() - begun) / 1000).toFixed(0)} s)`,
);
console.log(pinned ? `  servers on core ${serverCore}, load generator and sink on the others` : '  not pinned to cores (no taskset or one core): expect more noise');
console.log('  CPU per request: medians over all slices; ratios: median of the paired ratios of slices of the same cycle (25th-75th percentile); target svc/OTel: parity within noise\n');
const cpuWidths = [9, 8, 8, 8, 18, 18, 14];
console.log(row(['', 'plain µs', 'OTel µs', 'svc µs', 'OTel/plain', 'svc/OTel', 'p99 ms OTel/svc'], cpuWidths));
for (const framework of FRAMEWORKS) {
  const [plain, otel, svc] = VARIANTS.map((v) => slotOf(framework, v.key));
  const cpu = (slot) => figure(slot, 'cpu').toFixed(1);
  console.log(row([framework, cpu(plain), cpu(otel), cpu(svc), ratio(paired(otel, plain, 'cpu')), ratio(paired(svc, otel, 'cpu')), `${figure(otel, 'p99')} / ${figure(svc, 'p99')}`], cpuWidths));
}

const PHASES = [
  ['start', 'before load'],
  ['warm', 'after warm-up'],
  ['load', 'under load'],
  ['idle', `idle ${IDLE_SECONDS} s after`],
];
console.log('\n  RSS in MB, plain / OTel / svc (svc - OTel): medians over rounds, under load over all slices; no agent ever connects. Target: svc - OTel <= +10 MB');
const rssWidths = [9, ...PHASES.map(() => 24)];
console.log(row(['', ...PHASES.map(([, label]) => label)], rssWidths));
for (const framework of FRAMEWORKS) {
  const [plain, otel, svc] = VARIANTS.map((v) => slotOf(framework, v.key));
  console.log(
    row(
      [framework, ...PHASES.map(([phase]) => `${mb(plain, phase).toFixed(0)} / ${mb(otel, phase).toFixed(0)} / ${mb(svc, phase).toFixed(0)} (${signed(mb(svc, phase) - mb(otel, phase))})`)],
      rssWidths,
    ),
  );
}
