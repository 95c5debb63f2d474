/**
 * A real NestJS 11 app (fixtures/nest, compiled by tsc as `nest new` compiles: CommonJS, legacy
 * decorators, emitDecoratorMetadata) whose handlers carry @AgentOperation above, below and between
 * Nest's decorators, on the Express and the Fastify adapter, with and without the preload: every
 * route answers its own status (not 404), route metadata read by a guard, `@HttpCode`, `@Header`
 * and the ValidationPipe's DTO type survive, TypeORM and class-validator still see the entity,
 * and under the preload each decorated method runs as its operation.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureApp, ROOT, startFixture } from '../support/fixture-app.js';
import { OtlpReceiver, type ReceivedSpan, SPAN_KIND } from '../support/otlp-receiver.js';

const FIXTURE_DIR = join(ROOT, 'fixtures', 'nest');
const SCRIPT = 'dist/app.cjs';
const JSON_HEADERS = { 'content-type': 'application/json' };
const VALID = JSON.stringify({ name: 'widget', quantity: 3 });
const INVALID = JSON.stringify({ name: 'w', quantity: -1 });

type Get = (path: string, init?: RequestInit) => Promise<Response>;

/** The routes as the fixture declares them; every one must answer as if svc were not there. */
async function expectEveryRouteAnswers(get: Get): Promise<void> {
  // @AgentOperation above @Get and @Header.
  const find = await get('/items/7');
  expect(find.status).toBe(200);
  expect(find.headers.get('x-route')).toBe('find');
  expect(await find.json()).toEqual({ id: '7', stock: 3 });
  // Below them.
  const stock = await get('/items/42/stock');
  expect(stock.status).toBe(200);
  expect(stock.headers.get('x-route')).toBe('stock');
  expect(await stock.json()).toEqual({ id: '42', stock: 6 });
  // Between @Get and the metadata a guard reads: without the header the guard refuses.
  expect((await get('/items/secret/1')).status).toBe(403);
  const secret = await get('/items/secret/1', { headers: { 'x-api-key': 'k' } });
  expect(secret.status).toBe(200);
  expect(await secret.json()).toEqual({ id: '1', secret: true });
  // Above @Post, @HttpCode(202) and @UsePipes(ValidationPipe): the DTO type comes from design:paramtypes.
  const created = await get('/items', { method: 'POST', headers: JSON_HEADERS, body: VALID });
  expect(created.status).toBe(202);
  expect(await created.json()).toEqual({ created: 'widget' });
  const refused = await get('/items', { method: 'POST', headers: JSON_HEADERS, body: INVALID });
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { message: string[] }).message).toHaveLength(2);
  // Below @Put, @HttpCode(202) and @UsePipes(ValidationPipe).
  const replaced = await get('/items/9', { method: 'PUT', headers: JSON_HEADERS, body: VALID });
  expect(replaced.status).toBe(202);
  expect(await replaced.json()).toEqual({ replaced: '9', name: 'widget' });
  expect((await get('/items/9', { method: 'PUT', headers: JSON_HEADERS, body: INVALID })).status).toBe(400);
  // TypeORM's metadata storage and class-validator's see the entity; its listeners run.
  const entity = await get('/entity');
  expect(entity.status).toBe(200);
  expect(await entity.json()).toEqual({
    table: 'items',
    columns: ['id', 'name'],
    listeners: [
      { propertyName: 'stamp', type: 'before-insert' },
      { propertyName: 'touch', type: 'before-update' },
    ],
    invalid: ['name'],
    stamped: 11,
  });
  // A route that does not exist still is a 404 (the statuses above are the app's own).
  expect((await get('/items')).status).toBe(404);
}

describe.each(['express', 'fastify'])('NestJS 11 on the %s adapter', (adapter) => {
  describe('under the preload', () => {
    const receiver = new OtlpReceiver();
    let app: FixtureApp;

    beforeAll(async () => {
      app = await startFixture({ script: SCRIPT, args: [adapter], cwd: FIXTURE_DIR, otlpEndpoint: await receiver.start(), env: { OTEL_SERVICE_NAME: `nest-${adapter}` } });
    });
    afterAll(async () => {
      await app?.stop();
      await receiver.stop();
    });

    it('every route answers its own status, whichever side of Nest’s decorators @AgentOperation sits', async () => {
      await expectEveryRouteAnswers(app.get);
      expect(app.stderr()).not.toMatch(/failed/);
    });

    it('each decorated method runs as its operation, with its declared metadata', async () => {
      const runbook = (span: ReceivedSpan | undefined) => span?.attributes['svc.operation.runbook_url'];
      // Nest's own instrumentation names its request_context span `Class.method` too: svc's is the other one.
      const internal = (name: string) => receiver.waitFor(() => receiver.spans.find((s) => s.kind === SPAN_KIND.INTERNAL && s.name === name && !('nestjs.type' in s.attributes)));
      const server = (method: string, path: string, status: number) =>
        receiver.waitFor(() =>
          receiver.spans.find(
            (s) => s.kind === SPAN_KIND.SERVER && s.attributes['http.request.method'] === method && s.attributes['url.path'] === path && s.attributes['http.response.status_code'] === status,
          ),
        );
      // Web operation names mark the request's server span (the span's own name is the router's business).
      expect(runbook(await server('GET', '/items/7', 200))).toBe('https://runbooks.example/items-find');
      expect(runbook(await server('POST', '/items', 202))).toBe('https://runbooks.example/items-create');
      // Other operations run in their own span, named after the class and method.
      expect(runbook(await internal('ItemsController.stock'))).toBe('https://runbooks.example/items-stock');
      expect(runbook(await internal('ItemsController.secret'))).toBe('https://runbooks.example/items-secret');
      expect(runbook(await internal('ItemsController.replace'))).toBe('https://runbooks.example/items-replace');
      expect(runbook(await internal('ItemsService.lookup'))).toBe('https://runbooks.example/service-lookup');
      expect(runbook(await internal('ItemEntity.stamp'))).toBe('https://runbooks.example/entity-stamp');
      expect(runbook(await internal('ItemEntity.touch'))).toBe('https://runbooks.example/entity-touch');
    });
  });

  it('without the preload, every route answers its own status too', async () => {
    const child = spawn(process.execPath, [SCRIPT, adapter], { cwd: FIXTURE_DIR, stdio: ['ignore', 'pipe', 'inherit'], env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let stdout = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          const match = /LISTENING (\d+)/.exec((stdout += chunk.toString()));
          if (match) resolve(Number(match[1]));
        });
        child.on('exit', (code) => reject(new Error(`fixture exited (${code}) before listening`)));
      });
      await expectEveryRouteAnswers((path, init) => fetch(`http://127.0.0.1:${port}${path}`, init));
    } finally {
      child.kill('SIGTERM');
    }
  });
});
