/**
 * Runs a decorated method as an operation. An operation named like a web operation
 * (`GET /orders/{id}`) called inside an HTTP request marks that request's server span (found
 * through OTel's RPC metadata) as this operation; any other operation runs in an internal span
 * named after it, so a service method called by a handler never takes over the request.
 * Does nothing extra while svc is not active, and a failure of svc's part never stops the method.
 */
import { type Context, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { getRPCMetadata } from '@opentelemetry/core';
import { reportError } from '../shared/report-error.js';

const TRACER_NAME = '@svc/register';
const WEB_OPERATION = /^[A-Z]+ \//;

function endWithError(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  span.end();
}

/** Where decorated methods meet svc: whether it runs, and which spans belong to an operation (the decorator registry). */
export interface OperationScope {
  readonly active: boolean;
  readonly operationOfSpan: WeakMap<object, string>;
}

/** svc's part before the method: marks the request, or starts the operation's span. */
function begin(spans: WeakMap<object, string>, name: string): { span: Span; context: Context } | undefined {
  const request = WEB_OPERATION.test(name) ? getRPCMetadata(context.active()) : undefined;
  if (request?.span) {
    spans.set(request.span, name);
    return undefined;
  }
  const span = trace.getTracer(TRACER_NAME).startSpan(name, { kind: SpanKind.INTERNAL });
  spans.set(span, name);
  return { span, context: trace.setSpan(context.active(), span) };
}

/** `nameOf` is evaluated only while svc is active, and its failure only costs the enrichment. */
export function runAsOperation<T>(scope: OperationScope, nameOf: () => string, body: () => T): T {
  if (!scope.active) return body();
  let started: { span: Span; context: Context } | undefined;
  try {
    started = begin(scope.operationOfSpan, nameOf());
  } catch (error) {
    reportError('@AgentOperation', error);
    return body();
  }
  if (!started) return body();
  const { span } = started;
  return context.with(started.context, () => {
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
