/**
 * Which OpenTelemetry instrumentations svc sets up, and when (docs/telemetry.md "Instrumentations").
 *
 * The default set is what an SRE reads: server spans named by route, client spans for HTTP,
 * databases, caches, queues and RPC, exceptions, and trace ids in log records. It leaves out spans
 * per middleware layer (`svc.telemetry.middleware-spans` brings them back), per DNS lookup, `net`
 * connection, file access, pool checkout or memoised call, and the runtime metrics; `all` is
 * OpenTelemetry's own register's set with its options. `OTEL_NODE_ENABLED_INSTRUMENTATIONS`
 * replaces the set and `OTEL_NODE_DISABLED_INSTRUMENTATIONS` removes from it, as in
 * auto-instrumentations-node.
 *
 * An instrumentation of a package is loaded and enabled only when the application resolves that
 * package (a module resolve hook, ahead of the loaders that patch it): an app that never loads
 * `pg` pays nothing for the `pg` instrumentation, not even its load. Node's built-in modules
 * (`http`, `net`, `dns`, `fs`, `fetch`) are instrumented from the start.
 */
import * as nodeModule from 'node:module';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { INSTRUMENTATION_NAMES, type InstrumentationName } from '../shared/enums.js';
import { ExpressExceptionInstrumentation } from './express-exceptions.js';
import { KoaRouteInstrumentation } from './koa-routes.js';
import { loadPackage } from './load-package.js';

interface Entry {
  /** npm packages whose resolution sets the instrumentation up; none for Node's built-ins. */
  readonly packages: readonly string[];
  /** In svc's default set. */
  readonly byDefault: boolean;
  /** In OpenTelemetry's register's set (all but fs and host-metrics, as there). */
  readonly inAll?: false;
}

const CATALOG: Record<InstrumentationName, Entry> = {
  http: { packages: [], byDefault: true },
  undici: { packages: [], byDefault: true },
  express: { packages: ['express'], byDefault: true },
  koa: { packages: ['koa'], byDefault: true },
  'nestjs-core': { packages: ['@nestjs/core'], byDefault: true },
  hapi: { packages: ['@hapi/hapi'], byDefault: true },
  restify: { packages: ['restify'], byDefault: true },
  graphql: { packages: ['graphql'], byDefault: true },
  grpc: { packages: ['@grpc/grpc-js'], byDefault: true },
  'socket.io': { packages: ['socket.io'], byDefault: true },
  pg: { packages: ['pg', 'pg-pool'], byDefault: true },
  mysql: { packages: ['mysql'], byDefault: true },
  mysql2: { packages: ['mysql2'], byDefault: true },
  mongodb: { packages: ['mongodb'], byDefault: true },
  mongoose: { packages: ['mongoose'], byDefault: true },
  tedious: { packages: ['tedious'], byDefault: true },
  oracledb: { packages: ['oracledb'], byDefault: true },
  'cassandra-driver': { packages: ['cassandra-driver'], byDefault: true },
  redis: { packages: ['redis', '@redis/client', '@node-redis/client'], byDefault: true },
  ioredis: { packages: ['ioredis'], byDefault: true },
  memcached: { packages: ['memcached'], byDefault: true },
  amqplib: { packages: ['amqplib'], byDefault: true },
  kafkajs: { packages: ['kafkajs'], byDefault: true },
  'aws-sdk': { packages: ['@smithy/smithy-client', '@aws-sdk/smithy-client', '@smithy/core', '@smithy/middleware-stack', '@aws-sdk/middleware-stack'], byDefault: true },
  openai: { packages: ['openai'], byDefault: true },
  pino: { packages: ['pino'], byDefault: true },
  winston: { packages: ['winston'], byDefault: true },
  bunyan: { packages: ['bunyan'], byDefault: true },
  // Spans an SRE rarely reads, or that repeat others (knex's repeat the driver's; connect's and
  // router's are middleware layers).
  connect: { packages: ['connect'], byDefault: false },
  router: { packages: ['router'], byDefault: false },
  knex: { packages: ['knex'], byDefault: false },
  dataloader: { packages: ['dataloader'], byDefault: false },
  'generic-pool': { packages: ['generic-pool'], byDefault: false },
  'lru-memoizer': { packages: ['lru-memoizer'], byDefault: false },
  cucumber: { packages: ['@cucumber/cucumber'], byDefault: false },
  'aws-lambda': { packages: [], byDefault: false },
  dns: { packages: [], byDefault: false },
  net: { packages: [], byDefault: false },
  'runtime-node': { packages: [], byDefault: false },
  fs: { packages: [], byDefault: false, inAll: false },
  'host-metrics': { packages: [], byDefault: false, inAll: false },
};

export interface InstrumentationChoice {
  /** `svc.telemetry.instrumentations`: names, `default` and `all`. */
  readonly configured: readonly string[];
  /** Spans per Express and Koa layer (`svc.telemetry.middleware-spans`). */
  readonly middlewareSpans: boolean;
  readonly env: NodeJS.ProcessEnv;
  /** Whether a local port is svc's own: requests to it get no HTTP span. */
  readonly isOwnPort: (port: number) => boolean;
  /** Names in the OTEL_NODE_* variables that are no instrumentation. */
  readonly onUnknownName?: (variable: string, name: string) => void;
  /** An instrumentation that failed to load or enable: the app goes on without it. */
  readonly onFailure?: (name: InstrumentationName, error: unknown) => void;
}

type SetChoice = Pick<InstrumentationChoice, 'configured' | 'env' | 'onUnknownName'>;

/** The names a variable lists, trimmed; undefined when it is unset or blank. */
function listedIn(env: NodeJS.ProcessEnv, variable: string): string[] | undefined {
  const value = env[variable];
  return value?.trim()
    ? value
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean)
    : undefined;
}

function namesFromEnv(choice: SetChoice, variable: string): InstrumentationName[] | undefined {
  const listed = listedIn(choice.env, variable);
  if (!listed) return undefined;
  const names: InstrumentationName[] = [];
  for (const name of listed) {
    if ((INSTRUMENTATION_NAMES as readonly string[]).includes(name)) names.push(name as InstrumentationName);
    // `fastify` names svc's own Fastify route naming (namesFastifyRoutes), not an instrumentation of this catalog
    else if (name !== 'fastify') choice.onUnknownName?.(variable, name);
  }
  return names;
}

function expand(names: readonly string[]): InstrumentationName[] {
  return names.flatMap((name) => {
    if (name === 'default') return INSTRUMENTATION_NAMES.filter((n) => CATALOG[n].byDefault);
    if (name === 'all') return INSTRUMENTATION_NAMES.filter((n) => CATALOG[n].inAll !== false);
    return (INSTRUMENTATION_NAMES as readonly string[]).includes(name) ? [name as InstrumentationName] : [];
  });
}

/** The instrumentations chosen, in catalog order. */
export function chosenInstrumentations(choice: SetChoice): InstrumentationName[] {
  const chosen = new Set(namesFromEnv(choice, 'OTEL_NODE_ENABLED_INSTRUMENTATIONS') ?? expand(choice.configured));
  for (const name of namesFromEnv(choice, 'OTEL_NODE_DISABLED_INSTRUMENTATIONS') ?? []) chosen.delete(name);
  return INSTRUMENTATION_NAMES.filter((name) => chosen.has(name));
}

/** svc's options for an instrumentation; `all` keeps OpenTelemetry's own. */
function optionsOf(name: InstrumentationName, choice: InstrumentationChoice, lean: boolean): object {
  switch (name) {
    case 'http':
      return { ignoreIncomingRequestHook: (request: { socket?: { localPort?: number } }) => choice.isOwnPort(request.socket?.localPort ?? -1) };
    // No span per layer: the exception a handler throws is recorded on the server span (express-exceptions.ts).
    case 'express':
      return lean ? { ignoreLayersType: ['middleware', 'router', 'request_handler'] } : {};
    case 'graphql':
      return lean ? { ignoreResolveSpans: true } : {};
    default:
      return {};
  }
}

function instantiate(name: InstrumentationName, options: object): Instrumentation {
  const exports = loadPackage(`@opentelemetry/instrumentation-${name}`, '@opentelemetry/auto-instrumentations-node');
  const Class = Object.entries(exports).find(([key, value]) => key.endsWith('Instrumentation') && typeof value === 'function')?.[1] as new (options: object) => Instrumentation;
  return new Class(options);
}

/** An instrumentation with what svc's lean options need beside it, or instead of it: Koa's spans are all layer spans. */
function instantiateWithCompanions(name: InstrumentationName, options: object, lean: boolean): Instrumentation[] {
  if (name === 'koa' && lean) return [new KoaRouteInstrumentation()];
  const instrumentation = instantiate(name, options);
  return name === 'express' && lean ? [instrumentation, new ExpressExceptionInstrumentation()] : [instrumentation];
}

/** `express` for `express/lib/router`, `@nestjs/core` for `@nestjs/core/router`; undefined for relative, absolute and `node:` specifiers. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.includes(':')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

export interface InstrumentationSet {
  /** Whether svc names Fastify's routes (fastify-routes.ts): unless `OTEL_NODE_DISABLED_INSTRUMENTATIONS` lists `fastify`. */
  readonly namesFastifyRoutes: boolean;
  /** Instrumentations of Node's built-ins, for the SDK to enable at start. */
  readonly atStart: Instrumentation[];
  /** Starts setting up the others as the app resolves their packages; `enable` registers one with the SDK's providers. */
  watch(enable: (instrumentation: Instrumentation) => void): void;
}

export function instrumentationSet(choice: InstrumentationChoice): InstrumentationSet {
  const chosen = chosenInstrumentations(choice);
  const lean = !choice.configured.includes('all') && !choice.middlewareSpans;
  /** The instrumentations of `name`, none when it failed to load (reported: the app goes on without it). */
  const setUp = (name: InstrumentationName): Instrumentation[] => {
    try {
      return instantiateWithCompanions(name, optionsOf(name, choice, lean), lean);
    } catch (error) {
      choice.onFailure?.(name, error);
      return [];
    }
  };
  const atStart = chosen.filter((name) => CATALOG[name].packages.length === 0).flatMap(setUp);
  const waiting = new Map<string, InstrumentationName>();
  for (const name of chosen) for (const pkg of CATALOG[name].packages) waiting.set(pkg, name);
  const enableWith = (enable: (instrumentation: Instrumentation) => void, name: InstrumentationName): void => {
    for (const pkg of CATALOG[name].packages) waiting.delete(pkg);
    try {
      for (const instrumentation of setUp(name)) enable(instrumentation);
    } catch (error) {
      choice.onFailure?.(name, error);
    }
  };
  return {
    namesFastifyRoutes: !listedIn(choice.env, 'OTEL_NODE_DISABLED_INSTRUMENTATIONS')?.includes('fastify'),
    atStart,
    watch(enable) {
      if (waiting.size === 0) return;
      // Node before 22.15 has no module hooks in the application's thread: set everything up now.
      if (typeof nodeModule.registerHooks !== 'function') {
        for (const name of new Set(waiting.values())) enableWith(enable, name);
        return;
      }
      nodeModule.registerHooks({
        resolve(specifier, context, nextResolve) {
          const name = waiting.size > 0 ? waiting.get(packageOf(specifier) ?? '') : undefined;
          if (name !== undefined) enableWith(enable, name);
          return nextResolve(specifier, context);
        },
      });
    },
  };
}
