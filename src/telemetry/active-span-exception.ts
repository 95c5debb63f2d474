/**
 * An exception recorded on the request's active span (its server span, where svc's default set
 * makes no layer spans), once per error object: an error that later layers pass on, or that
 * rethrows through the layers around it, is recorded where it is first seen. Used by the Express
 * and Koa instrumentations of the default set (express-exceptions.ts, koa-routes.ts).
 */
import { trace } from '@opentelemetry/api';

const recorded = new WeakSet<object>();

export function recordOnActiveSpan(error: unknown): void {
  if (typeof error === 'object' && error !== null) {
    if (recorded.has(error)) return;
    recorded.add(error);
  }
  trace.getActiveSpan()?.recordException(error instanceof Error ? error : String(error));
}
