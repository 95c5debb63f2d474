/**
 * Fastify's matched route on the HTTP server span, so Fastify operations are named
 * `<METHOD> <route>` (docs/telemetry.md "Fastify"). auto-instrumentations-node has no Fastify
 * instrumentation. Fastify announces every instance on the `fastify.initialization` diagnostics
 * channel (Fastify 4 and 5); svc adds one `onRequest` hook there that hands the matched route to
 * the HTTP instrumentation through OpenTelemetry's RPC metadata, the way `@fastify/otel` does.
 *
 * svc does not register `@fastify/otel` itself: an app that also registers it, as Fastify's
 * documentation advises, would then fail to start (FST_ERR_DEC_ALREADY_PRESENT). Apps that want
 * its hook and handler spans register it; both then work side by side.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { context } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';

const CHANNEL = 'fastify.initialization';

interface FastifyRequestLike {
  readonly routeOptions?: { readonly url?: string };
  readonly routerPath?: string;
}

interface FastifyInstanceLike {
  addHook(name: 'onRequest', hook: (request: FastifyRequestLike, reply: unknown, done: () => void) => void): unknown;
}

function setRoute(request: FastifyRequestLike, _reply: unknown, done: () => void): void {
  const metadata = getRPCMetadata(context.active());
  if (metadata?.type === RPCType.HTTP) {
    // routeOptions arrived in Fastify 4.10; routerPath before it (reading it later warns)
    const route = request.routeOptions ? request.routeOptions.url : request.routerPath;
    if (route) metadata.route = route;
  }
  done();
}

function onInitialization(message: unknown): void {
  const fastify = (message as { fastify?: FastifyInstanceLike } | undefined)?.fastify;
  fastify?.addHook('onRequest', setRoute);
}

/** Starts adding the hook to each Fastify instance created from now on; returns the undo. */
export function nameFastifyRoutes(): () => void {
  subscribe(CHANNEL, onInitialization);
  return () => unsubscribe(CHANNEL, onInitialization);
}
