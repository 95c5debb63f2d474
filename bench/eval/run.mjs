// `npm run eval`: the analysis judged on a real service with real traffic. Each scenario starts
// bench/eval/app.mjs fresh under the preload, drives it over HTTP (open-loop or closed-loop),
// injects one fault (or none) and asks the service's own MCP tools what they see, as an agent
// would. It prints, per scenario, the pattern named, the probable cause, the time to detect and
// any incident or status that should not exist. `node bench/eval/run.mjs <name> ...` runs some.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { closedLoop, openLoop } from './load.mjs';
import { SCENARIOS } from './scenarios.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const OPERATION = 'GET /orders/{id}';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startApp(env) {
  const [inventory, pricing] = [await freePort(), await freePort()];
  const child = spawn(
    process.execPath,
    [
      '--import',
      join(ROOT, 'register.mjs'),
      join(HERE, 'app.mjs'),
      `-Dsvc.dependencies[0].health-endpoint=http://127.0.0.1:${inventory}/health`,
      `-Dsvc.dependencies[1].health-endpoint=http://127.0.0.1:${pricing}/health`,
    ],
    {
      cwd: HERE,
      env: {
        PATH: process.env.PATH,
        OTEL_SERVICE_NAME: 'orders-service',
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_LOGS_EXPORTER: 'none',
        OTEL_METRICS_EXPORTER: 'none',
        INVENTORY_PORT: String(inventory),
        PRICING_PORT: String(pricing),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  for (let i = 0; i < 200; i++) {
    const port = /LISTENING (\d+)/.exec(stdout)?.[1];
    const mcp = /MCP tool server listening at (\S+)/.exec(stderr)?.[1];
    if (port && mcp) return { child, port: Number(port), mcp, stderr: () => stderr };
    await sleep(50);
  }
  child.kill();
  throw new Error(`the app did not start:\n${stderr}`);
}

async function connect(url) {
  const client = new Client({ name: 'eval', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return async (name, args = {}) => {
    const result = await client.callTool({ name, arguments: args });
    return { text: result.content.map((c) => c.text ?? '').join('\n'), json: result.structuredContent };
  };
}

function post(port, body) {
  return fetch(`http://127.0.0.1:${port}/__fault`, { method: 'POST', body: JSON.stringify(body) });
}

/** What get_incident_context says of the operation: incident id, severity, patterns, probable cause. */
async function incidentOf(call) {
  const { text } = await call('get_incident_context', { operation_name: OPERATION });
  const id = /^INCIDENT (INC-\S+)/m.exec(text)?.[1];
  const patterns = (/Patterns:\s+(.*)/.exec(text)?.[1] ?? '')
    .split('; ')
    .map((p) => p.split(' (')[0])
    .filter((p) => p && p !== 'none');
  const cause = text
    .split('\n')
    .find((line) => line.includes('PROBABLE CAUSE'))
    ?.trim()
    .replace(/\s+PROBABLE CAUSE.*$/, '');
  return { id, severity: /SEVERITY:\s+(\w+)/.exec(text)?.[1], patterns, cause };
}

async function runScenario(scenario) {
  const app = await startApp(scenario.env ?? {});
  const call = await connect(app.mcp);
  const load = scenario.load.kind === 'open' ? openLoop(app.port, scenario.load.rate) : closedLoop(app.port, scenario.load.clients, scenario.load.thinkMs);
  const started = Date.now();
  const seen = { incidents: new Set(), worstStatus: 'HEALTHY', worstSeverity: undefined, early: [] };
  const rank = { HEALTHY: 0, DEGRADED: 1, CRITICAL: 2 };
  const severityRank = { LOW: 0, MEDIUM: 1, HIGH: 2, CRITICAL: 3 };
  const observe = async (phase) => {
    const health = await call('get_service_health', { format: 'json' });
    const status = health.json?.status ?? 'HEALTHY';
    if (rank[status] > rank[seen.worstStatus]) seen.worstStatus = status;
    const incident = await incidentOf(call);
    if (incident.id) {
      if (!seen.incidents.has(incident.id) && phase === 'before')
        seen.early.push(`${incident.id} (${incident.patterns.join(', ') || 'no pattern'}, ${incident.severity}) at ${((Date.now() - started) / 1000).toFixed(0)}s`);
      seen.incidents.add(incident.id);
      if (seen.worstSeverity === undefined || severityRank[incident.severity] > severityRank[seen.worstSeverity]) seen.worstSeverity = incident.severity;
    }
    return incident;
  };
  let detected;
  try {
    for (const until = started + scenario.warmSeconds * 1000; Date.now() < until; await sleep(2000)) await observe('before');
    const faultAt = Date.now();
    const steps = scenario.fault ? scenario.fault({ post: (body) => post(app.port, body), setRate: load.setRate }) : undefined;
    for (const until = faultAt + scenario.watchSeconds * 1000; Date.now() < until; await sleep(2000)) {
      await steps?.next?.();
      const incident = await observe('after');
      if (scenario.expect && incident.patterns.includes(scenario.expect)) {
        detected = { ...incident, seconds: (Date.now() - faultAt) / 1000 };
        break;
      }
    }
  } finally {
    load.stop();
    app.child.kill('SIGTERM');
  }
  return { scenario, detected, seen, counts: load.counts };
}

function verdict({ scenario, detected, seen }) {
  const unwanted = [...seen.early.map((e) => `incident during warm-up: ${e}`)];
  if (!scenario.expect) {
    if (seen.incidents.size) unwanted.push(`incidents: ${[...seen.incidents].join(', ')}`);
    if (seen.worstStatus === 'CRITICAL') unwanted.push('service CRITICAL');
    if (seen.worstSeverity === 'HIGH' || seen.worstSeverity === 'CRITICAL') unwanted.push(`a ${seen.worstSeverity} incident`);
  }
  const named = !scenario.expect || Boolean(detected);
  const caused = !scenario.cause || Boolean(detected?.cause && scenario.cause.test(detected.cause));
  return { pass: named && caused && unwanted.length === 0, unwanted, named, caused };
}

const only = process.argv.slice(2);
const results = [];
for (const scenario of SCENARIOS.filter((s) => only.length === 0 || only.includes(s.name))) {
  process.stdout.write(`${scenario.name}: ${scenario.description} ... `);
  const result = await runScenario(scenario);
  const v = verdict(result);
  results.push({ ...result, v });
  const d = result.detected;
  console.log(v.pass ? 'PASS' : 'MISS');
  console.log(`  expected:      ${scenario.expect ?? 'nothing'}${scenario.cause ? `, cause ${scenario.cause}` : ''}`);
  console.log(`  named:         ${d ? `${d.patterns.join(', ')} (incident ${d.id}, ${d.severity})` : 'nothing'}`);
  console.log(`  probable cause: ${d?.cause ?? 'none'}`);
  console.log(`  time to detect: ${d ? `${d.seconds.toFixed(0)} s` : '-'}`);
  console.log(`  unwanted:      ${v.unwanted.length ? v.unwanted.join('; ') : 'none'} (worst service status ${result.seen.worstStatus})`);
  console.log(`  traffic:       ${result.counts.sent} requests, ${result.counts.failed} failed`);
}
const passed = results.filter((r) => r.v.pass).length;
console.log(`\n${passed} of ${results.length} scenarios as expected`);
process.exitCode = passed === results.length ? 0 : 1;
