/**
 * The traces an SRE reads are the same under svc's default instrumentations as under
 * OpenTelemetry's own register: the same requests to the same app (fixtures/frameworks/span-tree.cjs)
 * give the same server spans (name, route, status), client spans and exception events; what svc
 * leaves out (middleware layers, the router package's repeats of Express's, TCP connections) is
 * listed here. And svc loads the instrumentations of
 * what the app loads, and no other.
 */
import { cpSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureApp, ROOT, startFixture } from '../support/fixture-app.js';
import { OtlpReceiver, type ReceivedSpan, SPAN_KIND } from '../support/otlp-receiver.js';

const PATHS = ['/users/42', '/users/42/profile', '/fail', '/no/such/route'];

let receiver: OtlpReceiver;
let endpoint: string;
let upstream: Server;
let upstreamUrl: string;

beforeAll(async () => {
  receiver = new OtlpReceiver();
  endpoint = await receiver.start();
  upstream = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"plan":"gold"}'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await receiver.stop();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

/** What an SRE reads of one request's trace. */
interface Trace {
  server: { name: string; route: unknown; status: unknown; error: boolean };
  clients: string[];
  exceptions: unknown[];
  /** Exception events in all, repeats included. */
  exceptionEvents: number;
  /** Every span's name, instrumentation and Express layer type, for what one side leaves out. */
  spans: { name: string; scope: string; expressType: unknown }[];
}

function traceOf(spans: readonly ReceivedSpan[]): Trace {
  const server = spans.find((s) => s.kind === SPAN_KIND.SERVER);
  if (!server) throw new Error(`a trace without a server span: ${spans.map((s) => s.name).join(', ')}`);
  return {
    server: { name: server.name, route: server.attributes['http.route'], status: server.attributes['http.response.status_code'], error: server.statusCode === 2 },
    clients: spans.filter((s) => s.kind === SPAN_KIND.CLIENT).map((s) => `${s.name} ${s.attributes['server.port'] === undefined ? '' : 'upstream'}`),
    // OpenTelemetry records an exception again on every layer span it passes through: the distinct ones.
    exceptions: [...new Set(spans.flatMap((s) => s.events.filter((e) => e.name === 'exception').map((e) => e.attributes['exception.message'])))],
    exceptionEvents: spans.reduce((count, s) => count + s.events.filter((e) => e.name === 'exception').length, 0),
    spans: spans.map((s) => ({ name: s.name, scope: s.scope.replace('@opentelemetry/instrumentation-', ''), expressType: s.attributes['express.type'] })).sort((a, b) => a.name.localeCompare(b.name)),
  };
}

interface App {
  readonly script: string;
  readonly args?: string[];
  readonly paths: readonly string[];
}

const SPAN_TREE_APP: App = { script: join(ROOT, 'fixtures', 'frameworks', 'span-tree.cjs'), paths: PATHS };

async function run(service: string, preload: string, env: Record<string, string> = {}, { script, args, paths }: App = SPAN_TREE_APP): Promise<{ traces: Map<string, Trace>; app: FixtureApp }> {
  const app = await startFixture({
    script,
    args,
    cwd: join(ROOT, 'fixtures', 'frameworks'),
    otlpEndpoint: endpoint,
    preload,
    env: { OTEL_SERVICE_NAME: service, UPSTREAM_URL: upstreamUrl, ...env },
  });
  try {
    for (const path of paths) await (await app.get(path)).arrayBuffer();
    // A request's spans end before its server span, so they are exported with it or before it.
    const mine = (): ReceivedSpan[] => receiver.spans.filter((s) => s.resource['service.name'] === service);
    await receiver.waitFor(() => mine().filter((s) => s.kind === SPAN_KIND.SERVER).length >= paths.length);
    const traces = new Map<string, Trace>();
    for (const path of paths) {
      const server = mine().find((s) => s.kind === SPAN_KIND.SERVER && s.attributes['url.path'] === path);
      if (!server) throw new Error(`${service}: no server span for ${path}`);
      traces.set(path, traceOf(mine().filter((s) => s.traceId === server.traceId)));
    }
    return { traces, app };
  } finally {
    // OpenTelemetry's register keeps a process alive through SIGTERM (it only shuts the SDK down).
    app.child.kill('SIGKILL');
    await app.exited();
  }
}

describe('the span tree of svc default instrumentations against OpenTelemetry register', () => {
  let otel: Map<string, Trace>;
  let svc: Map<string, Trace>;
  let svcApp: FixtureApp;

  beforeAll(async () => {
    [{ traces: otel }, { traces: svc, app: svcApp }] = await Promise.all([
      run('span-tree-otel', '@opentelemetry/auto-instrumentations-node/register'),
      run('span-tree-svc', join(ROOT, 'register.mjs')),
    ]);
  }, 60_000);

  it.each(PATHS)('%s: the same server span, client spans and exceptions', (path) => {
    const [o, s] = [otel.get(path)!, svc.get(path)!];
    expect(s.server).toEqual(o.server);
    expect(s.clients).toEqual(o.clients);
    expect(s.exceptions).toEqual(o.exceptions);
  });

  it('names routes, calls upstream and records the exception as an SRE reads them', () => {
    expect(svc.get('/users/42/profile')!.server).toEqual({ name: 'GET /users/:id/profile', route: '/users/:id/profile', status: 200, error: false });
    expect(svc.get('/users/42/profile')!.clients).toEqual(['GET upstream']);
    expect(svc.get('/fail')!.server).toMatchObject({ route: '/fail', status: 500, error: true });
    expect(svc.get('/fail')!.exceptions).toEqual(['failing route']);
  });

  it('leaves out the spans of middleware layers, of the router package and of TCP connections, and only those', () => {
    // Express 5 routes through the `router` package, whose own instrumentation repeats Express's layers.
    expect(leftOut(otel, svc)).toEqual([
      'express: middleware - <anonymous> (middleware)',
      'express: middleware - jsonParser (middleware)',
      'express: request handler (request_handler)',
      'net: tcp.connect',
      'router: middleware - patched',
      'router: request handler - /fail',
      'router: request handler - /users/:id',
      'router: request handler - /users/:id/profile',
    ]);
  });

  it('loads the instrumentations of what the app loads, and no other', () => {
    // redis, pg's siblings and the rest are installed beside the app (svc's own dependencies and dev dependencies) but never loaded.
    expect(/INSTRUMENTATIONS (\S*)/.exec(svcApp.stdout())?.[1]).toBe('express,http,undici');
  });
});

/** The spans of OpenTelemetry's traces with no span of the same name in svc's, described. */
function leftOut(otel: Map<string, Trace>, svc: Map<string, Trace>): string[] {
  const spans = [...otel.keys()].flatMap((path) => {
    const kept = svc.get(path)!.spans.map((s) => s.name);
    return otel.get(path)!.spans.filter((s) => !kept.includes(s.name));
  });
  return [...new Set(spans.map((s) => `${s.scope}: ${s.name}${s.expressType ? ` (${s.expressType})` : ''}`))].sort();
}

describe.each([
  ['koa', ['koa: middleware - anonymous', 'koa: router - /users/:id', 'koa: router - /users/:id/orders/:orderId']],
  [
    'nestjs',
    [
      'express: middleware - <anonymous> (middleware)',
      'express: middleware - jsonParser (middleware)',
      'express: middleware - urlencodedParser (middleware)',
      'express: request handler (request_handler)',
      'router: middleware - patched',
      'router: request handler - /users/:id',
      'router: request handler - /users/:id/orders/:orderId',
    ],
  ],
  ['http', []],
])('%s (bench/framework-app.cjs): the same server spans', (framework, expectedLeftOut) => {
  const app: App = { script: join(ROOT, 'bench', 'framework-app.cjs'), args: [framework], paths: ['/users/42', '/users/42/orders/7', '/no/such/route'] };
  let otel: Map<string, Trace>;
  let svc: Map<string, Trace>;

  beforeAll(async () => {
    [{ traces: otel }, { traces: svc }] = await Promise.all([
      run(`span-tree-otel-${framework}`, '@opentelemetry/auto-instrumentations-node/register', {}, app),
      run(`span-tree-svc-${framework}`, join(ROOT, 'register.mjs'), {}, app),
    ]);
  }, 60_000);

  it('names, routes and statuses as OpenTelemetry register, and leaves out only what is listed', () => {
    for (const path of app.paths) expect(svc.get(path)!.server).toEqual(otel.get(path)!.server);
    expect(leftOut(otel, svc)).toEqual(expectedLeftOut);
  });
});

describe('exceptions without a span per Express or Koa layer', () => {
  beforeAll(() => {
    // The instrumentation knows Express by its package name; the dev dependency is named express4.
    cpSync(join(ROOT, 'node_modules', 'express4'), join(ROOT, 'fixtures', 'frameworks', 'express4', 'node_modules', 'express'), { recursive: true, dereference: true });
  });

  it.each([
    ['Express 5, an ES module app', 'express5.mjs'],
    ['Express 4', 'express4/app.cjs'],
    ['Koa with @koa/router, an ES module app', 'koa.mjs'],
  ])('%s: the exception a route throws is on the server span, recorded once', async (_name, script) => {
    const app: App = { script: join(ROOT, 'fixtures', 'frameworks', script), paths: ['/fail', '/users/42'] };
    const { traces } = await run(`span-tree-exceptions-${script}`, join(ROOT, 'register.mjs'), {}, app);
    const failing = traces.get('/fail')!;
    expect(failing.server).toMatchObject({ status: 500, error: true, route: '/fail' });
    expect(failing.spans.map((s) => s.name)).toEqual(['GET /fail']);
    expect(failing.exceptions).toEqual(['failing route']);
    expect(failing.exceptionEvents).toBe(1);
    expect(traces.get('/users/42')!.exceptionEvents).toBe(0);
  });
});

describe('choosing instrumentations', () => {
  it('svc.telemetry.middleware-spans brings the middleware spans back', async () => {
    const { traces } = await run('span-tree-middleware', join(ROOT, 'register.mjs'), { SVC_TELEMETRY_MIDDLEWARE_SPANS: 'true' });
    expect(traces.get('/users/42')!.spans.map((s) => s.name)).toContain('middleware - jsonParser');
  });

  it('OTEL_NODE_DISABLED_INSTRUMENTATIONS removes one: no route from Express, the HTTP spans stay', async () => {
    const { traces, app } = await run('span-tree-no-express', join(ROOT, 'register.mjs'), { OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'express' });
    expect(traces.get('/users/42')!.server.route).toBeUndefined();
    expect(traces.get('/users/42/profile')!.clients).toEqual(['GET upstream']);
    expect(/INSTRUMENTATIONS (\S*)/.exec(app.stdout())?.[1]).toBe('http,undici');
  });
});
