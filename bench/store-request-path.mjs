// The request path with each state store (issue 17: "no measurable change against memory:"): the
// same small app (bench/framework-app.cjs on node:http) under svc three times at once, on
// `memory:`, on SQLite (a temp file) and on Redis (a redis-server started here, when one is on
// the PATH) as one of a fleet of three replicas (the two others beside it, idle, exchanging their
// summaries through Redis as replicas do), while an agent keeps each store busy: every WRITE_INTERVAL_MS it toggles the
// fallback of the app's busiest operation through execute_remediation, which writes an audit
// entry, a change and a remediation record (about 15 records a second, far above what incidents
// and agents write in a normal hour). Paced load at RATE requests/s moves from one server to the
// next in short slices, rotating the order each cycle, as in bench/performance.mjs; CPU per request
// is the server's CPU time over the requests it served in the slice. The ratios are medians of
// the paired ratios of slices of the same cycle (25th-75th percentile): no measurable change when
// they include 1.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { median, load as paced, paired, pinned, ratio, row, serverCore, start, stats, stop, toolServerUrl } from './paired-servers.mjs';
import { printedSection } from './printed-section.mjs';
import { startRedisServer } from './redis-server.mjs';

const { say, write } = printedSection('bench/store-request-path.mjs', 'A fleet on Redis against SQLite');

const ROUNDS = Number(process.env.BENCH_STORE_ROUNDS ?? 6);
const CYCLES = Number(process.env.BENCH_STORE_CYCLES ?? 4);
const SLICE_SECONDS = 2;
const RATE = 1000;
const WRITE_INTERVAL_MS = 200;
const PATHS = ['/users/42', '/users/42/orders/7', '/no/such/route'];
const OPERATION = 'GET /users/{param:int}';

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-request-path-'));
const redis = await startRedisServer(dir);
const REPLICAS = 3;
const stores = [
  { name: 'memory:', url: 'memory:', replicas: 1 },
  { name: 'sqlite', url: `sqlite:${join(dir, 'state.db')}`, replicas: 1 },
  ...(redis ? [{ name: `redis, ${REPLICAS} replicas`, url: redis.url, replicas: REPLICAS }] : []),
];
for (const store of stores) store.slices = [];

/** An agent that toggles the operation's fallback every WRITE_INTERVAL_MS until stopped; counts its successful calls. */
async function busyAgent(url) {
  const client = new Client({ name: 'bench-writer', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  let on = false;
  let calls = 0;
  let failures = 0;
  const timer = setInterval(() => {
    on = !on;
    client.callTool({ name: 'execute_remediation', arguments: { action_name: `${on ? 'enable' : 'disable'}_fallback:${OPERATION}`, reason: 'bench: keep the store busy' } }).then(
      (result) => (result.isError ? failures++ : calls++),
      () => failures++,
    );
  }, WRITE_INTERVAL_MS);
  return {
    counts: () => ({ calls, failures }),
    stop: async () => {
      clearInterval(timer);
      await client.close();
    },
  };
}

try {
  let agentCalls = 0;
  let agentFailures = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    const servers = new Map();
    const besides = [];
    for (const store of stores) {
      const env = {
        SVC_MCP_PORT: '0',
        SVC_CONFIG_FILE: 'bench/empty.yml',
        SVC_STORE_URL: store.url,
        SVC_MCP_ANONYMOUS_ROLE: 'operator',
        SVC_MCP_RATE_LIMIT_PER_MINUTE: '100000',
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_SERVICE_NAME: `bench-store-${round}`,
      };
      servers.set(store, await start(['--import', './register.mjs', 'bench/framework-app.cjs', 'http'], env, { name: store.name }));
      for (let replica = 2; replica <= store.replicas; replica++)
        besides.push(await start(['--import', './register.mjs', 'bench/framework-app.cjs', 'http'], env, { name: `${store.name} #${replica}` }));
    }
    const agents = [];
    for (const [store, server] of servers) {
      await paced(server.port, { duration: 2, rate: RATE, paths: PATHS });
      agents.push(await busyAgent(await toolServerUrl(server, store.name)));
    }
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      for (let i = 0; i < stores.length; i++) {
        const store = stores[(i + cycle + round) % stores.length];
        const server = servers.get(store);
        const before = await stats(server);
        const result = await paced(server.port, { duration: SLICE_SECONDS, rate: RATE, paths: PATHS });
        const after = await stats(server);
        store.slices.push({ cpu: (after.cpuMicros - before.cpuMicros) / (after.requests - before.requests), p99: result.latency.p99 });
      }
    }
    for (const agent of agents) {
      await agent.stop();
      agentCalls += agent.counts().calls;
      agentFailures += agent.counts().failures;
    }
    await Promise.all([...servers.values(), ...besides].map((server) => stop(server.child)));
    say(`round ${round}: median CPU µs/request  ${stores.map((s) => `${s.name} ${median(s.slices.slice(-CYCLES).map((x) => x.cpu)).toFixed(1)}`).join(' | ')}`);
  }
  say(
    `\nThe request path with each store: GET ${PATHS.join(', ')} at ${RATE} requests/s; an agent toggling a fallback every ${WRITE_INTERVAL_MS} ms on each (${agentCalls} remediations written, ${agentFailures} refused or failed); ${ROUNDS} rounds x ${CYCLES} cycles of ${SLICE_SECONDS} s slices`,
  );
  say(pinned ? `  servers on core ${serverCore}, load generator and agents on the others` : '  not pinned to cores: expect more noise');
  const widths = [20, 10, 12, 22, 22];
  say(row(['store', 'CPU µs', 'p99 ms', 'CPU / memory:', 'CPU / sqlite:'], widths));
  const [memory, sqlite] = stores;
  for (const store of stores) {
    const cpu = median(store.slices.map((s) => s.cpu)).toFixed(1);
    const p99 = median(store.slices.map((s) => s.p99));
    const against = (base) => (store === base ? '' : ratio(paired(store, base, 'cpu')));
    say(row([store.name, cpu, p99, against(memory), store === memory ? '' : against(sqlite)], widths));
  }
} finally {
  redis?.stop();
}
await write();
