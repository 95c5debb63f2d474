/**
 * Koa's matched route and a route's exception on the request's server span, for svc's default
 * instrumentation set, which makes no span per Koa layer: OpenTelemetry's Koa instrumentation
 * names the route (`ctx._matchedRoute`, set by `@koa/router`) and records exceptions only from
 * the router layer spans it makes. Here each layer a router dispatches hands its route to the
 * HTTP instrumentation through OpenTelemetry's RPC metadata before it runs, and the exception it
 * throws or rejects with is recorded once per request on the active span. Like OpenTelemetry's,
 * it sees the routes of routers given to `app.use` after the routes were declared. The success
 * path costs one function call per routed layer, and a `then` when the layer returns a promise.
 */
import { context } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import { InstrumentationBase, InstrumentationNodeModuleDefinition } from '@opentelemetry/instrumentation';
import { recordOnActiveSpan } from './active-span-exception.js';

type Middleware = (ctx: KoaContext, next: unknown) => unknown;

interface KoaContext {
  readonly _matchedRoute?: string | RegExp;
}

/** `router.routes()` of @koa/router: its routes' layers, each with the middleware it runs. */
interface RouterDispatch extends Middleware {
  readonly router?: { readonly stack?: { stack: Middleware[] }[] };
}

interface KoaModule {
  prototype: { use: Use };
}

const routed = Symbol('svc.koa.routed');

function record(error: unknown): never {
  recordOnActiveSpan(error);
  throw error;
}

function routedLayer(layer: Middleware): Middleware {
  const wrapped = (ctx: KoaContext, next: unknown): unknown => {
    const metadata = getRPCMetadata(context.active());
    if (metadata?.type === RPCType.HTTP && ctx._matchedRoute) metadata.route = ctx._matchedRoute.toString();
    let result: unknown;
    try {
      result = layer(ctx, next);
    } catch (error) {
      record(error);
    }
    return result instanceof Promise ? result.catch(record) : result;
  };
  return Object.assign(wrapped, { [routed]: true });
}

function withRoutedLayers(dispatch: RouterDispatch): RouterDispatch {
  for (const route of dispatch.router?.stack ?? []) {
    route.stack = route.stack.map((layer) => ((layer as Middleware & { [routed]?: true })[routed] ? layer : routedLayer(layer)));
  }
  return dispatch;
}

type Use = (middleware: Middleware) => unknown;

function routedUse(use: Use): Use {
  return function routedUse(this: unknown, middleware: Middleware) {
    return use.call(this, (middleware as RouterDispatch).router ? withRoutedLayers(middleware as RouterDispatch) : middleware);
  };
}

export class KoaRouteInstrumentation extends InstrumentationBase {
  constructor() {
    super('@svc/register/koa-routes', '1.0.0', {});
  }

  protected init() {
    const koaOf = (module: KoaModule & { default?: KoaModule }): KoaModule => ((module as { [Symbol.toStringTag]?: string })[Symbol.toStringTag] === 'Module' ? module.default! : module);
    return new InstrumentationNodeModuleDefinition(
      'koa',
      ['>=2 <4'],
      (module: KoaModule) => {
        this._wrap(koaOf(module).prototype, 'use', routedUse);
        return module;
      },
      (module: KoaModule) => this._unwrap(koaOf(module).prototype, 'use'),
    );
  }
}
