// Fleet figures (docs/state.md, Fleet): the time for a remediation to reach every replica. Three
// replicas of the orders fixture under the preload on one redis-server (started here on an
// ephemeral port); an agent on replica A executes enable_fallback / disable_fallback in turn
// through the MCP SDK v2 client, and each replica's app is polled over loopback HTTP until it
// serves (or stops serving) its fallback. The time runs from sending the tool call to the last
// replica's first request that shows the change, so it includes A's own tool call and one poll
// round trip. Run against the built output: `npm run build && node bench/fleet.mjs`.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { freePort, startRedisServer } from './redis-server.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_FLEET_RUNS ?? 40);
const REPLICAS = 3;
const OPERATION = 'GET /orders/{id}';

const redis = await startRedisServer(mkdtempSync(join(tmpdir(), 'svc-bench-fleet-')));
if (!redis) process.exit(0);

async function waitFor(pattern, text, what) {
  for (let i = 0; i < 400; i++) {
    const found = pattern.exec(text());
    if (found) return found[1];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not print ${pattern}`);
}

const children = [];
async function replica(id) {
  const inventoryPort = await freePort();
  const child = spawn(process.execPath, ['--import', `${ROOT}register.mjs`, 'app.mjs', `-Dsvc.dependencies[0].health-endpoint=http://127.0.0.1:${inventoryPort}/health`], {
    cwd: join(ROOT, 'fixtures', 'orders-service'),
    env: {
      PATH: process.env.PATH,
      OTEL_SERVICE_NAME: 'orders-service',
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      OTEL_METRICS_EXPORTER: 'none',
      SVC_STORE_URL: redis.url,
      SVC_FLEET_INSTANCE_ID: id,
      SVC_MCP_PORT: '0',
      SVC_MCP_RATE_LIMIT_PER_MINUTE: '100000',
      INVENTORY_PORT: String(inventoryPort),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const port = await waitFor(/LISTENING (\d+)/, () => stdout, id);
  const url = await waitFor(/MCP tool server listening at (\S+)/, () => stderr, id);
  return { id, port, url };
}

try {
  const replicas = await Promise.all(Array.from({ length: REPLICAS }, (_, i) => replica(`replica-${String.fromCharCode(97 + i)}`)));
  const agent = new Client({ name: 'bench-fleet', version: '1' });
  await agent.connect(new StreamableHTTPClientTransport(new URL(replicas[0].url), { requestInit: { headers: { authorization: 'Bearer ops-demo-token' } } }));
  const serves = async (r, fallback) => (await (await fetch(`http://127.0.0.1:${r.port}/orders/1`)).text()).includes('cached') === fallback;
  const times = [];
  for (let run = 0; run < RUNS + 2; run++) {
    const enable = run % 2 === 0;
    const start = performance.now();
    const call = agent.callTool({ name: 'execute_remediation', arguments: { action_name: `${enable ? 'enable' : 'disable'}_fallback:${OPERATION}`, reason: 'bench' } });
    const reached = await Promise.all(
      replicas.map(async (r) => {
        while (!(await serves(r, enable))) if (performance.now() - start > 5000) throw new Error(`${r.id} did not apply the remediation within 5 s`);
        return performance.now() - start;
      }),
    );
    const result = await call;
    if (result.isError) throw new Error(JSON.stringify(result.content));
    // The first two runs warm the connections up.
    if (run >= 2) times.push(Math.max(...reached));
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(
    `remediation reaching every replica (${REPLICAS} replicas, ${RUNS} runs, from the tool call to the last replica serving it): median ${median.toFixed(1)} ms, max ${times.at(-1).toFixed(1)} ms`,
  );
  await agent.close();
} finally {
  for (const child of children) child.kill('SIGTERM');
  redis.stop();
}
