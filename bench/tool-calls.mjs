// The three tools of the MCP session bench (bench/mcp-session.mjs) called in-process, without
// HTTP or the SDK: svc's own cost of a tool call. An engine with 500 tracked operations of 40
// requests each (as bench/mcp-app.mjs fills it), the tool services start-tool-server builds, and
// each tool called as the tool server calls it, idle (no traffic between calls) and busy (every
// operation had a request since the last call). BENCH_TOOL_CALLS sets the calls per case;
// BENCH_TOOLS (names, comma-separated) and BENCH_BUSY (0 or 1) pick cases, for a CPU profile of one.
// Run against the built output: `npm run build && node bench/tool-calls.mjs`.
import { ResolvedConfig } from '../dist/config/resolved-config.js';
import { toolServices } from '../dist/mcp/start-tool-server.js';
import { getExecutiveSummary } from '../dist/mcp/tools/get-executive-summary.js';
import { getIncidentContext } from '../dist/mcp/tools/get-incident-context.js';
import { getServiceHealth } from '../dist/mcp/tools/get-service-health.js';
import { ServiceMetadata } from '../dist/metadata/service-metadata.js';
import { Engine } from '../dist/service-engine.js';

const OPERATIONS = 500;
const CALLS = Number(process.env.BENCH_TOOL_CALLS ?? 1000);

const config = new ResolvedConfig([]);
const registry = { observable: undefined, dependencies: [], consumers: [], operations: new Map(), operationOfSpan: new WeakMap(), version: 0, active: false };
const metadata = new ServiceMetadata(config, registry);
const engine = Engine.fromConfig(config, metadata);
const services = toolServices(config, engine, metadata);
const context = { caller: { agentName: 'bench', role: 'observer', permissions: new Set(['READ']), credential: 'token:bench', tokenAgent: 'bench' }, services };

const names = Array.from({ length: OPERATIONS }, (_, i) => `GET /items-${i}/{id}`);
for (const name of names) for (let r = 0; r < 40; r++) engine.observe(name, 5 + ((r * 7) % 30), r % 20 === 0);
const traffic = () => {
  for (const name of names) engine.observe(name, 5 + Math.random() * 30, Math.random() < 0.05);
};

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const ms = (v) => `${v.toFixed(2)} ms`;
for (const [tool, args] of [
  [getServiceHealth, { format: 'text' }],
  [getIncidentContext, { operation_name: names[7] }],
  [getExecutiveSummary, {}],
]) {
  if (process.env.BENCH_TOOLS && !process.env.BENCH_TOOLS.split(',').includes(tool.name)) continue;
  for (let i = 0; i < 50; i++) await tool.handler(args, context);
  for (const busy of process.env.BENCH_BUSY ? [process.env.BENCH_BUSY === '1'] : [false, true]) {
    const times = [];
    for (let i = 0; i < CALLS; i++) {
      if (busy) traffic();
      const start = performance.now();
      await tool.handler(args, context);
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    console.log(
      `${tool.name}, ${busy ? 'busy' : 'idle'}: p50 ${ms(quantile(times, 0.5))}, p90 ${ms(quantile(times, 0.9))}, p99 ${ms(quantile(times, 0.99))} (${CALLS} calls, ${OPERATIONS} operations)`,
    );
  }
}
