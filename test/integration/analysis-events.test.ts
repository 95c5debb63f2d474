/**
 * The preload's analysis end to end: a fixture app under `node --import register.mjs` with an
 * SLO, driven into failure over real HTTP; the events arrive as OTel log records at a real OTLP
 * endpoint and failing spans carry the SLO state.
 */
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { type FixtureApp, freePort, ROOT, startFixture } from '../support/fixture-app.js';
import { OtlpReceiver, SPAN_KIND } from '../support/otlp-receiver.js';

let app: FixtureApp | undefined;
const receiver = new OtlpReceiver();

afterEach(async () => {
  await app?.stop();
  await receiver.stop();
});

it('emits SLO budget alerts by tier, an error-rate spike and the dependency state change', async () => {
  const inventoryPort = await freePort();
  app = await startFixture({
    script: 'app.mjs',
    cwd: join(ROOT, 'fixtures', 'http-plain'),
    otlpEndpoint: await receiver.start(),
    // The shortest detection window, so a sustained spike takes seconds here, not the default 30 s.
    env: { INVENTORY_PORT: String(inventoryPort), SVC_PATTERNS_WINDOW: '6s' },
    args: [`-Dsvc.dependencies[0].health-endpoint=http://127.0.0.1:${inventoryPort}/health`],
  });
  for (let i = 0; i < 30; i++) expect((await app.get(`/orders/${i}`)).status).toBe(200);
  // Failures sustained across the 6 s window, at about 5 a second.
  for (const until = Date.now() + 7500; Date.now() < until; ) {
    expect((await app.get('/orders/missing')).status).toBe(502);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  const events = (name: string) => receiver.logs.filter((l) => l.eventName === name);
  await receiver.waitFor(
    () =>
      events('svc.slo.budget_alert').length >= 2 &&
      events('svc.dependency.state_change').length >= 1 &&
      events('svc.anomaly.detected').some((e) => (e.body as Record<string, unknown>).pattern === 'error_rate_spike'),
  );

  // A fresh process's burst of failures is a slow burn (6h/30m above 6x) at the 2nd failure and a
  // fast burn (1h/5m above 14.4x) at the 6th; its 60-minute budget is barely spent (INFO never fires).
  expect(events('svc.slo.budget_alert').map((e) => [(e.body as Record<string, unknown>).severity, e.severityText, e.attributes['event.name']])).toEqual([
    ['WARNING', 'WARN', 'svc.slo.budget_alert'],
    ['CRITICAL', 'ERROR', 'svc.slo.budget_alert'],
  ]);
  expect(events('svc.slo.budget_alert')[0]!.body).toMatchObject({ slo_name: 'orders-availability' });
  expect(events('svc.dependency.state_change')[0]!.body).toMatchObject({ dependency: 'inventory-service', previous_state: 'healthy' });
  expect(events('svc.anomaly.detected').map((e) => (e.body as Record<string, unknown>).pattern)).toContain('error_rate_spike');

  // Spans and log records are exported by separate batch processors: the span may come later.
  const failing = await receiver.waitFor(() => receiver.spans.find((s) => s.kind === SPAN_KIND.SERVER && s.attributes['url.path'] === '/orders/missing'));
  expect(failing.attributes).toMatchObject({ 'svc.slo.name': 'orders-availability', 'svc.slo.target': 0.99 });
  expect(failing.attributes['svc.slo.budget_remaining']).toBeLessThan(1);
});
