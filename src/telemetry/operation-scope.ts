/**
 * Runs a decorated method as an operation. An operation named like a web operation
 * (`GET /orders/{id}`) called inside an HTTP request marks that request's server span (found
 * through OTel's RPC metadata) as this operation; any other operation runs in an internal span
 * named after it, so a service method called by a handler never takes over the request.
 * Does nothing extra while svc is not active.
 */
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { getRPCMetadata } from '@opentelemetry/core';
import { decoratorRegistry } from '../metadata/decorator-registry.js';
import { runtime } from '../runtime.js';

const TRACER_NAME = '@svc/register';
const WEB_OPERATION = /^[A-Z]+ \//;

function endWithError(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  span.end();
}

export function runAsOperation<T>(name: string, body: () => T): T {
  if (!runtime().active) return body();
  const spans = decoratorRegistry().operationOfSpan;
  const request = WEB_OPERATION.test(name) ? getRPCMetadata(context.active()) : undefined;
  if (request?.span) {
    spans.set(request.span, name);
    return body();
  }
  return trace.getTracer(TRACER_NAME).startActiveSpan(name, { kind: SpanKind.INTERNAL }, (span) => {
    spans.set(span, name);
    let result: T;
    try {
      result = body();
    } catch (error) {
      endWithError(span, error);
      throw error;
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => {
          span.end();
          return value;
        },
        (error: unknown) => {
          endWithError(span, error);
          throw error;
        },
      ) as T;
    }
    span.end();
    return result;
  });
}
