// The service `npm run eval` drives: node:http, GET /orders/{id} calls two dependencies (inventory,
// pricing) served by stub servers in this process. POST /__fault switches faults; GET /__memory
// reports process.memoryUsage(). Env: INVENTORY_PORT, PRICING_PORT (the stubs' ports, known to the
// runner before start), COLD_START_MS and COLD_START_SECONDS (every request is that much slower
// for the first seconds after listening), FAIL_FIRST (fail the first n requests), LATENCY_FACTOR
// (a slow release from the first request: every order takes that many times longer) and ERROR_RATE
// (the fraction of orders that fail from the first request; 1 fails every one). On SIGTERM it
// stops listening and exits 300 ms later, as a service drained by its orchestrator does.
// Prints "LISTENING <port>".
import http from 'node:http';
import { recordChange } from '@svc/register/api';

const fault = { latencyFactor: Number(process.env.LATENCY_FACTOR ?? 1), errorRate: Number(process.env.ERROR_RATE ?? 0), inventory: 'ok', pricing: 'ok', leakBytesPerSecond: 0 };
const leaked = [];
let leakedBytes = 0;
let failFirst = Number(process.env.FAIL_FIRST ?? 0);
const coldStartMs = Number(process.env.COLD_START_MS ?? 0);
const coldStartUntil = () => startedAt + Number(process.env.COLD_START_SECONDS ?? 0) * 1000;
let startedAt = Date.now();

setInterval(() => {
  if (fault.leakBytesPerSecond <= 0) return;
  const chunk = Buffer.alloc(Math.round(fault.leakBytesPerSecond / 10), 1);
  leaked.push(chunk);
  leakedBytes += chunk.length;
}, 100).unref();

function stub(name) {
  return http.createServer((_req, res) => {
    const failing = fault[name] === 'fail';
    setTimeout(() => res.writeHead(failing ? 503 : 200, { 'content-type': 'application/json' }).end(failing ? '{"error":"unavailable"}' : '{"ok":true}'), failing ? 5 : 1);
  });
}

const stubs = { inventory: stub('inventory'), pricing: stub('pricing') };
await Promise.all([
  new Promise((resolve) => stubs.inventory.listen(Number(process.env.INVENTORY_PORT ?? 0), '127.0.0.1', resolve)),
  new Promise((resolve) => stubs.pricing.listen(Number(process.env.PRICING_PORT ?? 0), '127.0.0.1', resolve)),
]);

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
function call(name, path) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: stubs[name].address().port, path, agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${name} answered ${res.statusCode}`))));
      })
      .on('error', reject);
  });
}

/** About 2 ms of work, lognormal, slowed by a leak or a cold start. */
function work() {
  const base = 2 * Math.exp(0.3 * Math.sqrt(-2 * Math.log(Math.random() || 1e-9)) * Math.cos(2 * Math.PI * Math.random()));
  const leak = 1 + (leakedBytes / 1048576) * 0.02;
  const cold = Date.now() < coldStartUntil() ? coldStartMs : 0;
  return new Promise((resolve) => setTimeout(resolve, base * leak + cold));
}

/**
 * The answer to GET /orders/{id}. A slow release (latencyFactor) makes the whole request that
 * many times longer: the time spent on the work and the dependency calls is measured, then
 * stretched, so the operation's own latency (what svc sees) shifts by the factor, not only the
 * work's 2 ms of it.
 */
async function order(res, id) {
  const started = performance.now();
  let status = 200;
  let body;
  await work();
  try {
    if (failFirst > 0) {
      failFirst--;
      throw new Error('first request failed');
    }
    if (Math.random() < fault.errorRate) throw new Error('stock check failed');
    // Both are asked at once; pricing is optional (an order without a price is degraded, not failed).
    const [stock] = await Promise.allSettled([call('inventory', `/stock/${id}`), call('pricing', `/price/${id}`)]);
    if (stock.status === 'rejected') throw stock.reason;
    body = { id };
  } catch (error) {
    status = 502;
    body = { error: error.message };
  }
  if (fault.latencyFactor > 1) await new Promise((resolve) => setTimeout(resolve, (performance.now() - started) * (fault.latencyFactor - 1)));
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const server = http.createServer((req, res) => {
  const match = /^\/orders\/([^/?]+)/.exec(req.url);
  if (req.method === 'GET' && match) return void order(res, match[1]);
  if (req.method === 'POST' && req.url === '/__fault') {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { change, ...settings } = JSON.parse(body || '{}');
      Object.assign(fault, settings);
      if (change) recordChange(change.kind, change.description);
      res.writeHead(204).end();
    });
    return;
  }
  if (req.url === '/__memory') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...process.memoryUsage(), leakedBytes }));
  res.writeHead(404).end();
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  startedAt = Date.now();
  console.log(`LISTENING ${server.address().port}`);
});
for (const signal of ['SIGTERM', 'SIGINT'])
  process.on(signal, () => {
    server.close();
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 300);
  });
