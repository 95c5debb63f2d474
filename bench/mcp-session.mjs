// What an agent costs the app (issue 16, point 5): a real app under the preload (bench/mcp-app.mjs)
// with 500 tracked operations that has served 2000 requests of its own, and MCP SDK v2 clients in
// this process.
// - The first agent session: RSS and heap (after garbage collection) before and after the first
//   client connects, lists the tools and calls get_service_health: the SDK load and its first use.
//   Over 2026-07-28, or the protocol BENCH_MCP_FIRST_PROTOCOL names (2025-11-25).
// - Connecting after that: a fresh client's connect (2026-07-28: server/discover; 2025-11-25:
//   initialize and notifications/initialized), 30 times per protocol.
// - Tool calls, once the app, serving its own requests (from a child process) meanwhile, is past
//   its warm-up (svc's cold-start window, 30 s from its start):
//   get_service_health, get_incident_context and get_executive_summary, 1000 calls
//   each per protocol after 300 untimed ones, one at a time, latency as the agent sees it over loopback HTTP; idle (no
//   traffic between calls) and busy (every operation had a request since the last call). Then the app's
//   bench_ok, which answers "ok": the protocol path alone, for reference. Each call through the SDK
//   client alternates with the same request sent again over plain node:http ("raw"): the
//   answer over loopback without the client SDK's own work, side by side. The app also times
//   its answer to each of them, from the request received to the response written ("the
//   server's answer", bench/mcp-app.mjs): what svc's tool server itself takes. This process's own garbage
//   collections are recorded too: a call's time less the collection pauses within it is the
//   agent's wait without its own collector (the official client allocates some 150-200 KB a call
//   and its young collections pause it for 5-17 ms, whatever the server answers).
// Run against the built output: `npm run build && node bench/mcp-session.mjs`.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startMcpApp } from './mcp-app-process.mjs';
import { printedSection } from './printed-section.mjs';

const OPERATIONS = 500;
const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 1000);
const CONNECTS = 30;
const WARM_UP_CALLS = 300;
const FIRST_PROTOCOL = process.env.BENCH_MCP_FIRST_PROTOCOL ?? '2026-07-28';
const section = printedSection('bench/mcp-session.mjs', 'An agent session');
const MB = 1024 * 1024;

const COLD_START_WINDOW_MS = 30_000;
const startedAt = Date.now();
const app = await startMcpApp();
const { url, get, port } = app;

const client = (protocol) =>
  protocol === '2026-07-28' ? new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } }) : new Client({ name: 'bench', version: '1' });
const connect = async (protocol) => {
  const c = client(protocol);
  const start = performance.now();
  await c.connect(new StreamableHTTPClientTransport(url));
  return { client: c, ms: performance.now() - start };
};
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const ms = (v) => `${v.toFixed(2)} ms`;

/** This process's garbage collection pauses, [start, end] in performance.now() time. */
const collections = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) collections.push([entry.startTime, entry.startTime + entry.duration]);
}).observe({ entryTypes: ['gc'] });
/** How long this process was paused collecting between `start` and `end`. */
const collectingWithin = (start, end) => collections.reduce((sum, [from, to]) => sum + Math.max(0, Math.min(end, to) - Math.max(start, from)), 0);

try {
  const { operations } = await get(`/__fill?count=${OPERATIONS}`);
  // An app that serves: its own requests come first (its heap has grown to its working size), then the agent.
  for (let i = 0; i < 2000; i++) await fetch(`http://127.0.0.1:${port}/orders/${i}`).then((r) => r.arrayBuffer());
  const before = await get('/__memory');
  const first = await connect(FIRST_PROTOCOL);
  await first.client.listTools();
  await first.client.callTool({ name: 'get_service_health', arguments: {} });
  const after = await get('/__memory');
  section.say(`app with ${operations} tracked operations: RSS ${(before.rss / MB).toFixed(1)} MB before any agent`);
  section.say(
    `first agent session (connect ${FIRST_PROTOCOL}, tools/list, get_service_health): RSS +${((after.rss - before.rss) / MB).toFixed(1)} MB, heap +${((after.heapUsed - before.heapUsed) / MB).toFixed(1)} MB, connect ${ms(first.ms)} (loads the SDK)`,
  );
  await first.client.close();

  for (const protocol of ['2026-07-28', '2025-11-25']) {
    const times = [];
    for (let i = 0; i < CONNECTS; i++) {
      const { client: c, ms: took } = await connect(protocol);
      times.push(took);
      await c.close();
    }
    section.say(`connect ${protocol} after the first load: median ${ms(quantile(times, 0.5))}, max ${ms(Math.max(...times))} (${CONNECTS} connects)`);
  }

  // An agent usually arrives at an app that has served for a while: the app serves its own requests
  // until it is past its warm-up (with 5 s for its own start), then the calls are timed. Its traffic
  // comes from another process, as an app's does: this one's heap stays the agent's.
  await new Promise((resolve, reject) => {
    const deadline = startedAt + COLD_START_WINDOW_MS + 5000;
    const load = spawn(
      process.execPath,
      ['-e', `(async () => { for (let i = 0; Date.now() < ${deadline}; i++) await fetch('http://127.0.0.1:${port}/orders/' + i).then((r) => r.arrayBuffer()); })()`],
      { stdio: 'inherit' },
    );
    load.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the app's traffic generator exited with ${code}`))));
  });

  // The SDK client's requests, captured to be sent again as they are over a kept-alive node:http connection.
  const sdkFetch = globalThis.fetch;
  let capture;
  globalThis.fetch = (input, init) => {
    if (capture && typeof init?.body === 'string' && init.body.includes('"tools/call"')) capture.request = { headers: Object.fromEntries(new Headers(init.headers)), body: init.body };
    return sdkFetch(input, init);
  };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  // Busy cases' traffic over a connection of its own through node:http, not fetch: this process's work stays the agent's.
  const trafficAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const traffic = () =>
    new Promise((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${port}/__traffic`, { agent: trafficAgent }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  const raw = ({ headers, body }) =>
    new Promise((resolve, reject) => {
      const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.on('data', () => {});
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`raw tools/call answered ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    });

  for (const protocol of ['2026-07-28', '2025-11-25']) {
    const { client: c } = await connect(protocol);
    for (const [name, args] of [
      ['get_service_health', {}],
      ['get_incident_context', { operation_name: 'GET /items-7/{id}' }],
      ['get_executive_summary', {}],
      ['bench_ok', {}],
    ]) {
      // Untimed first calls: the JIT's warm-up (a fresh app optimizes some 450 functions over its first 1000 calls).
      capture = {};
      for (let i = 0; i < WARM_UP_CALLS; i++) await c.callTool({ name, arguments: args });
      const { request } = capture;
      capture = undefined;
      for (let i = 0; i < WARM_UP_CALLS; i++) await raw(request);
      // Idle: no traffic between calls, so what the tools read is unchanged; busy: every operation had a request since the last call.
      for (const busy of [false, true]) {
        await get('/__answer-times');
        const times = { sdk: [], raw: [] };
        const sdkCalls = [];
        for (let i = 0; i < CALLS; i++) {
          for (const [way, call] of [
            ['sdk', () => c.callTool({ name, arguments: args })],
            ['raw', () => raw(request)],
          ]) {
            if (busy) await traffic();
            const start = performance.now();
            await call();
            const end = performance.now();
            times[way].push(end - start);
            if (way === 'sdk') sdkCalls.push([start, end]);
          }
        }
        // Collection entries arrive after the collection: let the observer take the last ones.
        await new Promise((resolve) => setTimeout(resolve, 10));
        const paused = sdkCalls.map(([start, end]) => collectingWithin(start, end));
        const lessCollections = sdkCalls.map(([start, end], i) => end - start - paused[i]);
        const figures = (t) => `p50 ${ms(quantile(t, 0.5))}, p99 ${ms(quantile(t, 0.99))}`;
        const answers = await get('/__answer-times');
        section.say(
          `${protocol} ${name}, ${busy ? 'busy' : 'idle'}: ${figures(times.sdk)}; less the client's collections p99 ${ms(quantile(lessCollections, 0.99))} (${paused.filter((p) => p > 0).length} calls paused by one); raw ${figures(times.raw)}; the server's answer ${figures(answers)} (${CALLS} calls each way; the server's answer over all ${answers.length}; ${operations} operations)`,
        );
      }
    }
    await c.close();
  }
  const end = await get('/__memory');
  section.say(`after all calls: RSS ${(end.rss / MB).toFixed(1)} MB, heap ${(end.heapUsed / MB).toFixed(1)} MB`);
} finally {
  await app.stop();
}
// A run with other calls or another first protocol is a variant: the section stays the default run's.
if (process.env.BENCH_MCP_CALLS === undefined && process.env.BENCH_MCP_FIRST_PROTOCOL === undefined) await section.write();
