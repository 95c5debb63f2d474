/**
 * Real fixture apps under the preload, exporting to a real OTLP/HTTP endpoint: operation and
 * dependency naming, decision metadata, static baselines, topology on the Resource, the
 * deployment event, -D consumption and signal exit.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FixtureApp, freePort, ROOT, startFixture } from '../support/fixture-app.js';
import { OtlpReceiver, type ReceivedSpan, SPAN_KIND } from '../support/otlp-receiver.js';

let receiver: OtlpReceiver;
let endpoint: string;
let app: FixtureApp | undefined;

beforeEach(async () => {
  receiver = new OtlpReceiver();
  endpoint = await receiver.start();
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await receiver.stop();
});

async function startWithInventory(fixture: string, script: string, extra: { env?: Record<string, string>; args?: string[] } = {}): Promise<FixtureApp> {
  const inventoryPort = await freePort();
  app = await startFixture({
    script,
    cwd: join(ROOT, 'fixtures', fixture),
    otlpEndpoint: endpoint,
    env: { INVENTORY_PORT: String(inventoryPort), NODE_PATH: undefined as unknown as string, ...extra.env },
    args: [`-Dsvc.dependencies[0].health-endpoint=http://127.0.0.1:${inventoryPort}/health`, ...(extra.args ?? [])],
  });
  return app;
}

const serverSpan = (path: string) => (s: ReceivedSpan) => s.kind === SPAN_KIND.SERVER && s.attributes['url.path'] === path;

describe('plain node:http app without a router', () => {
  it('names operations by configured templates and adds their metadata, baselines and deployment', async () => {
    const fixture = await startWithInventory('http-plain', 'app.mjs');
    expect((await fixture.get('/orders/42')).status).toBe(200);
    expect((await fixture.get('/payments', { method: 'POST' })).status).toBe(201);

    const order = await receiver.waitFor(() => receiver.spans.find(serverSpan('/orders/42')));
    expect(order.attributes).toMatchObject({
      'svc.operation.name': 'GET /orders/{id}',
      'svc.operation.profile': 'read-path',
      'svc.operation.retryable': true,
      'svc.operation.idempotent': true,
      'svc.operation.escalation_level': 'notify_team',
      'svc.operation.runbook_url': 'https://runbooks.example/orders',
      'svc.baseline.latency_p50_ms': 20,
      'svc.baseline.latency_p99_ms': 250,
      'svc.baseline.error_rate': 0.01,
    });
    // Absent decision attributes read as the configuration defaults (safe to restart: true).
    expect(order.attributes).not.toHaveProperty('svc.operation.safe_to_restart');
    // The deployment is constant for the process: it is on the Resource, not copied to every span.
    expect(order.resource).toMatchObject({
      'svc.deployment.version': '2.4.1',
      'service.version': '2.4.1',
      'svc.deployment.commit_sha': '9f8e7d6',
      'svc.deployment.previous_version': '2.4.0',
      'svc.deployment.strategy': 'rolling',
    });
    expect(order.resource['svc.deployment.id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(order.attributes).filter((k) => k.startsWith('svc.deployment.'))).toEqual([]);

    const payment = await receiver.waitFor(() => receiver.spans.find(serverSpan('/payments')));
    expect(payment.attributes).toMatchObject({
      'svc.operation.name': 'POST /payments',
      'svc.operation.escalation_level': 'page_oncall',
      'svc.operation.safe_to_restart': false,
      'svc.baseline.latency_p99_ms': 1000,
    });
    expect(payment.attributes).not.toHaveProperty('svc.operation.retryable');
    expect(payment.attributes).not.toHaveProperty('svc.baseline.error_rate');
  });

  it('maps the client span to the declared dependency through its health endpoint', async () => {
    const fixture = await startWithInventory('http-plain', 'app.mjs');
    await fixture.get('/orders/42');
    const client = await receiver.waitFor(() => receiver.spans.find((s) => s.kind === SPAN_KIND.CLIENT && String(s.attributes['url.full'] ?? '').includes('/stock/42')));
    expect(client.attributes).toMatchObject({
      'svc.dependency.name': 'inventory-service',
      'svc.dependency.declared': true,
      'svc.dependency.type': 'rest_api',
      'svc.dependency.criticality': 'required',
      'svc.dependency.protocol': 'http',
      'svc.dependency.timeout_ms': 800,
      'svc.dependency.circuit_breaker': true,
      'svc.dependency.fallback': 'serve cached stock levels',
    });
    expect(client.attributes).not.toHaveProperty('svc.operation.name');
  });

  it('puts topology on the Resource and emits svc.deployment.info once', async () => {
    const fixture = await startWithInventory('http-plain', 'app.mjs');
    await fixture.get('/orders/1');
    const span = await receiver.waitFor(() => receiver.spans.find(serverSpan('/orders/1')));
    expect(span.resource).toMatchObject({
      'service.name': 'orders-plain-http',
      'svc.topology.team': 'checkout',
      'svc.topology.tier': 'critical',
      'svc.topology.domain': 'commerce',
      'svc.topology.on_call_channel': '#checkout-oncall',
      'svc.topology.dependencies': ['inventory-service'],
      'svc.topology.consumers': ['web-frontend'],
    });
    expect(span.resource).not.toHaveProperty('svc.topology.repo_url');

    const event = await receiver.waitFor(() => receiver.logs.find((l) => l.attributes['event.name'] === 'svc.deployment.info'));
    expect(event.eventName).toBe('svc.deployment.info');
    expect(event.severityText).toBe('INFO');
    expect(event.severityNumber).toBe(9);
    const body = event.body as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(['commit_sha', 'previous_version', 'strategy', 'timestamp', 'version']);
    expect(body).toMatchObject({ version: '2.4.1', commit_sha: '9f8e7d6', previous_version: '2.4.0', strategy: 'rolling' });
    expect(new Date(body.timestamp!).toISOString()).toBe(body.timestamp);
    expect(event.resource['svc.topology.team']).toBe('checkout');

    await fixture.stop();
    expect(receiver.logs.filter((l) => l.eventName === 'svc.deployment.info')).toHaveLength(1);
  });

  it('removes the -Dsvc.* arguments it consumed and leaves the others', async () => {
    const fixture = await startWithInventory('http-plain', 'app.mjs', { args: ['-Dapp.mode=fast', '--verbose'] });
    const argv = (await (await fixture.get('/argv')).json()) as string[];
    expect(argv).toEqual(['-Dapp.mode=fast', '--verbose']);
  });

  it('flushes on SIGTERM and still dies by the signal when the app has no handler', async () => {
    const fixture = await startWithInventory('http-plain', 'app.mjs', { env: { OTEL_BSP_SCHEDULE_DELAY: '60000' } });
    await fixture.get('/orders/5');
    const { code, signal } = await fixture.stop();
    expect(signal).toBe('SIGTERM');
    expect(code).toBeNull();
    expect(receiver.spans.find(serverSpan('/orders/5'))?.attributes['svc.operation.name']).toBe('GET /orders/{id}');
  });

  it('with svc.enabled=false adds no svc.* span attribute and keeps topology on the Resource', async () => {
    const fixture = await startWithInventory('http-plain', 'app.mjs', { env: { SVC_ENABLED: 'false' } });
    await fixture.get('/orders/9');
    await fixture.get('/payments', { method: 'POST' });
    await fixture.stop();
    const spans = receiver.spans;
    expect(spans.find(serverSpan('/orders/9'))).toBeDefined();
    expect(spans.find((s) => s.kind === SPAN_KIND.CLIENT)).toBeDefined();
    for (const span of spans) expect(Object.keys(span.attributes).filter((k) => k.startsWith('svc.'))).toEqual([]);
    expect(spans[0]!.resource['svc.topology.team']).toBe('checkout');
    expect(receiver.logs.filter((l) => l.eventName === 'svc.deployment.info')).toEqual([]);
  });
});

describe.each([
  ['ESM Express', 'express-esm', 'app.mjs'],
  ['CommonJS Express', 'commonjs', 'app.cjs'],
])('%s app', (_label, fixtureDir, script) => {
  it('names operations from http.route in the configured spelling and enriches client spans', async () => {
    const fixture = await startWithInventory(fixtureDir, script);
    expect((await fixture.get('/orders/42')).status).toBe(200);
    const order = await receiver.waitFor(() => receiver.spans.find(serverSpan('/orders/42')));
    expect(order.attributes['http.route']).toBe('/orders/:id');
    expect(order.attributes).toMatchObject({
      'svc.operation.name': 'GET /orders/{id}',
      'svc.operation.retryable': true,
      'svc.baseline.latency_p99_ms': 300,
    });
    expect(order.resource['svc.deployment.version']).toBe('3.0.0');
    const client = await receiver.waitFor(() => receiver.spans.find((s) => s.kind === SPAN_KIND.CLIENT && s.attributes['svc.dependency.name'] === 'inventory-service'));
    expect(client.attributes).toMatchObject({ 'svc.dependency.type': 'internal_service', 'svc.dependency.criticality': 'degraded' });
    expect(order.resource['service.name']).toBe(fixtureDir === 'commonjs' ? 'orders-commonjs' : 'orders-express-esm');
  });
});

describe('standard OTEL_* exporter choices', () => {
  it('OTEL_TRACES_EXPORTER=console prints enriched spans; nothing goes to OTLP', async () => {
    const fixture = await startWithInventory('http-plain', 'app.mjs', { env: { OTEL_TRACES_EXPORTER: 'console', OTEL_LOGS_EXPORTER: 'console' } });
    await fixture.get('/orders/3');
    await fixture.stop();
    expect(fixture.stdout()).toContain("'svc.operation.name': 'GET /orders/{id}'");
    expect(fixture.stdout()).toContain("eventName: 'svc.deployment.info'");
    expect(receiver.spans).toEqual([]);
  });

  it('OTEL_TRACES_EXPORTER=none and OTEL_LOGS_EXPORTER=none export nothing and the app serves', async () => {
    const fixture = await startWithInventory('http-plain', 'app.mjs', { env: { OTEL_TRACES_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none' } });
    expect((await fixture.get('/orders/3')).status).toBe(200);
    await fixture.stop();
    expect(receiver.spans).toEqual([]);
    expect(receiver.logs).toEqual([]);
  });
});
