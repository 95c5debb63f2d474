// The fixture app of bench/performance.mjs: `node bench/framework-app.cjs express|fastify|koa|nestjs|http`,
// the same few routes on Express 5, Fastify 5, Koa 3, NestJS 11 (on Express) or plain node:http:
//   GET /users/:id                   a parametrised route
//   GET /users/:id/orders/:orderId   a nested one
//   anything else                    404
// Prints "LISTENING <port>". Over the IPC channel it answers "stats" with the process's CPU time
// (µs), RSS (bytes) and the requests served so far: the channel is no HTTP route, so measuring
// adds no span. CommonJS on purpose: OpenTelemetry's own `--import
// @opentelemetry/auto-instrumentations-node/register` registers no ESM loader hook, so an ESM app
// would import Express and Fastify past its instrumentations, and the two would not do the same
// work. Loaded by require(), both instrument the same modules.
const http = require('node:http');

const framework = process.argv[2];
const user = (id) => ({ id, name: `user-${id}`, tier: 'gold' });
const order = (id, orderId) => ({ userId: id, orderId, total: 42.5, lines: [{ sku: 'sku-1', qty: 2 }] });
const notFound = { error: 'not found' };

function express() {
  const app = require('express')();
  app.get('/users/:id', (req, res) => res.json(user(req.params.id)));
  app.get('/users/:id/orders/:orderId', (req, res) => res.json(order(req.params.id, req.params.orderId)));
  app.use((_req, res) => res.status(404).json(notFound));
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

async function fastify() {
  const app = require('fastify')();
  app.get('/users/:id', async (req) => user(req.params.id));
  app.get('/users/:id/orders/:orderId', async (req) => order(req.params.id, req.params.orderId));
  app.setNotFoundHandler((_req, reply) => reply.code(404).send(notFound));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app.server;
}

async function koa() {
  const Koa = require('koa');
  const Router = require('@koa/router');
  const app = new Koa();
  const router = new Router();
  router.get('/users/:id', (ctx) => {
    ctx.body = user(ctx.params.id);
  });
  router.get('/users/:id/orders/:orderId', (ctx) => {
    ctx.body = order(ctx.params.id, ctx.params.orderId);
  });
  app.use(router.routes());
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = notFound;
  });
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

/** NestJS on Express, its decorators applied by hand (this file is not compiled). */
async function nestjs() {
  require('reflect-metadata');
  const { Controller, Get, Module, Param } = require('@nestjs/common');
  const { NestFactory } = require('@nestjs/core');
  class UsersController {
    user(id) {
      return user(id);
    }
    order(id, orderId) {
      return order(id, orderId);
    }
  }
  const method = (name) => Object.getOwnPropertyDescriptor(UsersController.prototype, name);
  Get(':id')(UsersController.prototype, 'user', method('user'));
  Param('id')(UsersController.prototype, 'user', 0);
  Get(':id/orders/:orderId')(UsersController.prototype, 'order', method('order'));
  Param('id')(UsersController.prototype, 'order', 0);
  Param('orderId')(UsersController.prototype, 'order', 1);
  Controller('users')(UsersController);
  class AppModule {}
  Module({ controllers: [UsersController] })(AppModule);
  const app = await NestFactory.create(AppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  return app.getHttpServer();
}

function plain() {
  const json = (res, status, body) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = http.createServer((req, res) => {
    const match = req.method === 'GET' && /^\/users\/([^/]+)(?:\/orders\/([^/]+))?$/.exec(req.url);
    if (!match) json(res, 404, notFound);
    else if (match[2]) json(res, 200, order(match[1], match[2]));
    else json(res, 200, user(match[1]));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const starters = { express, fastify, koa, nestjs, http: plain };
if (!starters[framework]) throw new Error(`bench/framework-app.cjs: unknown framework "${framework}" (${Object.keys(starters).join(', ')})`);

let requests = 0;
starters[framework]().then((server) => {
  server.on('request', () => requests++);
  console.log(`LISTENING ${server.address().port}`);
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => {
      server.close();
      server.closeAllConnections();
      process.disconnect?.();
    });
  }
});
// "profile-start" / { profile: file }: a CPU profile of this thread from the one to the other,
// written to `file` (bench/performance.mjs reads where the time goes).
let profiler;
process.on('message', (message) => {
  if (message === 'stats') {
    const cpu = process.cpuUsage();
    process.send({ cpuMicros: cpu.user + cpu.system, rss: process.memoryUsage.rss(), requests });
  } else if (message === 'profile-start') {
    profiler = new (require('node:inspector').Session)();
    profiler.connect();
    profiler.post('Profiler.enable', () => profiler.post('Profiler.start', () => process.send({ profiling: true, requests })));
  } else if (message?.profile) {
    profiler.post('Profiler.stop', (_error, result) => {
      require('node:fs').writeFileSync(message.profile, JSON.stringify(result.profile));
      profiler.disconnect();
      process.send({ profiled: message.profile, requests });
    });
  }
});
