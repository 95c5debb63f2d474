// The service `npm run eval` drives: node:http, GET /orders/{id} calls two dependencies (inventory,
// pricing) served by stub servers in this process. POST /__fault switches faults; GET /__memory
// reports process.memoryUsage(). Env: INVENTORY_PORT, PRICING_PORT (the stubs' ports, known to the
// runner before start), COLD_START_MS and COLD_START_SECONDS (every request is that much slower
// for the first seconds after listening), FAIL_FIRST (fail the first n requests).
// Prints "LISTENING <port>".
import http from 'node:http';
import { recordChange } from '@svc/register/api';

const fault = { latencyFactor: 1, errorRate: 0, inventory: 'ok', pricing: 'ok', leakBytesPerSecond: 0 };
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

/** About 2 ms of work, lognormal, slowed by a release, a leak or a cold start. */
function work() {
  const base = 2 * Math.exp(0.3 * Math.sqrt(-2 * Math.log(Math.random() || 1e-9)) * Math.cos(2 * Math.PI * Math.random()));
  const leak = 1 + (leakedBytes / 1048576) * 0.02;
  const cold = Date.now() < coldStartUntil() ? coldStartMs : 0;
  return new Promise((resolve) => setTimeout(resolve, base * fault.latencyFactor * leak + cold));
}

async function order(res, id) {
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
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id }));
  } catch (error) {
    res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ error: error.message }));
  }
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
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
