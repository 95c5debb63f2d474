/**
 * Every popular framework, started under the preload with no `svc.yml`: operations are named
 * `<METHOD> <route template>` in the canonical `{name}` spelling, for parametrised, nested
 * (mounted router, prefix, plugin) and failing routes; requests no route matched are one
 * `<METHOD> (unmatched route)` operation. The apps are in fixtures/frameworks/.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startFixture } from '../support/fixture-app.js';
import { OtlpReceiver, type ReceivedSpan, SPAN_KIND } from '../support/otlp-receiver.js';

let receiver: OtlpReceiver;
let endpoint: string;

beforeAll(async () => {
  // The instrumentation knows Express by its package name; the dev dependency is named express4.
  cpSync(join(ROOT, 'node_modules', 'express4'), join(ROOT, 'fixtures', 'frameworks', 'express4', 'node_modules', 'express'), { recursive: true, dereference: true });
  receiver = new OtlpReceiver();
  endpoint = await receiver.start();
});

afterAll(async () => {
  await receiver.stop();
});

interface Request {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly status: number;
}

const REQUESTS: readonly Request[] = [
  { method: 'GET', path: '/users/42', status: 200 },
  { method: 'POST', path: '/users', status: 201 },
  { method: 'GET', path: '/shop/orders/7/items/9', status: 200 },
  { method: 'GET', path: '/fail', status: 500 },
  { method: 'GET', path: '/no/such/route', status: 404 },
];

const ROUTED = ['GET /users/{id}', 'POST /users', 'GET /shop/orders/{orderId}/items/{itemId}', 'GET /fail', 'GET (unmatched route)'];

/** The operation a server span was counted under: its svc.operation.name, else its own name. */
function operationOf(span: ReceivedSpan): string {
  return (span.attributes['svc.operation.name'] as string | undefined) ?? span.name;
}

async function operationNames(script: string, args: string[] = []): Promise<string[]> {
  // One service name per app, as the apps run side by side.
  const service = [script, ...args].join(' ');
  const app = await startFixture({ script, args, cwd: join(ROOT, 'fixtures', 'frameworks'), otlpEndpoint: endpoint, env: { OTEL_SERVICE_NAME: service } });
  try {
    const statuses: number[] = [];
    for (const { method, path } of REQUESTS) {
      const response = await app.get(path, { method, headers: { 'content-type': 'application/json' }, body: method === 'POST' ? '{"name":"ada"}' : undefined });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toEqual(REQUESTS.map((r) => r.status));
    const servers = await receiver.waitFor(() => {
      const mine = receiver.spans.filter((s) => s.kind === SPAN_KIND.SERVER && s.resource['service.name'] === service);
      return mine.length >= REQUESTS.length && mine;
    });
    return REQUESTS.map(({ method, path }) => {
      const span = servers.find((s) => s.attributes['http.request.method'] === method && s.attributes['url.path'] === path);
      return span ? operationOf(span) : `no server span for ${method} ${path}`;
    });
  } finally {
    await app.stop();
  }
}

describe.concurrent('operation names with no configuration', () => {
  it.each([
    ['Express 5', 'express5.mjs', []],
    ['Express 4', 'express4/app.cjs', []],
    ['Fastify 5', 'fastify5.mjs', []],
    ['Fastify 4', 'fastify4.cjs', []],
    ['Fastify 5 registering @fastify/otel itself', 'fastify5.mjs', ['--register-fastify-otel']],
    ['NestJS on Express', 'nest.cjs', ['express']],
    ['NestJS on Fastify', 'nest.cjs', ['fastify']],
    ['Koa with @koa/router', 'koa.mjs', []],
    ['Hapi', 'hapi.mjs', []],
  ])('%s: <METHOD> <route template>', async (_framework, script, args) => {
    expect(await operationNames(script, args)).toEqual(ROUTED);
  });

  it('plain node:http: templates inferred from the path, 404s unmatched', async () => {
    expect(await operationNames('http.mjs')).toEqual(['GET /users/{param:int}', 'POST /users', 'GET /shop/orders/{param:int}/items/{param:int}', 'GET /fail', 'GET (unmatched route)']);
  });
});
