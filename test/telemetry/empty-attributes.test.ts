/**
 * No svc attribute is exported empty: a real Express app under the preload whose dependency is
 * declared without protocol or fallback (fixtures/express-esm/svc.yml) and whose topology has no
 * domain, on-call channel, repository or consumers, exporting to a real OTLP/HTTP endpoint.
 * Every svc.* attribute on every span, and on the Resource of spans and log records, has a value.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type FixtureApp, freePort, ROOT, startFixture } from '../support/fixture-app.js';
import { type Attributes, OtlpReceiver, SPAN_KIND } from '../support/otlp-receiver.js';

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

/** The svc.* attributes whose value is missing, "" or an empty array, as `where: key`. */
function emptySvcAttributes(where: string, attributes: Attributes): string[] {
  return Object.entries(attributes)
    .filter(([key, value]) => key.startsWith('svc.') && (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)))
    .map(([key]) => `${where}: ${key}`);
}

it('exports no empty svc.* attribute on spans or the Resource for a dependency declared without protocol and fallback', async () => {
  const endpoint = await receiver.start();
  const inventoryPort = await freePort();
  app = await startFixture({
    script: 'app.mjs',
    cwd: join(ROOT, 'fixtures', 'express-esm'),
    otlpEndpoint: endpoint,
    // Set to "" explicitly, as a deployment pipeline with an unset variable would.
    env: { INVENTORY_PORT: String(inventoryPort), SVC_DEPLOYMENT_COMMIT_SHA: '', SVC_TOPOLOGY_DOMAIN: '' },
    args: [`-Dsvc.dependencies[0].health-endpoint=http://127.0.0.1:${inventoryPort}/health`],
  });
  expect((await app.get('/orders/42')).status).toBe(200);
  expect((await app.get('/orders/missing')).status).toBe(502);
  await app.stop();

  const client = receiver.spans.find((s) => s.kind === SPAN_KIND.CLIENT && s.attributes['svc.dependency.name'] === 'inventory-service');
  expect(client, 'a client span matched to the declared dependency').toBeDefined();
  const dependencyKeys = Object.keys(client!.attributes).filter((key) => key.startsWith('svc.dependency.'));
  expect(dependencyKeys.sort()).toEqual([
    'svc.dependency.circuit_breaker',
    'svc.dependency.criticality',
    'svc.dependency.declared',
    'svc.dependency.name',
    'svc.dependency.timeout_ms',
    'svc.dependency.type',
  ]);
  expect(client!.resource['svc.topology.dependencies']).toEqual(['inventory-service']);
  expect(client!.resource).not.toHaveProperty('svc.topology.consumers');
  expect(client!.resource).not.toHaveProperty('svc.topology.domain');
  expect(client!.resource).not.toHaveProperty('svc.deployment.commit_sha');

  const server = receiver.spans.filter((s) => s.kind === SPAN_KIND.SERVER);
  expect(server.length).toBeGreaterThanOrEqual(2);
  const empty = [
    ...receiver.spans.flatMap((span) => [...emptySvcAttributes(`span ${span.name}`, span.attributes), ...emptySvcAttributes(`resource of span ${span.name}`, span.resource)]),
    ...receiver.logs.flatMap((log) => emptySvcAttributes(`resource of log ${log.eventName}`, log.resource)),
  ];
  expect(empty).toEqual([]);
});
