// HTTP throughput, p99 latency and server CPU per request of the same fixture server with no
// instrumentation, with plain OTel auto-instrumentation and with @svc/register.
//
// The machine is shared and noisy, so the modes are compared side by side: each round starts a
// fresh server per mode, in a rotating order, warms it up and loads it for a few seconds. A ratio
// is computed within a round (neighbouring runs see the same machine) and the medians over the
// rounds are printed. Fresh processes matter: a process's garbage collector settles into a cheaper
// or a costlier steady state for its whole life (scavenges of ~1.5 or ~5.5 ms here), partly by
// chance and partly by heap size (docs/analysis.md), so one long-lived server per mode would be
// a single draw.
// Traces of all instrumented modes go to one discarding OTLP sink.
// Where `taskset` exists, the servers run on the last core and the load generator and the sink on
// the others, so the server under test never waits for the core that generates its load.
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WARMUP_SECONDS = 2;
const CONNECTIONS = 16;

const serverCore = availableParallelism() - 1;
const pinned = serverCore > 0 && spawnSync('taskset', ['-a', '-pc', `0-${serverCore - 1}`, String(process.pid)]).status === 0;

function start(args, env = {}, { server = true } = {}) {
  const [command, commandArgs] = pinned && server ? ['taskset', ['-c', String(serverCore), process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command, commandArgs, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
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

const load = (port, duration) => autocannon({ url: `http://127.0.0.1:${port}/orders/42`, connections: CONNECTIONS, duration });
const stats = async (port) => (await fetch(`http://127.0.0.1:${port}/__stats`)).json();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const sink = await start(['bench/otlp-sink.mjs'], {}, { server: false });
const telemetryEnv = {
  OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.port}`,
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_LOGS_EXPORTER: 'none',
  OTEL_SERVICE_NAME: 'bench',
  SVC_MCP_PORT: '0',
};
const otelArgs = ['--import', './bench/otel-plain.mjs', 'bench/hello-server.mjs'];
const svcArgs = ['--import', './register.mjs', 'bench/hello-server.mjs'];
// The same server holding 4 MB of application state, as any real service does (see hello-server.mjs).
const appState = { BENCH_APP_STATE_MB: '4' };
const none = { name: 'no instrumentation', args: ['bench/hello-server.mjs'], env: {} };
const otel = { name: 'plain OTel auto-instrumentation', args: otelArgs, env: telemetryEnv };
const otelWithState = { name: 'plain OTel, 4 MB app state', args: otelArgs, env: { ...telemetryEnv, ...appState } };
const svcModes = [
  { name: '@svc/register, no config', args: svcArgs, env: { ...telemetryEnv, SVC_CONFIG_FILE: 'bench/empty.yml' }, versus: otel },
  { name: '@svc/register, bench/svc.yml', args: svcArgs, env: { ...telemetryEnv, SVC_CONFIG_FILE: 'bench/svc.yml' }, versus: otel },
  { name: 'svc, no config, 4 MB app state', args: svcArgs, env: { ...telemetryEnv, ...appState, SVC_CONFIG_FILE: 'bench/empty.yml' }, versus: otelWithState },
];
const modes = [none, otel, otelWithState, ...svcModes];

for (const mode of modes) mode.rounds = [];
for (let round = 1; round <= ROUNDS; round++) {
  for (const mode of modes.map((_, i) => modes[(i + round - 1) % modes.length])) {
    const server = await start(mode.args, mode.env);
    await load(server.port, WARMUP_SECONDS);
    const before = await stats(server.port);
    const result = await load(server.port, SECONDS);
    const after = await stats(server.port);
    await stop(server.child);
    const measured = { rps: result.requests.total / SECONDS, p99: result.latency.p99, cpu: (after.cpuMicros - before.cpuMicros) / (after.requests - before.requests) };
    mode.rounds.push(measured);
    console.log(`round ${String(round).padStart(2)}  ${mode.name.padEnd(32)} ${measured.rps.toFixed(0).padStart(7)} req/s  p99 ${measured.p99} ms  server CPU ${measured.cpu.toFixed(1)} µs/request`);
  }
}
await stop(sink.child);

/** Median over the rounds of `of(a round of mode a) / of(the same round of mode b)`. */
const ratio = (a, b, of) => median(a.rounds.map((r, i) => of(r) / of(b.rounds[i])));
console.log(`\nHTTP, ${CONNECTIONS} connections, ${SECONDS} s runs after ${WARMUP_SECONDS} s of warm-up, ${ROUNDS} rounds with the modes in rotating order; medians`);
console.log(pinned ? `  servers on core ${serverCore}, load generator and sink on the others` : '  not pinned to cores (no taskset or one core): expect more noise');
for (const m of modes) {
  const figure = (key) => median(m.rounds.map((r) => r[key]));
  console.log(`  ${m.name.padEnd(32)} ${figure('rps').toFixed(0).padStart(7)} req/s  p99 ${figure('p99')} ms  server CPU ${figure('cpu').toFixed(1)} µs/request`);
}
console.log(`  plain OTel: ${ratio(otel, none, (r) => r.rps).toFixed(3)} of the uninstrumented throughput`);
for (const svc of svcModes) {
  console.log(`  ${svc.name}: ${ratio(svc, svc.versus, (r) => r.rps).toFixed(3)} of the throughput of ${svc.versus.name} (target >= 0.97); server CPU per request ${ratio(svc, svc.versus, (r) => r.cpu).toFixed(3)} x`);
}
