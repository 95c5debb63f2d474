// `npm run eval` (about 31 minutes for all 17 scenarios): the analysis judged on a real service with
// real traffic. Each scenario starts bench/eval/app.mjs fresh under the preload, on a state store
// of its own (a temporary directory, removed afterwards; the restart scenario's two runs share
// one), drives it over HTTP (open-loop or closed-loop), injects one fault (or none) and asks the
// service's own MCP tools what they see, as an agent would: every 1 s until the fault is named,
// then every 2 s, printing a line at each of the scenario's read times. It judges the time to
// detect against issue 29's targets, whether the last read still reports the fault as strongly as
// the detection did, and any incident or status that should not exist; it ends with a table and
// exits 1 on any MISS. `node bench/eval/run.mjs <name> ...` runs some.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { closedLoop, LATE_MS, openLoop, phaseSummary } from './load.mjs';
import { RATE_SERIES, SCENARIOS } from './scenarios.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const CONFIGS = { configured: 'svc.yml', unconfigured: 'svc-unconfigured.yml', partial: 'svc-partial.yml' };
/** The orders operation, however it is named: `GET /orders/{id}` when configured, an inferred template otherwise. */
const ORDERS = /^GET \/orders\//;
const CONFIGURED_NAME = 'GET /orders/{id}';
const STATUS_RANK = { HEALTHY: 0, DEGRADED: 1, CRITICAL: 2 };
const SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];
const severityRank = (severity) => SEVERITIES.indexOf(severity);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts the app under the preload on `storeDir`'s state store (its working directory too). */
async function startApp(scenario, storeDir, { env = {}, args = [] } = {}) {
  const config = scenario.config ?? 'configured';
  const [inventory, pricing] = [await freePort(), await freePort()];
  // Only the configured service declares its dependencies; their health endpoints come as -D
  // arguments since their ports are chosen at each start.
  const dependencies =
    config === 'configured' ? [`-Dsvc.dependencies[0].health-endpoint=http://127.0.0.1:${inventory}/health`, `-Dsvc.dependencies[1].health-endpoint=http://127.0.0.1:${pricing}/health`] : [];
  const child = spawn(process.execPath, ['--import', join(ROOT, 'register.mjs'), join(HERE, 'app.mjs'), ...dependencies, ...args], {
    cwd: storeDir,
    env: {
      PATH: process.env.PATH,
      OTEL_SERVICE_NAME: 'orders-service',
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      OTEL_METRICS_EXPORTER: 'none',
      SVC_CONFIG_FILE: join(HERE, CONFIGS[config]),
      SVC_STORE_URL: `sqlite:${join(storeDir, 'state.db')}`,
      INVENTORY_PORT: String(inventory),
      PRICING_PORT: String(pricing),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let gone = false;
  void exited.then(() => (gone = true));
  for (let i = 0; i < 400 && !gone; i++) {
    const port = /LISTENING (\d+)/.exec(stdout)?.[1];
    const mcp = /MCP tool server listening at (\S+)/.exec(stderr)?.[1];
    if (port && mcp) return { child, port: Number(port), mcp, exited, stderr: () => stderr };
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`the app did not start:\n${stderr}`);
}

/** SIGTERM, then the exit (SIGKILL after 5 s): how long it took and how it ended. Prints what svc said on stderr besides its MCP address. */
async function stopApp(app, label = '') {
  const started = Date.now();
  app.child.kill('SIGTERM');
  const timer = setTimeout(() => app.child.kill('SIGKILL'), 5000);
  const end = await app.exited;
  clearTimeout(timer);
  const said = app
    .stderr()
    .split('\n')
    .filter((line) => line.trim() && !line.includes('MCP tool server listening at'));
  for (const line of said.slice(0, 8)) console.log(`  ${label}app stderr: ${line.slice(0, 300)}`);
  if (said.length > 8) console.log(`  ${label}app stderr: … ${said.length - 8} more lines`);
  return { ...end, ms: Date.now() - started };
}

async function connect(url) {
  const client = new Client({ name: 'eval', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const call = async (name, args = {}) => {
    const result = await client.callTool({ name, arguments: args });
    return { text: result.content.map((c) => c.text ?? '').join('\n'), json: result.structuredContent };
  };
  return { call, close: () => client.close().catch(() => {}) };
}

function post(port, body) {
  return fetch(`http://127.0.0.1:${port}/__fault`, { method: 'POST', body: JSON.stringify(body) }).catch(() => {});
}

/** What get_incident_context says of an operation: incident id, severity, patterns, score, summary, probable cause. */
async function incidentOf(call, operation) {
  const { text } = await call('get_incident_context', { operation_name: operation });
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
  const score = Number(/Anomaly score:\s+([\d.]+)/.exec(text)?.[1] ?? Number.NaN);
  return { id, severity: id ? /SEVERITY:\s+(\w+)/.exec(text)?.[1] : undefined, patterns, cause, score, summary: /SUMMARY:\s+(.*)/.exec(text)?.[1] };
}

/**
 * One read of the tools: get_service_health (JSON) and get_incident_context of the orders
 * operation; with `allOperations`, the incident context of every other operation listed too (an
 * incident on any of them counts against a quiet phase). `at` is when the answers were in.
 */
async function observe(ctx, allOperations) {
  const health = await ctx.call('get_service_health', { format: 'json' });
  const json = health.json ?? JSON.parse(health.text);
  const operations = json.operations ?? [];
  const op = operations.find((o) => ORDERS.test(o.name));
  if (op) ctx.operation = op.name;
  const incident = await incidentOf(ctx.call, ctx.operation ?? CONFIGURED_NAME);
  const others = [];
  if (allOperations)
    for (const other of operations) {
      if (other.name === ctx.operation) continue;
      const found = await incidentOf(ctx.call, other.name);
      if (found.id) others.push({ operation: other.name, ...found });
    }
  return { at: Date.now(), status: json.status ?? 'HEALTHY', reasons: json.reasons ?? [], op, incident, others, store: json.store };
}

function percent(x) {
  return `${(100 * x).toFixed(1)}%`;
}

function msText(x) {
  return Number.isFinite(x) ? (x < 10 ? `${x.toFixed(1)}ms` : `${Math.round(x)}ms`) : 'n/a';
}

/** `DEGRADED  GET /orders/{id} 1200 req err 0.0% p50 10ms p99 22ms ELEVATED (...)  INC-... HIGH latency_degradation score 4.10 | summary` */
function sampleLine(sample) {
  const op = sample.op;
  const opText = op
    ? `${op.name} ${op.requestCount} req err ${percent(op.errorRate)} p50 ${msText(op.p50Ms)} p99 ${msText(op.p99Ms)} ${
        op.elevated ? `ELEVATED (${op.elevatedReasons.join('; ')})` : op.baselineState === 'learning' ? `learning (${op.samples})` : 'within baseline'
      }`
    : 'orders operation not listed';
  const i = sample.incident;
  const incidentText = i.id ? `${i.id} ${i.severity} ${i.patterns.join(', ') || 'no pattern'} score ${Number.isFinite(i.score) ? i.score.toFixed(2) : '?'}` : 'no incident';
  return `${sample.status.padEnd(8)}  ${opText}  | ${incidentText}${i.id && i.summary ? ` | ${i.summary}` : ''}`;
}

function stamp(t) {
  return `[${t >= 0 ? ' ' : ''}${t.toFixed(1).padStart(6)}s]`;
}

/** Keeps the worst status, the longest not-HEALTHY stretch and the incidents seen. */
function newSeen() {
  return {
    status: 'HEALTHY',
    worstStatus: 'HEALTHY',
    worstSeverity: undefined,
    unhealthySince: undefined,
    unhealthyReasons: new Set(),
    longestUnhealthyMs: 0,
    longestUnhealthyReasons: [],
    incidents: new Map(),
    unwanted: [],
    storeNote: undefined,
  };
}

function track(seen, sample, phase, t, quiet) {
  if (STATUS_RANK[sample.status] > STATUS_RANK[seen.worstStatus]) seen.worstStatus = sample.status;
  if (sample.status !== seen.status) {
    console.log(`  ${stamp(t)} status  ${seen.status} -> ${sample.status}${sample.reasons.length ? `: ${sample.reasons.join('; ').slice(0, 300)}` : ''}`);
    seen.status = sample.status;
  }
  if (sample.status !== 'HEALTHY') {
    if (seen.unhealthySince === undefined) {
      seen.unhealthySince = sample.at;
      seen.unhealthyReasons = new Set();
    }
    for (const reason of sample.reasons) seen.unhealthyReasons.add(reason);
    if (sample.at - seen.unhealthySince >= seen.longestUnhealthyMs) {
      seen.longestUnhealthyMs = sample.at - seen.unhealthySince;
      seen.longestUnhealthyReasons = [...seen.unhealthyReasons];
    }
  } else seen.unhealthySince = undefined;
  if (sample.store && sample.store !== seen.storeNote) {
    seen.storeNote = sample.store;
    console.log(`  ${stamp(t)} store: ${sample.store}`);
  }
  // Before the fault (warm-up, a first run) and in a quiet scenario nothing may open, nor the service be CRITICAL.
  const calm = quiet || phase !== 'fault';
  if (calm && sample.status === 'CRITICAL' && !seen.unwanted.some((u) => u.startsWith('service CRITICAL'))) {
    seen.unwanted.push(`service CRITICAL in ${phase} at ${t.toFixed(0)}s (${sample.reasons.join('; ')})`);
    console.log(`  ${stamp(t)} UNWANTED service CRITICAL: ${sample.reasons.join('; ')}`);
  }
  for (const incident of [{ operation: sample.op?.name ?? CONFIGURED_NAME, ...sample.incident }, ...sample.others]) {
    if (!incident.id) continue;
    if (seen.worstSeverity === undefined || severityRank(incident.severity) > severityRank(seen.worstSeverity)) seen.worstSeverity = incident.severity;
    if (seen.incidents.has(incident.id)) continue;
    const text = `${incident.id} on ${incident.operation} (${incident.patterns.join(', ') || 'no pattern'}, ${incident.severity}) in ${phase} at ${t.toFixed(0)}s`;
    seen.incidents.set(incident.id, text);
    if (calm) {
      seen.unwanted.push(`incident ${text}`);
      console.log(`  ${stamp(t)} UNWANTED incident ${text}`);
    }
  }
}

/** Normal traffic with reads every 2 s (every operation's incident context): a warm-up, a quiet scenario, a first run. */
async function calmPhase(ctx, phase, untilMs, printEveryMs, quiet) {
  let nextPrint = Date.now();
  while (Date.now() < untilMs) {
    const started = Date.now();
    const sample = await observe(ctx, true);
    const t = (sample.at - ctx.onset) / 1000;
    track(ctx.seen, sample, phase, t, quiet);
    if (sample.at >= nextPrint) {
      console.log(`  ${stamp(t)} ${phase.padEnd(7)} ${sampleLine(sample)}`);
      nextPrint += printEveryMs;
    }
    await sleep(Math.max(0, Math.min(untilMs - Date.now(), started + 2000 - Date.now())));
  }
}

/** The scenario's load; its first phase is 'before' the fault, or 'fault' for a fault there from the first request. */
function startLoad(scenario, port, phase) {
  return scenario.load.kind === 'open' ? openLoop(port, scenario.load.rate, phase) : closedLoop(port, scenario.load.clients, scenario.load.thinkMs, phase);
}

function trafficText(phases) {
  return phases
    .map(phaseSummary)
    .filter((p) => p.sent > 0)
    .map((p) => `${p.name} ${p.sent} sent (${p.rate.toFixed(p.rate < 10 ? 1 : 0)}/s) ${p.failed} failed ${p.late} late ${p.unanswered} unanswered, client p50 ${msText(p.p50)} p99 ${msText(p.p99)}`)
    .join(' | ');
}

/**
 * Where the load was not what the scenario says: the generator behind its schedule for over 5 % of
 * its requests (a few late ones are the shared machine's noise; every count is printed), or the
 * app not keeping up before any fault.
 */
function loadProblems(scenario, runs) {
  const problems = [];
  for (const { label, phases } of runs)
    for (const p of phases.map(phaseSummary)) {
      if (p.sent === 0) continue;
      if (p.late > Math.max(10, 0.05 * p.sent)) problems.push(`${label}${p.name}: ${p.late} of ${p.sent} requests sent over ${LATE_MS} ms late (generator behind)`);
      const normal = p.name === 'before' && !scenario.env?.COLD_START_MS && !scenario.env?.LATENCY_FACTOR && p.seconds >= 20;
      if (normal && p.unanswered > Math.max(5, 0.005 * p.sent)) problems.push(`${label}${p.name}: ${p.unanswered} of ${p.sent} requests never answered`);
      if (normal && p.p99 > 250) problems.push(`${label}${p.name}: client p99 ${msText(p.p99)} under normal load (app not keeping up)`);
    }
  return problems;
}

/** Names an expected pattern, on an open incident. */
function names(scenario, sample) {
  return Boolean(sample.incident.id && sample.incident.patterns.some((p) => scenario.expect.includes(p)));
}

/** The fault is a detection: named, and as severe as the scenario requires. */
function detects(scenario, sample) {
  return names(scenario, sample) && (!scenario.severity || severityRank(sample.incident.severity) >= severityRank(scenario.severity));
}

/** Why the last read does not report the fault as strongly as the detection did (empty: it does). */
function weakerThanDetection(scenario, last, detected) {
  if (!last) return ['no read'];
  const why = [];
  if (!last.incident.id) why.push('no open incident');
  else if (!names(scenario, last)) why.push(`incident names ${last.incident.patterns.join(', ') || 'no pattern'}`);
  const floor = detected?.incident.severity ?? scenario.severity;
  if (last.incident.id && floor && severityRank(last.incident.severity) < severityRank(floor)) why.push(`severity ${last.incident.severity}, was ${floor}`);
  if (last.status === 'HEALTHY') why.push('service HEALTHY');
  if (!last.op) why.push('operation not listed');
  else if (!last.op.elevated) why.push(`operation ${last.op.baselineState === 'learning' ? 'learning' : 'within baseline'}`);
  if (!(last.incident.score > 0)) why.push(`anomaly score ${Number.isFinite(last.incident.score) ? last.incident.score.toFixed(2) : 'none'}`);
  return why;
}

async function runScenario(scenario) {
  const storeDir = mkdtempSync(join(tmpdir(), 'svc-eval-'));
  const seen = newSeen();
  const runs = [];
  const quiet = !scenario.expect;
  const result = { scenario, seen, runs, reads: [], lapses: 0 };
  let app;
  let load;
  let mcp;
  try {
    if (scenario.before) {
      const first = await startApp(scenario, storeDir, scenario.before);
      const firstMcp = await connect(first.mcp);
      const firstLoad = startLoad(scenario, first.port, 'before');
      runs.push({ label: 'run 1 ', phases: firstLoad.phases });
      const ctx = { call: firstMcp.call, seen, onset: Date.now() + scenario.before.seconds * 1000 };
      try {
        await calmPhase(ctx, 'run 1', ctx.onset, 15000, quiet);
      } finally {
        firstLoad.stop();
        await firstMcp.close();
        const end = await stopApp(first, 'run 1 ');
        console.log(`  run 1 stopped by SIGTERM: exit ${end.code ?? end.signal} after ${end.ms} ms; run 2 starts on the same store`);
      }
    }
    app = await startApp(scenario, storeDir, scenario);
    mcp = await connect(app.mcp);
    load = startLoad(scenario, app.port, scenario.warmSeconds > 0 || !scenario.expect ? 'before' : 'fault');
    runs.push({ label: scenario.before ? 'run 2 ' : '', phases: load.phases });
    const ctx = { call: mcp.call, seen, onset: Date.now() + scenario.warmSeconds * 1000 };
    if (scenario.warmSeconds > 0) await calmPhase(ctx, quiet ? 'quiet' : 'warm-up', ctx.onset, quiet ? 15000 : 20000, quiet);
    if (quiet) return result;

    // The fault: its onset is now (or the start of the load, for a fault there from the first request).
    ctx.onset = Date.now();
    if (scenario.warmSeconds > 0) load.mark('fault');
    const steps = scenario.fault?.({ post: (body) => post(app.port, body), setRate: load.setRate });
    const reads = scenario.reads ?? [];
    const end = ctx.onset + 1000 * (reads.length ? reads.at(-1) : scenario.watchSeconds);
    let next = 0;
    let inLapse = false;
    for (;;) {
      const started = Date.now();
      steps?.next();
      const sample = await observe(ctx, false);
      const t = (sample.at - ctx.onset) / 1000;
      track(seen, sample, 'fault', t, false);
      result.last = { ...sample, t };
      if (!result.firstNamed && names(scenario, sample)) result.firstNamed = { ...sample, t };
      if (!result.detected && detects(scenario, sample)) {
        result.detected = { ...sample, t };
        console.log(`  ${stamp(t)} DETECT  ${sampleLine(sample)}${sample.incident.cause ? ` | cause: ${sample.incident.cause}` : ''}`);
      } else if (result.detected) {
        // After the detection: a read that no longer names the fault is a lapse (printed once per stretch).
        const lapse = !names(scenario, sample);
        if (lapse && !inLapse) console.log(`  ${stamp(t)} LAPSE   ${sampleLine(sample)}`);
        if (lapse) result.lapses++;
        inLapse = lapse;
      }
      let isRead = false;
      while (next < reads.length && t >= reads[next] - 0.5) {
        isRead = true;
        next++;
      }
      if (isRead) {
        result.reads.push({ ...sample, t });
        console.log(`  ${stamp(t)} read    ${sampleLine(sample)}`);
      }
      if (reads.length ? next >= reads.length : result.detected || Date.now() >= end) break;
      const pollMs = result.detected ? 2000 : 1000;
      const wake = Math.min(started + pollMs, next < reads.length ? ctx.onset + reads[next] * 1000 : Number.POSITIVE_INFINITY);
      await sleep(Math.max(0, wake - Date.now()));
    }
    return result;
  } catch (error) {
    result.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
    return result;
  } finally {
    load?.stop();
    await mcp?.close();
    if (app) await stopApp(app, scenario.before ? 'run 2 ' : '');
    rmSync(storeDir, { recursive: true, force: true });
  }
}

function verdict(result) {
  const { scenario, detected, seen } = result;
  const unwanted = [...seen.unwanted];
  if (!scenario.expect) {
    if (seen.worstSeverity === 'HIGH' || seen.worstSeverity === 'CRITICAL') unwanted.push(`a ${seen.worstSeverity} incident`);
    if (scenario.quiet && seen.longestUnhealthyMs > scenario.quiet.maxDegradedSeconds * 1000)
      unwanted.push(`not HEALTHY for ${seconds(seen.longestUnhealthyMs)} in a row, at most ${scenario.quiet.maxDegradedSeconds} s (${seen.longestUnhealthyReasons.join('; ') || 'no reason given'})`);
  }
  const load = loadProblems(scenario, result.runs);
  const named = !scenario.expect || Boolean(detected);
  const cause = detected?.incident.cause;
  const causeOk = !scenario.cause || Boolean(cause && scenario.cause.test(cause));
  const inTime = !scenario.target || Boolean(detected && detected.t <= scenario.target.seconds);
  const last = result.reads.at(-1);
  const weaker = scenario.reads ? weakerThanDetection(scenario, last, detected) : [];
  const still = !scenario.reads || weaker.length === 0;
  const pass = !result.error && named && causeOk && inTime && still && unwanted.length === 0 && load.length === 0;
  return { pass, named, causeOk, inTime, still, weaker, unwanted, load };
}

function detectText(result) {
  const { scenario, detected } = result;
  if (!scenario.expect) return '-';
  const target = scenario.target ? ` (target ${scenario.target.seconds} s)` : '';
  return `${detected ? seconds(detected.t * 1000) : 'never'}${target}`;
}

function namedText(result) {
  const d = result.detected ?? result.firstNamed;
  if (!result.scenario.expect) return result.seen.incidents.size ? `${result.seen.incidents.size} incident(s)` : 'nothing';
  if (d) return `${d.incident.patterns.join(', ')} ${d.incident.severity}`;
  const last = result.last?.incident;
  return last?.id ? `other: ${last.patterns.join(', ') || 'no pattern'} ${last.severity}` : 'nothing';
}

function printDetails(result, v) {
  const { scenario, detected, firstNamed, seen } = result;
  console.log(`  => ${v.pass ? 'PASS' : 'MISS'}`);
  if (result.error) console.log(`  harness error: ${result.error}`);
  const expected = scenario.expect ? `${scenario.expect.join(' or ')}${scenario.severity ? `, ${scenario.severity}` : ''}${scenario.cause ? `, cause ${scenario.cause}` : ''}` : 'nothing';
  console.log(`  expected:        ${expected}`);
  if (scenario.expect) {
    const d = detected;
    console.log(`  named:           ${d ? `${d.incident.patterns.join(', ')} (incident ${d.incident.id}, ${d.incident.severity})` : 'nothing'}`);
    if (firstNamed && (!d || firstNamed.t < d.t)) console.log(`  named earlier, below the required severity: ${firstNamed.incident.severity} at ${seconds(firstNamed.t * 1000)}`);
    if (!d && result.last?.incident.id)
      console.log(`  last read:       incident ${result.last.incident.id} ${result.last.incident.severity} naming ${result.last.incident.patterns.join(', ') || 'no pattern'}`);
    console.log(`  probable cause:  ${d?.incident.cause ?? 'none'}${scenario.cause && !v.causeOk ? ' (MISS)' : ''}`);
    console.log(`  time to detect:  ${detectText(result)}${scenario.target ? ` [${scenario.target.rule}]${v.inTime ? '' : ' (MISS)'}` : ''}`);
    if (scenario.reads)
      console.log(`  at the last read (${scenario.reads.at(-1)} s): ${v.still ? 'still reported' : `NOT as at detection: ${v.weaker.join(', ')}`}; lapses after detection: ${result.lapses}`);
  }
  console.log(`  unwanted:        ${v.unwanted.length ? v.unwanted.join('; ') : 'none'} (worst status ${seen.worstStatus}, longest not HEALTHY ${seconds(seen.longestUnhealthyMs)})`);
  for (const { label, phases } of result.runs) console.log(`  traffic:         ${label}${trafficText(phases)}`);
  const all = result.runs.flatMap((r) => r.phases.map(phaseSummary)).filter((p) => p.answered > 0);
  const before = all.find((p) => p.name === 'before');
  const fault = all.find((p) => p.name === 'fault');
  if (before && fault)
    console.log(
      `  fault as the client saw it: p50 ${msText(before.p50)} -> ${msText(fault.p50)} (x${(fault.p50 / before.p50).toFixed(1)}), failed ${percent(before.failed / before.answered)} -> ${percent(fault.failed / fault.answered)}`,
    );
  if (v.load.length) console.log(`  load problems:   ${v.load.join('; ')}`);
}

function table(rows) {
  const header = ['scenario', 'expected', 'named', 'time to detect (target)', 'last read', 'unwanted', 'verdict'];
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  return all
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function cut(text, n) {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

const only = process.argv.slice(2);
const unknown = only.filter((name) => !SCENARIOS.some((s) => s.name === name));
if (unknown.length) {
  console.error(`no scenario ${unknown.join(', ')}; there are ${SCENARIOS.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const began = Date.now();
const results = [];
for (const scenario of SCENARIOS.filter((s) => only.length === 0 || only.includes(s.name))) {
  console.log(`\n${scenario.name} [${scenario.config ?? 'configured'}]: ${scenario.description}`);
  const result = await runScenario(scenario);
  const v = verdict(result);
  results.push({ ...result, v });
  printDetails(result, v);
}

const rows = results.map((r) => {
  const s = r.scenario;
  const unwanted = [...r.v.unwanted, ...r.v.load.map((l) => `load: ${l}`), ...(r.error ? ['harness error'] : [])];
  return [
    s.name,
    s.expect ? `${s.expect.join('|')}${s.severity ? ` ${s.severity}` : ''}` : 'nothing',
    cut(namedText(r), 36),
    detectText(r),
    s.reads ? (r.v.still ? 'yes' : `no: ${cut(r.v.weaker.join(', '), 40)}`) : '-',
    unwanted.length ? cut(unwanted.join('; '), 50) : 'none',
    r.v.pass ? 'PASS' : 'MISS',
  ];
});
console.log(`\n${table(rows)}`);
const series = RATE_SERIES.map(([name, rate, shift]) => [results.find((r) => r.scenario.name === name), rate, shift]).filter(([r]) => r);
if (series.length) {
  console.log('\ntime to detect by rate (nothing configured):');
  for (const [r, rate, shift] of series) console.log(`  ${String(rate).padStart(4)} req/s, ${shift} slower: ${detectText(r)}`);
}
const passed = results.filter((r) => r.v.pass).length;
console.log(`\n${passed} of ${results.length} scenarios as expected; ${((Date.now() - began) / 60000).toFixed(1)} minutes`);
process.exitCode = passed === results.length ? 0 : 1;
