// The status page's weight and server time (docs/status-page.md): an engine with 500 tracked
// operations of 40 requests each (as bench/tool-calls.mjs fills it), a few of them failing so the
// page has incidents to tell, and the page rendered as the server renders it for a signed-in
// admin, idle (no traffic between renders) and busy (a request of every operation between
// renders). Targets: under 100 KB, under 100 ms. BENCH_PAGE_RENDERS sets the renders per case.
// Run against the built output: `npm run build && node bench/status-page.mjs`.
import { gzipSync } from 'node:zlib';
import { printedSection } from './printed-section.mjs';

const section = printedSection('bench/status-page.mjs', 'The status page');
const OPERATIONS = 500;
const RENDERS = Number(process.env.BENCH_PAGE_RENDERS ?? 200);
const WARM_UP = 20;

const load = (path) => import(new URL(`../dist/${path}`, import.meta.url).href);
const { FakeClock } = await load('analysis/clock.js');
const { ResolvedConfig } = await load('config/resolved-config.js');
const { toolServices } = await load('mcp/start-tool-server.js');
const { incidentResponseFromConfig } = await load('incidents/incident-response.js');
const { ServiceMetadata } = await load('metadata/service-metadata.js');
const { Engine } = await load('wiring/service-engine.js');
const { mainSection, pageDocument, pageHeader } = await load('mcp/status-page/render-page.js');
const { html } = await load('mcp/status-page/html.js');

const config = new ResolvedConfig([]);
const registry = { observable: undefined, dependencies: [], consumers: [], operations: new Map(), operationOfSpan: new WeakMap(), version: 0, active: false };
const metadata = new ServiceMetadata(config, registry);
const clock = new FakeClock();
const engine = Engine.fromConfig(config, metadata, { clock });
const services = toolServices(config, engine, metadata, incidentResponseFromConfig(config, engine, metadata));
const viewer = {
  caller: { agentName: 'bench', role: 'admin', permissions: new Set(['READ', 'DIAGNOSE', 'REMEDIATE', 'ADMIN']), credential: 'token:bench', tokenAgent: 'bench' },
  csrf: 'x'.repeat(43),
  canSignIn: true,
};

const names = Array.from({ length: OPERATIONS }, (_, i) => `GET /items-${i}/{id}`);
// 40 requests of each over a minute, past the warm-up; then three operations fail outright for 10 s: incidents, worst first on the page.
for (let r = 0; r < 40; r++) {
  for (const name of names) engine.observe(name, 5 + ((r * 7) % 30), r % 20 === 0);
  clock.advance(1500);
}
for (let s = 0; s < 10; s++) {
  for (const name of names.slice(0, 3)) for (let r = 0; r < 20; r++) engine.observe(name, 40, true);
  clock.advance(1000);
}
const traffic = () => {
  for (const name of names) engine.observe(name, 5 + Math.random() * 30, Math.random() < 0.05);
};
const render = () => pageDocument('bench: status', html`${pageHeader(services.analysis.serviceName, viewer)}${mainSection(services, viewer, undefined)}`, true);

const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
for (const busy of [false, true]) {
  const times = [];
  let page = '';
  for (let i = 0; i < WARM_UP + RENDERS; i++) {
    if (busy) traffic();
    const start = performance.now();
    page = render();
    if (i >= WARM_UP) times.push(performance.now() - start);
  }
  const bytes = Buffer.byteLength(page);
  section.say(
    `status page, ${busy ? 'busy' : 'idle'}, ${OPERATIONS} operations, ${services.incidents.openIncidents().length} open incidents: ${(bytes / 1024).toFixed(1)} KB (${(gzipSync(page).length / 1024).toFixed(1)} KB gzipped); server time p50 ${quantile(times, 0.5).toFixed(2)} ms, p99 ${quantile(times, 0.99).toFixed(2)} ms (${RENDERS} renders)`,
  );
}
// A run with other renders is a variant: the section stays the default run's.
if (process.env.BENCH_PAGE_RENDERS === undefined) await section.write();
