// The three tools of the MCP session bench (bench/mcp-session.mjs) called in-process, without
// HTTP or the SDK: svc's own cost of a tool call. An engine with 500 tracked operations of 40
// requests each (as bench/mcp-app.mjs fills it), the tool services start-tool-server builds, and
// each tool called as the tool server calls it, idle (no traffic between calls) and busy (every
// operation had a request since the last call). BENCH_TOOL_CALLS sets the calls per case;
// BENCH_TOOLS (names, comma-separated) and BENCH_BUSY (0 or 1) pick cases, for a CPU profile of one.
// BENCH_BEFORE=<a dist directory> (another commit's build, inside this tree so its imports resolve)
// runs that build beside this one in the same process, fed the same traffic, calls interleaved.
// Then what 100 idle calls of each tool leave in the old generation.
// Run against the built output: `npm run build && node --expose-gc bench/tool-calls.mjs`.
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';

const OPERATIONS = 500;
const CALLS = Number(process.env.BENCH_TOOL_CALLS ?? 1000);
const WARM_UP = 50;

async function side(dist) {
  const load = (path) => import(new URL(path, `file://${dist}/`).href);
  const { ResolvedConfig } = await load('config/resolved-config.js');
  const { toolServices } = await load('mcp/start-tool-server.js');
  const { incidentResponseFromConfig } = await load('incidents/incident-response.js');
  const { ServiceMetadata } = await load('metadata/service-metadata.js');
  const { Engine } = await load('wiring/service-engine.js');
  const tools = {
    get_service_health: (await load('mcp/tools/get-service-health.js')).getServiceHealth,
    get_incident_context: (await load('mcp/tools/get-incident-context.js')).getIncidentContext,
    get_executive_summary: (await load('mcp/tools/get-executive-summary.js')).getExecutiveSummary,
  };
  const config = new ResolvedConfig([]);
  const registry = { observable: undefined, dependencies: [], consumers: [], operations: new Map(), operationOfSpan: new WeakMap(), version: 0, active: false };
  const metadata = new ServiceMetadata(config, registry);
  const engine = Engine.fromConfig(config, metadata);
  const services = toolServices(config, engine, metadata, incidentResponseFromConfig(config, engine, metadata));
  const context = { caller: { agentName: 'bench', role: 'observer', permissions: new Set(['READ']), credential: 'token:bench', tokenAgent: 'bench' }, services };
  return { engine, tools, context };
}

const sides = { now: await side(fileURLToPath(new URL('../dist', import.meta.url))) };
if (process.env.BENCH_BEFORE) sides.before = await side(process.env.BENCH_BEFORE.replace(/\/$/, ''));
const order = (i) => (i % 2 || !sides.before ? Object.keys(sides) : Object.keys(sides).reverse());

const names = Array.from({ length: OPERATIONS }, (_, i) => `GET /items-${i}/{id}`);
for (const { engine } of Object.values(sides)) for (const name of names) for (let r = 0; r < 40; r++) engine.observe(name, 5 + ((r * 7) % 30), r % 20 === 0);
const traffic = () => {
  for (const name of names) {
    const latency = 5 + Math.random() * 30;
    const error = Math.random() < 0.05;
    for (const { engine } of Object.values(sides)) engine.observe(name, latency, error);
  }
};

const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const figures = (times) => `p50 ${quantile(times, 0.5).toFixed(2)} ms, p90 ${quantile(times, 0.9).toFixed(2)} ms, p99 ${quantile(times, 0.99).toFixed(2)} ms`;
for (const [name, args] of [
  ['get_service_health', { format: 'text' }],
  ['get_incident_context', { operation_name: names[7] }],
  ['get_executive_summary', {}],
]) {
  if (process.env.BENCH_TOOLS && !process.env.BENCH_TOOLS.split(',').includes(name)) continue;
  for (const busy of process.env.BENCH_BUSY ? [process.env.BENCH_BUSY === '1'] : [false, true]) {
    const times = { now: [], before: [] };
    for (let i = 0; i < WARM_UP + CALLS; i++) {
      if (busy) traffic();
      for (const which of order(i)) {
        const { tools, context } = sides[which];
        const start = performance.now();
        await tools[name].handler(args, context);
        if (i >= WARM_UP) times[which].push(performance.now() - start);
      }
    }
    const label = `${name}, ${busy ? 'busy' : 'idle'}`;
    if (!sides.before) console.log(`${label}: ${figures(times.now)} (${CALLS} calls, ${OPERATIONS} operations)`);
    else console.log(`${label}: before ${figures(times.before)}; now ${figures(times.now)}; p50 now/before ${(quantile(times.now, 0.5) / quantile(times.before, 0.5)).toFixed(2)}`);
  }
  // What 100 idle calls leave in the old generation: objects V8 decides to allocate there (pretenuring) are freed only by full collections, pauses of 5-20 ms in an app (docs/mcp.md, Cost).
  // V8 pretenures only once its young generation is at its largest, which this process's may not reach: test/analysis/health-read-old-generation.test.ts measures a health read with a 1 MB one.
  const grown = {};
  for (const [which, { tools, context }] of Object.entries(sides)) {
    globalThis.gc?.();
    const before = oldGeneration();
    for (let i = 0; i < 100; i++) await tools[name].handler(args, context);
    grown[which] = `${((oldGeneration() - before) / 100 / 1024).toFixed(1)} KB`;
  }
  console.log(
    `${name}, old generation per idle call: ${Object.entries(grown)
      .map(([which, kb]) => `${which} ${kb}`)
      .join(', ')}${globalThis.gc ? '' : ' (run with --expose-gc for a clean start)'}`,
  );
}

function oldGeneration() {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space').space_used_size;
}
