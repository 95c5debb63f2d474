// HTTP throughput and p99 latency of the same fixture server with no instrumentation, with plain
// OTel auto-instrumentation, and with @svc/register; modes interleaved round by round, medians
// and ratios printed. Traces of both instrumented modes go to the same discarding OTLP sink.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 16;

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

const sink = await start(['bench/otlp-sink.mjs']);
const telemetryEnv = {
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.port}`,
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
  OTEL_SERVICE_NAME: 'bench',
};
const modes = [
  { name: 'no instrumentation', args: ['bench/hello-server.mjs'], env: {} },
  { name: 'plain OTel auto-instrumentation', args: ['--import', './bench/otel-plain.mjs', 'bench/hello-server.mjs'], env: telemetryEnv },
  { name: '@svc/register', args: ['--import', './register.mjs', 'bench/hello-server.mjs'], env: { ...telemetryEnv, SVC_CONFIG_FILE: 'bench/svc.yml', SVC_MCP_ENABLED: 'false' } },
];
const results = new Map(modes.map((m) => [m.name, { rps: [], p99: [] }]));

for (let round = 1; round <= ROUNDS; round++) {
  for (const mode of modes) {
    const server = await start(mode.args, mode.env);
    await run(server.port, 2);
    const result = await run(server.port, SECONDS);
    await stop(server.child);
    results.get(mode.name).rps.push(result.requests.average);
    results.get(mode.name).p99.push(result.latency.p99);
    console.log(`round ${round}  ${mode.name.padEnd(32)} ${result.requests.average.toFixed(0).padStart(7)} req/s  p99 ${result.latency.p99} ms`);
  }
}
await stop(sink.child);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const summary = modes.map((m) => ({ name: m.name, rps: median(results.get(m.name).rps), p99: median(results.get(m.name).p99) }));
console.log(`\nHTTP, ${CONNECTIONS} connections, ${SECONDS} s per run, median of ${ROUNDS} interleaved rounds`);
for (const s of summary) console.log(`  ${s.name.padEnd(32)} ${s.rps.toFixed(0).padStart(7)} req/s  p99 ${s.p99} ms`);
const [none, otel, svc] = summary;
console.log(`  plain OTel / none     ${(otel.rps / none.rps).toFixed(3)} of throughput`);
console.log(`  @svc/register / none  ${(svc.rps / none.rps).toFixed(3)} of throughput`);
console.log(`  @svc/register / OTel  ${(svc.rps / otel.rps).toFixed(3)} of throughput (target >= 0.97)`);
