// HTTP throughput and p99 latency of the same fixture server with no instrumentation, with plain
// OTel auto-instrumentation, and with @svc/register; modes interleaved round by round, medians
// and ratios printed. Traces of both instrumented modes go to the same discarding OTLP sink.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = 16;
// ports of the fixture servers are ephemeral; the MCP server is not part of this measurement

function start(args, env = {}) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /LISTENING (\d+)/.exec(out);
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

async function stop(child) {
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const run = (port, duration) => autocannon({ url: `http://127.0.0.1:${port}/orders/42`, connections: CONNECTIONS, duration });
const stats = async (port) => (await fetch(`http://127.0.0.1:${port}/__stats`)).json();

const sink = await start(['bench/otlp-sink.mjs']);
const telemetryEnv = {
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.port}`,
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
  OTEL_SERVICE_NAME: 'bench',
  SVC_MCP_PORT: '0',
};
const modes = [
  { name: 'no instrumentation', args: ['bench/hello-server.mjs'], env: {} },
  { name: 'plain OTel auto-instrumentation', args: ['--import', './bench/otel-plain.mjs', 'bench/hello-server.mjs'], env: telemetryEnv },
  { name: '@svc/register, no config', args: ['--import', './register.mjs', 'bench/hello-server.mjs'], env: { ...telemetryEnv, SVC_CONFIG_FILE: 'bench/empty.yml' } },
  { name: '@svc/register, bench/svc.yml', args: ['--import', './register.mjs', 'bench/hello-server.mjs'], env: { ...telemetryEnv, SVC_CONFIG_FILE: 'bench/svc.yml' } },
];
const results = new Map(modes.map((m) => [m.name, { rps: [], p99: [], cpu: [] }]));

for (let round = 1; round <= ROUNDS; round++) {
  // each round starts with a different mode, so no mode always runs first or last
  const order = modes.map((_, i) => modes[(i + round - 1) % modes.length]);
  for (const mode of order) {
    const server = await start(mode.args, mode.env);
    await run(server.port, 2);
    const before = await stats(server.port);
    const result = await run(server.port, SECONDS);
    const after = await stats(server.port);
    await stop(server.child);
    const cpuPerRequest = (after.cpuMicros - before.cpuMicros) / (after.requests - before.requests);
    const entry = results.get(mode.name);
    entry.rps.push(result.requests.average);
    entry.p99.push(result.latency.p99);
    entry.cpu.push(cpuPerRequest);
    console.log(`round ${round}  ${mode.name.padEnd(32)} ${result.requests.average.toFixed(0).padStart(7)} req/s  p99 ${result.latency.p99} ms  server CPU ${cpuPerRequest.toFixed(1)} µs/request`);
  }
}
await stop(sink.child);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const summary = modes.map((m) => ({ name: m.name, rps: median(results.get(m.name).rps), p99: median(results.get(m.name).p99), cpu: median(results.get(m.name).cpu) }));
console.log(`\nHTTP, ${CONNECTIONS} connections, ${SECONDS} s per run, median of ${ROUNDS} interleaved rounds`);
for (const s of summary) console.log(`  ${s.name.padEnd(32)} ${s.rps.toFixed(0).padStart(7)} req/s  p99 ${s.p99} ms  server CPU ${s.cpu.toFixed(1)} µs/request`);
const [none, otel, ...svcModes] = summary;
console.log(`  plain OTel / none: ${(otel.rps / none.rps).toFixed(3)} of throughput`);
for (const svc of svcModes) {
  console.log(`  ${svc.name}: ${(svc.rps / none.rps).toFixed(3)} of none, ${(svc.rps / otel.rps).toFixed(3)} of plain OTel throughput (target >= 0.97); server CPU per request ${(svc.cpu / otel.cpu).toFixed(3)} x plain OTel`);
}
