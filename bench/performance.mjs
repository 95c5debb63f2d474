// Cost by framework, written to docs/performance.md: CPU per request, where it goes, first
// response and RSS of one small app (bench/framework-app.cjs: `/users/:id`,
// `/users/:id/orders/:orderId`, a 404) on Express 5, Fastify 5, Koa 3, NestJS 11 and plain
// node:http, each started four ways:
//   plain    no instrumentation
//   OTel     node --import @opentelemetry/auto-instrumentations-node/register (OpenTelemetry's own)
//   svc      node --import ./register.mjs, its default instrumentations, the MCP tool server
//            listening, no agent connected
//   svc+all  the same with OTel's register's instrumentations (svc.telemetry.instrumentations: all)
// OTel and svc get the same environment: traces and logs over OTLP/HTTP protobuf to one
// discarding sink (bench/otlp-sink.mjs), so exporting costs all the same; no metrics; the same
// resource detectors (the cloud ones, which probe metadata endpoints, left out); svc without
// configuration (bench/empty.yml).
//
// Method: all servers run at once, fresh ones every round; the load (a fixed rate, so every
// variant serves the same requests and the exporters keep up) moves from one to the next in
// short slices, and each cycle visits every framework with its variants back to back in rotating
// order, so a burst of noise from other tenants hits them alike. CPU per request is the server's
// CPU time (process.cpuUsage over IPC, so measuring adds no span) over the requests it served in
// the slice; a ratio is the median of the ratios of slices of the same cycle, with their
// 25th-75th percentiles (parity within noise when they include 1). After the paired slices, each
// server serves one more slice under a CPU profile (bench/cpu-profile.mjs splits it into the
// parts of the stack; profiling itself costs time, so the parts add up to more than the slices'
// CPU). First response: from spawning the process to the first 200 response. RSS: 1 s after the
// first response (before any load) and under load.
// Where `taskset` exists, the servers share the last core and the load generator and the sink
// use the others. BENCH_FRAMEWORK_ROUNDS, _CYCLES, _SLICE_SECONDS, _RATE and BENCH_FRAMEWORKS
// (e.g. "fastify,http") change the defaults below; BENCH_NO_DOCS=1 leaves docs/performance.md as it is.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuByPart, PARTS } from './cpu-profile.mjs';
import { median, load as paced, paired, ratio, sleep, start, stats, stop, toolServerUrl } from './paired-servers.mjs';
import { machine, placement, table, writeSection } from './performance-doc.mjs';

const ROUNDS = Number(process.env.BENCH_FRAMEWORK_ROUNDS ?? 3);
const CYCLES = Number(process.env.BENCH_FRAMEWORK_CYCLES ?? 2);
const SLICE_SECONDS = Number(process.env.BENCH_FRAMEWORK_SLICE_SECONDS ?? 2);
const PROFILE_SECONDS = 6;
/** The first seconds of a profile are left out: V8 recompiles what the profiler just started to watch. */
const PROFILE_SKIP_SECONDS = 2;
const WARMUP_SECONDS = 2;
const CONNECTIONS = 16;
const RATE = Number(process.env.BENCH_FRAMEWORK_RATE ?? 1000);
const FRAMEWORKS = (process.env.BENCH_FRAMEWORKS ?? 'express,fastify,koa,nestjs,http').split(',');
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
const svcEnv = (framework) => ({ ...telemetryEnv(framework), SVC_MCP_PORT: '0', SVC_CONFIG_FILE: 'bench/empty.yml' });
const VARIANTS = [
  { key: 'plain', name: 'plain', preload: [], env: () => ({}) },
  { key: 'otel', name: 'OTel', preload: ['--import', '@opentelemetry/auto-instrumentations-node/register'], env: telemetryEnv },
  { key: 'svc', name: 'svc', preload: ['--import', './register.mjs'], env: svcEnv },
  { key: 'svcAll', name: 'svc+all', preload: ['--import', './register.mjs'], env: (framework) => ({ ...svcEnv(framework), SVC_TELEMETRY_INSTRUMENTATIONS: 'all' }) },
];
const slots = FRAMEWORKS.flatMap((framework) =>
  VARIANTS.map((variant) => ({ framework, variant, name: `${framework}/${variant.name}`, slices: [], firstResponse: [], rss: { start: [], load: [] }, profiles: [] })),
);
const slotOf = (framework, key) => slots.find((s) => s.framework === framework && s.variant.key === key);
const profileDir = mkdtempSync(join(tmpdir(), 'svc-bench-profiles-'));

/** Starts a slot's server and waits for its first 200 response (and svc's tool server). */
async function launch(slot) {
  const spawned = performance.now();
  const server = await start([...slot.variant.preload, 'bench/framework-app.cjs', slot.framework], slot.variant.env(slot.framework), { name: slot.name });
  for (;;) {
    const response = await fetch(`http://127.0.0.1:${server.port}${PATHS[0]}`).catch(() => undefined);
    if (response?.status === 200) break;
    await sleep(5);
  }
  slot.firstResponse.push(performance.now() - spawned);
  if (slot.variant.key.startsWith('svc')) await toolServerUrl(server, slot.name);
  return server;
}

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

const ask = (server, message) =>
  new Promise((resolve) => {
    server.child.once('message', resolve);
    server.child.send(message);
  });

async function profiledSlice(slot, server, round) {
  const file = join(profileDir, `${slot.framework}-${slot.variant.key}-${round}.cpuprofile`);
  await ask(server, 'profile-start');
  const running = load(server.port, PROFILE_SECONDS);
  await sleep(PROFILE_SKIP_SECONDS * 1000);
  const counted = await stats(server);
  await running;
  const stopped = await ask(server, { profile: file });
  const requests = stopped.requests - counted.requests;
  slot.profiles.push(Object.fromEntries(Object.entries(cpuByPart(file, PROFILE_SKIP_SECONDS * 1000)).map(([part, micros]) => [part, micros / requests])));
}

const begun = Date.now();
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const servers = new Map();
    for (const slot of slots) servers.set(slot, await launch(slot));
    await sleep(1000);
    for (const [slot, server] of servers) slot.rss.start.push((await stats(server)).rss);
    for (const server of servers.values()) await load(server.port, WARMUP_SECONDS);
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      for (let f = 0; f < FRAMEWORKS.length; f++) {
        const framework = FRAMEWORKS[(f + cycle) % FRAMEWORKS.length];
        for (let v = 0; v < VARIANTS.length; v++) {
          const slot = slotOf(framework, VARIANTS[(v + cycle + round) % VARIANTS.length].key);
          await slice(slot, servers.get(slot));
        }
      }
    }
    for (const [slot, server] of servers) await profiledSlice(slot, server, round);
    await Promise.all([...servers.values()].map((server) => stop(server.child)));
    const cpuOfRound = (slot) => median(slot.slices.slice(-CYCLES).map((s) => s.cpu)).toFixed(1);
    console.log(`round ${round}: median CPU µs/request  ${slots.map((slot) => `${slot.name} ${cpuOfRound(slot)}`).join(' | ')}`);
  }
} finally {
  await stop(sink.child);
  rmSync(profileDir, { recursive: true, force: true });
}

const figure = (slot, key) => median(slot.slices.map((s) => s[key]));
const mb = (values) => (median(values) / MB).toFixed(0);
const otherNames = VARIANTS.filter((v) => v.key !== 'otel');

const cpuTable = table(
  ['', ...VARIANTS.map((v) => `${v.name} µs`), ...otherNames.filter((v) => v.key !== 'plain').map((v) => `${v.name} / OTel`), 'OTel / plain'],
  FRAMEWORKS.map((framework) => {
    const [plain, otel, ...svcs] = VARIANTS.map((v) => slotOf(framework, v.key));
    return [framework, ...[plain, otel, ...svcs].map((slot) => figure(slot, 'cpu').toFixed(1)), ...svcs.map((slot) => ratio(paired(slot, otel, 'cpu'))), ratio(paired(otel, plain, 'cpu'))];
  }),
);
const startTable = table(
  ['', ...VARIANTS.map((v) => `${v.name} first response ms`), ...VARIANTS.map((v) => `${v.name} RSS MB`)],
  FRAMEWORKS.map((framework) => {
    const variants = VARIANTS.map((v) => slotOf(framework, v.key));
    return [framework, ...variants.map((slot) => median(slot.firstResponse).toFixed(0)), ...variants.map((slot) => `${mb(slot.rss.start)} / ${mb(slot.rss.load)}`)];
  }),
);
const p99Table = table(
  ['', ...VARIANTS.map((v) => `${v.name} p99 ms`)],
  FRAMEWORKS.map((framework) => [framework, ...VARIANTS.map((v) => figure(slotOf(framework, v.key), 'p99').toFixed(0))]),
);
const breakdownTables = FRAMEWORKS.map((framework) => {
  const variants = VARIANTS.map((v) => slotOf(framework, v.key));
  const part = (slot, name) => median(slot.profiles.map((p) => p[name]));
  const total = (slot) => median(slot.profiles.map((p) => PARTS.reduce((sum, name) => sum + p[name], 0)));
  return `#### ${framework}\n\n${table(
    ['µs per request', ...VARIANTS.map((v) => v.name)],
    [...PARTS.map((name) => [name, ...variants.map((slot) => part(slot, name).toFixed(1))]), ['total (profiled)', ...variants.map((slot) => total(slot).toFixed(1))]],
  )}`;
});

const document = `## Cost by framework (bench/performance.mjs)

- Measured: ${machine()}, ${placement()}.
- App: \`bench/framework-app.cjs\`, GET ${PATHS.join(', ')} in turn at ${RATE} requests/s over ${CONNECTIONS} connections.
- Variants: plain (no instrumentation); OTel (\`--import @opentelemetry/auto-instrumentations-node/register\`); svc (\`--import @svc/register\`, default instrumentations, tool server listening, no agent); svc+all (svc with \`svc.telemetry.instrumentations: all\`, OTel's register's set). Traces and logs over OTLP/HTTP protobuf to one discarding sink.
- ${ROUNDS} rounds of fresh servers, each ${CYCLES} cycles of ${SLICE_SECONDS} s slices per server after ${WARMUP_SECONDS} s of warm-up, then one ${PROFILE_SECONDS} s profiled slice, its first ${PROFILE_SKIP_SECONDS} s left out (${((Date.now() - begun) / 1000).toFixed(0)} s in all).

### CPU per request

Medians over all slices; a ratio is the median of the paired ratios of slices of the same cycle (25th-75th percentile).

${cpuTable}

### Where the CPU goes

From a CPU profile of each server over the last ${PROFILE_SECONDS - PROFILE_SKIP_SECONDS} s of ${PROFILE_SECONDS} s of the same load, median over rounds (bench/cpu-profile.mjs: each sample charged to the innermost frame of a known part; Node's own frames to the part that called them). The profiler's own cost is included, so totals exceed the figures above.

${breakdownTables.join('\n\n')}

### Start and memory

First response: from spawning the process to the first 200 response. RSS: 1 s after the first response, before any load / under load (medians over rounds).

${startTable}

### Latency

p99 at ${RATE} requests/s (median over slices).

${p99Table}
`;
console.log(`\n${document}`);
writeSection('bench/performance.mjs', document);
