/**
 * The decorator fixture compiled in both modes (legacy experimentalDecorators + reflect-metadata,
 * and TC39 standard decorators), run under the preload beside a svc.yml: decorator metadata
 * reaches spans and the Resource, and configuration wins per property.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FixtureApp, freePort, ROOT, startFixture } from '../support/fixture-app.js';
import { OtlpReceiver, SPAN_KIND } from '../support/otlp-receiver.js';

let receiver: OtlpReceiver;
let app: FixtureApp | undefined;

beforeEach(async () => {
  receiver = new OtlpReceiver();
});
afterEach(async () => {
  await app?.stop();
  app = undefined;
  await receiver.stop();
});

describe.each(['legacy', 'standard'])('%s decorators', (mode) => {
  async function start(env: Record<string, string> = {}): Promise<FixtureApp> {
    const endpoint = await receiver.start();
    app = await startFixture({
      script: `${mode}/dist/app.js`,
      cwd: join(ROOT, 'fixtures', 'decorators'),
      otlpEndpoint: endpoint,
      env: { INVENTORY_PORT: String(await freePort()), ...env },
    });
    return app;
  }

  it('puts @AgentObservable, @DeclareDependency and @DeclareConsumer on the Resource', async () => {
    const fixture = await start();
    await fixture.get('/orders/a1');
    const span = await receiver.waitFor(() => receiver.spans.find((s) => s.kind === SPAN_KIND.SERVER));
    expect(span.resource).toMatchObject({
      'service.name': 'decorated-orders',
      'svc.topology.team': 'fulfilment',
      'svc.topology.tier': 'critical',
      'svc.topology.domain': 'logistics',
      'svc.topology.on_call_channel': '#fulfilment',
    });
    expect([...(span.resource['svc.topology.dependencies'] as string[])].sort()).toEqual(['orders-db', 'warehouse-api']);
    expect([...(span.resource['svc.topology.consumers'] as string[])].sort()).toEqual(['mobile-app', 'partner-api']);
  });

  it('configuration wins over the decorator per property', async () => {
    const fixture = await start({ SVC_TOPOLOGY_TIER: 'internal', OTEL_SERVICE_NAME: 'configured-name' });
    await fixture.get('/orders/a2');
    const order = await receiver.waitFor(() => receiver.spans.find((s) => s.attributes['url.path'] === '/orders/a2'));
    expect(order.resource).toMatchObject({ 'service.name': 'configured-name', 'svc.topology.tier': 'internal', 'svc.topology.team': 'fulfilment' });
    // svc.yml sets retryable: false (so the attribute is absent); the decorator's other values stay.
    expect(order.attributes).not.toHaveProperty('svc.operation.retryable');
    expect(order.attributes).toMatchObject({
      'svc.operation.name': 'GET /orders/{id}',
      'svc.operation.runbook_url': 'https://runbooks.example/decorated',
      'svc.operation.escalation_level': 'page_oncall',
      'svc.operation.safe_to_restart': false,
      'svc.baseline.latency_p99_ms': 200,
    });
    // svc.yml sets criticality: required over the decorator's DEGRADED; timeoutMs comes from the decorator.
    const client = await receiver.waitFor(() => receiver.spans.find((s) => s.kind === SPAN_KIND.CLIENT && s.attributes['svc.dependency.name'] === 'warehouse-api'));
    expect(client.attributes).toMatchObject({ 'svc.dependency.criticality': 'required', 'svc.dependency.type': 'external_api', 'svc.dependency.timeout_ms': 1500 });
  });

  it('creates internal operation spans for non-web methods, layered decorator > profile > annotation default', async () => {
    const fixture = await start();
    await fixture.get('/orders/a3');
    await fixture.get('/job');
    const quote = await receiver.waitFor(() => receiver.spans.find((s) => s.name === 'PricingEngine.quote'));
    expect(quote.kind).toBe(SPAN_KIND.INTERNAL);
    expect(quote.attributes).not.toHaveProperty('svc.operation.name'); // the span's name is the operation
    expect(quote.attributes).toMatchObject({
      'svc.operation.profile': 'fast-path',
      'svc.operation.idempotent': true, // decorator beats the profile's false
      'svc.operation.retryable': true, // from the profile
      'svc.operation.safe_to_restart': false, // from the profile
      'svc.operation.escalation_level': 'notify_team', // annotation default
      'svc.baseline.latency_p50_ms': 5,
    });
    const job = await receiver.waitFor(() => receiver.spans.find((s) => s.name === 'OrderHandlers.failingJob'));
    expect(job.statusCode).toBe(2);
    expect(job.attributes).toMatchObject({ 'svc.baseline.error_rate': 0.05 });
    // The handler's request span is not taken over by the service method it calls.
    const order = receiver.spans.find((s) => s.attributes['url.path'] === '/orders/a3');
    expect(order?.attributes['svc.operation.name']).toBe('GET /orders/{id}');
  });

  it('records the options as metadata for other tools', async () => {
    const fixture = await start();
    const recorded = (await (await fixture.get('/metadata')).json()) as Record<string, { observable: { team: string }; dependencies: { name: string }[] } | null>;
    const own = recorded[mode]!;
    expect(own.observable.team).toBe('fulfilment');
    expect(own.dependencies.map((d) => d.name).sort()).toEqual(['orders-db', 'warehouse-api']);
    expect(recorded[mode === 'legacy' ? 'standard' : 'legacy']).toBeNull();
  });
});

it('an app with its own SIGTERM handler keeps control of its exit, and svc still flushes', async () => {
  const endpoint = await receiver.start();
  app = await startFixture({
    script: 'standard/dist/app.js',
    cwd: join(ROOT, 'fixtures', 'decorators'),
    otlpEndpoint: endpoint,
    env: { INVENTORY_PORT: String(await freePort()), OTEL_BSP_SCHEDULE_DELAY: '60000' },
  });
  await app.get('/orders/z9');
  const { code, signal } = await app.stop();
  // The app's handler closes its servers and the process ends normally, as it would without svc.
  expect({ code, signal }).toEqual({ code: 0, signal: null });
  expect(receiver.spans.find((s) => s.attributes['url.path'] === '/orders/z9')?.attributes['svc.operation.name']).toBe('GET /orders/{id}');
});
