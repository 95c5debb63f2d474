// The MCP benchmark's app (bench/mcp-session.mjs): plain node:http under the preload, run with
// --expose-gc. GET /__fill tracks `count` operations of 40 requests each in svc's engine (as its
// span processor would), GET /__traffic adds one request to each, GET /__memory reports the
// process's memory after garbage collection, GET /__answer-times the time svc's tool server took
// to answer each POST /mcp since the last ask (request received to response written, ms, as
// node:http's diagnostics channel sees them, the way a server-side latency metric measures it).
// The tool bench_ok answers "ok": the protocol path alone, the floor under the other tools' times.
// Prints "LISTENING <port>".
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import { currentEngine, registerTool } from '@svc/register/api';

let answerTimes = [];
diagnostics.subscribe('http.server.request.start', ({ request, response }) => {
  if (request.method !== 'POST' || !request.url.startsWith('/mcp')) return;
  const start = performance.now();
  response.once('finish', () => answerTimes.length < 100_000 && answerTimes.push(performance.now() - start));
});

registerTool({ name: 'bench_ok', description: 'Answers ok', permission: 'READ', readOnly: true }, () => 'ok');

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  if (url.pathname === '/__fill') {
    const count = Number(url.searchParams.get('count') ?? 500);
    const engine = currentEngine();
    for (let i = 0; i < count; i++) for (let r = 0; r < 40; r++) engine.observe(`GET /items-${i}/{id}`, 5 + ((r * 7) % 30), r % 20 === 0);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ operations: engine.health.operations().length }));
  } else if (url.pathname === '/__traffic') {
    // One request for each tracked operation: an app whose every operation had traffic since the agent's last call.
    const engine = currentEngine();
    for (const name of engine.health.operations()) engine.observe(name, 5 + Math.random() * 30, Math.random() < 0.05);
    res.writeHead(204).end();
  } else if (url.pathname === '/__answer-times') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answerTimes));
    answerTimes = [];
  } else if (url.pathname === '/__memory') {
    globalThis.gc();
    globalThis.gc();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(process.memoryUsage()));
  } else res.writeHead(404).end();
});
server.listen(0, '127.0.0.1', () => console.log(`LISTENING ${server.address().port}`));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close());
