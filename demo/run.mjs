// `npm run demo`: the whole product on this machine. A real orders service runs under
// `node --import ./register.mjs` beside a real inventory service; steady traffic teaches svc what
// normal looks like; a release bot rolls out a feature flag that makes GET /orders/{id} slow and
// makes the inventory dependency fail; a scripted agent finds the incident with the MCP tools,
// names the cause, acts, and verifies the effect. Exits 0 only when every step held.
//
//   --short        shorter phases (what `npm test` runs)
//   --keep         leave the service running and print how to connect an MCP client
//   --approve-on-page  the approval step waits for a person on the status page (printed with
//                  the approver's sign-in token) instead of alice's credential approving it
//   --replicas N   run orders-service as a fleet of N replicas (2 to 5) on a redis-server this
//                  demo starts on an ephemeral port (it must be on the PATH); the fault hits one
//                  replica, and the agent finds it through the fleet view (REPLICAS, outlier)
//
// Ctrl-C (or SIGINT/SIGTERM to this process alone) stops every process it started within 1 s.
import { execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { clientSetups } from './client-setups.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHORT = process.argv.includes('--short');
const KEEP = process.argv.includes('--keep');
const ON_PAGE = process.argv.includes('--approve-on-page');
const replicasAt = process.argv.indexOf('--replicas');
const REPLICAS = replicasAt === -1 ? 1 : Number(process.argv[replicasAt + 1]);
if (!(Number.isInteger(REPLICAS) && REPLICAS >= 1 && REPLICAS <= 5)) {
  console.log(`--replicas takes a whole number from 1 to 5; got "${process.argv[replicasAt + 1] ?? ''}"`);
  process.exit(2);
}
const FLEET = REPLICAS > 1;
if (FLEET) {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    console.log(`npm run demo -- --replicas ${REPLICAS} runs the replicas on a Redis store and needs redis-server on the PATH.
Install it (Debian/Ubuntu: sudo apt-get install redis-server; Fedora: sudo dnf install redis; macOS: brew install redis),
or run the demo on the embedded store: npm run demo`);
    process.exit(1);
  }
}
const LEARN_SECONDS = SHORT ? 12 : 25;
const DEADLINE_MS = 170_000;
const OPERATOR_TOKEN = 'demo-operator-token';
const OBSERVER_TOKEN = 'demo-observer-token';
const APPROVER_TOKEN = 'demo-approver-token';
const OPERATION = 'GET /orders/{id}';
const started = Date.now();
const children = [];
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0).padStart(3)}s`;
const log = (line) => console.log(`[${elapsed()}] ${line}`);
const indent = (text) =>
  text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Ending: every child is asked to stop (SIGTERM) while this process, which is their OTLP
// collector, keeps answering, so their last export is quick; one still running after
// STOP_GRACE_MS is killed. Then this process exits. Ctrl-C (SIGINT to the whole process group,
// the children included), or SIGINT/SIGTERM to this process alone, ends the demo the same way.
const STOP_GRACE_MS = 700;
let stopping;
/** Stops every child, then exits with `code`; the promise it returns never settles. */
function stop(code) {
  stopping ??= (async () => {
    const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
    const exited = running.map((child) => new Promise((resolve) => child.once('exit', resolve)));
    for (const child of running) child.kill('SIGTERM');
    const killer = setTimeout(() => {
      for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }, STOP_GRACE_MS);
    await Promise.all(exited);
    clearTimeout(killer);
    process.exit(code);
  })();
  return new Promise(() => {});
}
function fail(message) {
  console.log(`\nDEMO FAILED: ${message}`);
  return stop(1);
}
let passed = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (!stopping) console.log(`\n${signal}: stopping the services`);
    // After a passing verdict (--keep) the user ends the demo: that is success.
    void stop(passed ? 0 : signal === 'SIGINT' ? 130 : 143);
  });
}
setTimeout(() => fail(`did not finish within ${DEADLINE_MS / 1000}s`), DEADLINE_MS).unref();

// ---- an OTLP/HTTP JSON endpoint: prints svc's events as they arrive, counts spans ----
let spans = 0;
const events = [];
const collector = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    const data = JSON.parse(body || '{}');
    if (req.url === '/v1/traces') for (const rs of data.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans += ss.spans?.length ?? 0;
    if (req.url !== '/v1/logs') return;
    for (const rl of data.resourceLogs ?? []) {
      for (const sl of rl.scopeLogs ?? []) {
        for (const record of sl.logRecords ?? []) {
          const fields = Object.fromEntries((record.body?.kvlistValue?.values ?? []).map((kv) => [kv.key, Object.values(kv.value)[0]]));
          events.push({ name: record.eventName, severity: record.severityText, fields });
          const shown = Object.entries(fields)
            .filter(([k]) => !['pattern_description', 'timestamp'].includes(k))
            .map(([k, v]) => `${k}=${typeof v === 'number' ? +v.toFixed(3) : v}`)
            .join(' ');
          log(`event ${record.severityText.padEnd(5)} ${record.eventName} ${shown}`);
        }
      }
    }
  });
});
await new Promise((resolve) => collector.listen(0, '127.0.0.1', resolve));
const collectorUrl = `http://127.0.0.1:${collector.address().port}`;

// ---- a redis-server for a fleet: 127.0.0.1, an ephemeral port, nothing written to disk ----
async function startRedis() {
  const probe = net.createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = probe.address().port;
  await new Promise((resolve) => probe.close(resolve));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  children.push(child);
  for (let i = 0; i < 200; i++) {
    const open = await new Promise((resolve) => {
      const socket = net.createConnection({ host: '127.0.0.1', port }, () => socket.end(() => resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (open) return `redis://127.0.0.1:${port}`;
    await sleep(25);
  }
  return fail(`redis-server did not listen on ${port}`);
}

// ---- the two services ----
function start(args, options) {
  const child = spawn(process.execPath, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c;
      const match = /LISTENING (\d+)/.exec(out);
      if (match) resolve({ child, port: Number(match[1]), stderr: () => err });
    });
    child.on('exit', (code) => reject(new Error(`${args.at(-1)} exited (${code}):\n${err}`)));
  });
}

const storeUrl = FLEET ? await startRedis() : undefined;
if (FLEET) log(`redis-server at ${storeUrl}: the state store of a fleet of ${REPLICAS} orders-service replicas`);
log(`starting inventory-service (a separate process) and orders-service${FLEET ? ` x${REPLICAS}` : ''} under node --import ./register.mjs`);
const inventory = await start(['demo/inventory-service.mjs'], { cwd: ROOT });
const inventoryUrl = `http://127.0.0.1:${inventory.port}`;
const startOrders = (replica) =>
  start(['--import', '../../register.mjs', 'dist/app.js'], {
    cwd: `${ROOT}demo/orders-service`,
    env: {
      ...process.env,
      ...(FLEET && { SVC_STORE_URL: storeUrl, SVC_FLEET_INSTANCE_ID: `orders-${replica}`, SVC_FLEET_PUBLISH_INTERVAL: '1s', SVC_FLEET_REPLICA_TTL: '10s' }),
      INVENTORY_URL: inventoryUrl,
      OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_BSP_SCHEDULE_DELAY: '500',
      OTEL_BLRP_SCHEDULE_DELAY: '200',
      NODE_NO_WARNINGS: '1',
    },
  }).catch((error) => fail(error.message));
async function toolServerUrl(service) {
  for (let i = 0; i < 100; i++) {
    const url = /MCP tool server listening at (\S+)/.exec(service.stderr())?.[1];
    if (url) return url;
    await sleep(50);
  }
  return fail(`the tool server did not start:\n${service.stderr()}`);
}
const replicas = await Promise.all(Array.from({ length: REPLICAS }, (_, i) => startOrders(i + 1)));
for (const [i, replica] of replicas.entries()) {
  replica.id = `orders-${i + 1}`;
  replica.mcpUrl = await toolServerUrl(replica);
  log(`orders-service${FLEET ? ` ${replica.id}` : ''} on http://127.0.0.1:${replica.port}, MCP tool server at ${replica.mcpUrl}`);
}
const orders = replicas[0];
const mcpUrl = orders.mcpUrl;
/** The status page of a replica's tool server (docs/status-page.md). */
const pageOf = (url) => url.replace(/\/mcp$/, '/');
log(`status page at ${pageOf(mcpUrl)}: sign in with ${APPROVER_TOKEN} (alice, who may approve) or ${OBSERVER_TOKEN} (an observer)`);

// ---- traffic: 4 connections, 80 % order lookups, 20 % new orders ----
const stats = { ok: 0, errors: 0, latencies: [] };
let trafficOn = true;
const agentHttp = new http.Agent({ keepAlive: true });
let sent = 0;
function request(method, path) {
  // Round robin over the replicas, as a load balancer would.
  const port = replicas[sent++ % replicas.length].port;
  return new Promise((resolve) => {
    const begin = performance.now();
    const req = http.request({ host: '127.0.0.1', port, method, path, agent: agentHttp }, (res) => {
      res.resume();
      res.on('end', () => {
        stats.latencies.push(performance.now() - begin);
        if (res.statusCode < 500) stats.ok++;
        else stats.errors++;
        resolve();
      });
    });
    req.on('error', () => {
      stats.errors++;
      resolve();
    });
    req.end();
  });
}
async function trafficLoop(seed) {
  let i = seed;
  while (trafficOn) {
    i++;
    await (i % 5 === 0 ? request('POST', '/orders') : request('GET', `/orders/${1 + ((i * 37) % 500)}`));
    await sleep(20);
  }
}
const loops = [1, 2, 3, 4].map((seed) => trafficLoop(seed * 1000));

// ---- MCP clients: an observer for the progress line, the operator agent ----
async function connect(token, name, url = mcpUrl) {
  // MCP 2026-07-28: no session, the protocol version and capabilities in every request's _meta.
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}`, 'x-agent-name': name } } }));
  return async (tool, args = {}) => {
    const result = await client.callTool({ name: tool, arguments: args });
    return { ...result, text: result.content.map((c) => c.text ?? '').join('\n') };
  };
}
const observer = await connect(OBSERVER_TOKEN, 'progress');
let lastStatus = 'unknown';
let lastReasons = [];
const progress = setInterval(async () => {
  const health = await observer('get_service_health', { format: 'json' }).catch(() => undefined);
  lastStatus = health?.structuredContent?.status ?? lastStatus;
  lastReasons = health?.structuredContent?.reasons ?? lastReasons;
  const sorted = stats.latencies.splice(0).sort((a, b) => a - b);
  const pct = (q) => (sorted.length ? `${sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1)}ms` : '-');
  log(
    `progress: ${stats.ok + stats.errors} requests (${stats.errors} failed) | last 2s p50 ${pct(0.5)} p99 ${pct(0.99)} | ${spans} spans exported | health ${lastStatus}${lastReasons.length ? ` (${lastReasons[0]}${lastReasons.length > 1 ? `, +${lastReasons.length - 1}` : ''})` : ''}`,
  );
}, 2000);

async function currentStatus() {
  const health = await observer('get_service_health', { format: 'json' });
  lastStatus = health.structuredContent?.status ?? lastStatus;
  lastReasons = health.structuredContent?.reasons ?? lastReasons;
  return lastStatus;
}

async function waitFor(what, check, timeoutMs) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) await fail(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

// ---- 1. learn what normal looks like ----
log(`phase 1: steady traffic for at least ${LEARN_SECONDS}s, until the rolling baseline of ${OPERATION} has HIGH confidence`);
await sleep(LEARN_SECONDS * 1000);
await waitFor('a learned baseline', async () => /Baseline confidence: +HIGH/.test((await observer('get_error_analysis', { operation_name: OPERATION })).text), 30_000);
await waitFor('a healthy service', async () => (await currentStatus()) === 'HEALTHY', 40_000);
log(`baselines learned; service ${lastStatus}`);

// ---- 2. the fault ----
// In a fleet the flag reaches one replica first (a canary): the fleet view names it the outlier.
const faulty = replicas[replicas.length - 1];
log(`phase 2: FAULT: release-bot enables feature flag new_stock_check${FLEET ? ` on ${faulty.id}` : ''} (per-line stock on inventory /v2, which is failing)`);
await new Promise((resolve) => {
  const req = http.request({ host: '127.0.0.1', port: faulty.port, method: 'POST', path: '/admin/flags', headers: { 'content-type': 'application/json' } }, (res) => res.resume().on('end', resolve));
  req.end('{"new_stock_check":true}');
});
const eventsBefore = events.length;
await waitFor('an anomaly on GET /orders/{id}', async () => events.slice(eventsBefore).some((e) => e.name === 'svc.anomaly.detected' && e.fields.operation === OPERATION), 30_000);

// ---- 3. the agent: Observe, Diagnose, Act, Verify ----
let agent = await connect(OPERATOR_TOKEN, 'sre-agent');
const show = (tool, result) => {
  console.log(`\n── ${tool} ${result.isError ? '(error)' : ''}\n${indent(result.text)}\n`);
  return result;
};
log('phase 3: the agent (operator role) takes over');
let outlier;
if (FLEET) {
  // The fleet view merges each replica's summary every second: wait until it names the bad replica.
  await waitFor(
    'the fleet view to name an outlier replica',
    async () => (outlier = (await agent('get_service_health', { format: 'json' })).structuredContent?.replicas?.find((r) => r.outlier)?.id),
    30_000,
  );
}
// The anomaly event judges single requests; the service status judges the operation's recent window,
// which needs a few seconds of the fault on a slow machine.
const firstAsked = Date.now();
const health = await waitFor(
  'get_service_health to show the problem',
  async () => {
    const result = await agent('get_service_health');
    return /STATUS: (DEGRADED|CRITICAL)/.test(result.text) ? result : undefined;
  },
  30_000,
);
show('get_service_health', health);
log(`get_service_health showed the problem ${((Date.now() - firstAsked) / 1000).toFixed(1)}s after the agent asked first`);
if (FLEET) {
  // Incidents and remediation are this replica's own: the agent moves to the outlier's tool server.
  const target = replicas.find((r) => r.id === outlier);
  log(`the fleet view names ${outlier} the outlier replica; the agent connects to its tool server at ${target?.mcpUrl}`);
  if (!target) await fail(`no replica named ${outlier}`);
  agent = await connect(OPERATOR_TOKEN, 'sre-agent', target.mcpUrl);
}

const context = show('get_incident_context', await agent('get_incident_context', { operation_name: OPERATION }));
const incidentId = /INCIDENT (INC-\d{8}-[0-9a-z]{5}-\d{4})/.exec(context.text)?.[1];
const cause = /config_change: (.*?) {2}PROBABLE CAUSE/.exec(context.text)?.[1];
if (!incidentId) await fail('no incident id in the context');
const session = await agent('create_session', { incident_id: incidentId });
const sessionId = session.structuredContent?.sessionId;
await agent('add_session_entry', { session_id: sessionId, type: 'OBSERVATION', content: `${OPERATION} is failing and slow; service ${/STATUS: (\w+)/.exec(health.text)?.[1]}` });
await agent('add_session_entry', { session_id: sessionId, type: 'DIAGNOSIS', content: cause ? `probable cause: ${cause}` : 'no change flagged; dependency failure' });

show('get_playbook', await agent('get_playbook', { operation_name: OPERATION }));
const actions = show('list_remediation_actions', await agent('list_remediation_actions', { operation_name: OPERATION }));
const rollback = cause?.includes('new_stock_check') && actions.text.includes('rollback_new_stock_check');
const action = rollback ? 'rollback_new_stock_check' : `enable_fallback:${OPERATION}`;
const reason = rollback ? `incident ${incidentId}: ${cause}` : `incident ${incidentId}: serve cached stock while inventory-service fails`;
let executed = show('execute_remediation', await agent('execute_remediation', { action_name: action, reason }));
const approvalId = /Approval request (APR-\S+) is open/.exec(executed.text)?.[1];
if (approvalId) {
  const approverUrl = replicas.find((r) => r.id === outlier)?.mcpUrl ?? mcpUrl;
  if (ON_PAGE) {
    // A person approves on the status page; the observer's audit trail says when (approve: or decline:).
    log(`approval ${approvalId} waits for a person: open ${pageOf(approverUrl)}, sign in with ${APPROVER_TOKEN} and approve or decline it`);
    const watcher = approverUrl === mcpUrl ? observer : await connect(OBSERVER_TOKEN, 'progress', approverUrl);
    const decided = await waitFor(
      'the decision on the status page',
      async () => new RegExp(`SUCCESS (approve|decline):${approvalId} `).exec((await watcher('get_recent_agent_actions')).text)?.[1],
      600_000,
    );
    log(`the approval was ${decided === 'approve' ? 'given' : 'declined'} on the status page`);
  } else {
    // The rollback needs approval: alice, the on-call lead, approves it with her own credential.
    const lead = await connect(APPROVER_TOKEN, 'alice', approverUrl);
    show('execute_remediation (alice approves)', await lead('execute_remediation', { action_name: `approve:${approvalId}`, reason: `rollback of new_stock_check for ${incidentId}` }));
  }
  executed = show('execute_remediation', await agent('execute_remediation', { action_name: action, reason, approved_by: approvalId }));
}
if (executed.isError) await fail(`execute_remediation failed: ${executed.text}`);
await agent('add_session_entry', { session_id: sessionId, type: 'ACTION', content: `executed ${action}${approvalId ? ` (approval ${approvalId})` : ''}` });

log('phase 4: waiting until the service is healthy again and the verification delay has passed');
if (FLEET) {
  // Two or more replicas on a shared machine have tail latencies of their own: the fleet is back
  // when no replica stands out and the operation's errors are gone.
  await waitFor(
    'the fleet to recover (no outlier replica, errors under 1%)',
    async () => {
      const fleet = (await observer('get_service_health', { format: 'json' })).structuredContent;
      const op = fleet?.operations?.find((o) => o.name === OPERATION);
      return fleet?.replicas?.length === REPLICAS && !fleet.replicas.some((r) => r.outlier) && op && op.errorRate < 0.01;
    },
    90_000,
  );
  log('the fleet recovered: no outlier replica, errors under 1%');
} else await waitFor('a healthy service', async () => (await currentStatus()) === 'HEALTHY', 90_000);
let verified;
await waitFor(
  'the verification',
  async () => {
    verified = await agent('verify_remediation_effect', { action_name: action });
    return !verified.isError;
  },
  30_000,
);
show('verify_remediation_effect', verified);
const effective = /Effective: +YES/.test(verified.text);
await agent('add_session_entry', {
  session_id: sessionId,
  type: 'RECOMMENDATION',
  content: effective ? 'keep new_stock_check off until inventory /v2 is stable; re-enable behind a canary' : 'escalate: the action did not help',
});
show('get_session', await agent('get_session', { session_id: sessionId }));

clearInterval(progress);
console.log('VERDICT');
const checks = [
  ...(FLEET ? [[`outlier replica named: ${outlier ?? 'none'}`, outlier === faulty.id]] : []),
  [`incident found: ${incidentId}`, Boolean(incidentId)],
  [`cause named: ${cause ?? 'none'}`, Boolean(cause?.includes('new_stock_check'))],
  [`action taken: ${action}`, !executed.isError],
  [`effect verified: ${effective ? 'YES' : 'NO'}`, effective],
];
for (const [label, ok] of checks) console.log(`  ${ok ? 'PASS' : 'FAIL'}  ${label}`);
passed = checks.every(([, ok]) => ok);
console.log(`${checks.filter(([, ok]) => ok).length} passed, ${checks.filter(([, ok]) => !ok).length} failed`);

if (KEEP && passed) {
  console.log(`
The service keeps running (Ctrl-C stops it). Connect your own MCP client (docs/mcp.md, "Connecting a client"):
  URL:    ${mcpUrl}
  Token:  ${OPERATOR_TOKEN}  (role operator; ${OBSERVER_TOKEN} is an observer)
The status page (docs/status-page.md): ${pageOf(mcpUrl)}
  Sign in with ${APPROVER_TOKEN} (alice, who may approve the agents' requests) or ${OBSERVER_TOKEN}.`);
  for (const setup of clientSetups(mcpUrl, OPERATOR_TOKEN, 'orders-service')) console.log(`\n  ${setup.client}, ${setup.where}:\n${indent(setup.text)}`);
} else {
  trafficOn = false;
  await Promise.all(loops);
  agentHttp.destroy();
  await stop(passed ? 0 : 1);
}
