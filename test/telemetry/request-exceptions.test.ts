/**
 * A request's exception recorded on another of its spans counts for the operation of its server
 * span, as Express (the route handler's span) and NestJS (its handler's span, under its request
 * context span) record them: span trees built with the SDK's tracer behind the engine's processor.
 */
import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { type ReadableSpan, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { RequestExceptions } from '../../src/telemetry/request-exceptions.js';
import { engineHarness } from '../support/engine-harness.js';

function requests() {
  const h = engineHarness();
  const tracer = new TracerProvider({ spanProcessors: [h.engine.createSpanProcessor()] }).getTracer('request-exceptions');
  const server = (route: string) => tracer.startSpan(`GET ${route}`, { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET', 'http.route': route } });
  const child = (parent: Span, name: string, kind = SpanKind.INTERNAL) => tracer.startSpan(name, { kind }, trace.setSpan(context.active(), parent));
  const thrown = (span: Span, error: Error) => {
    span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  const failed = (span: Span) => {
    span.setAttribute('http.response.status_code', 500);
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  const categoriesOf = (route: string) => h.engine.errorCategories.of(`GET ${route}`).map((c) => `${c.name} ${c.count}`);
  return { server, child, thrown, failed, categoriesOf };
}

describe('request exceptions', () => {
  it("counts an Express route handler's exception for the server span's operation", () => {
    const { server, child, thrown, failed, categoriesOf } = requests();
    for (const id of [7, 8]) {
      const request = server('/users/:id');
      thrown(child(request, 'request handler - /users/:id'), new TypeError(`Cannot read properties of undefined (reading 'findIndex') for user ${id}`));
      failed(request);
    }
    expect(categoriesOf('/users/{id}')).toEqual(['TypeError: Cannot read properties of undefined (reading <str>) for user <num> 2']);
  });

  it("counts a NestJS handler's exception, two spans below the server span", () => {
    const { server, child, thrown, failed, categoriesOf } = requests();
    const request = server('/orders');
    const requestContext = child(request, 'OrdersController');
    thrown(child(requestContext, 'create'), new RangeError('quantity 0 out of range'));
    requestContext.end();
    failed(request);
    expect(categoriesOf('/orders')).toEqual(['RangeError: quantity <num> out of range 1']);
  });

  it('takes the exception of the span that ended last, and keeps concurrent requests apart', () => {
    const { server, child, thrown, failed, categoriesOf } = requests();
    const first = server('/pay');
    const second = server('/pay');
    thrown(child(first, 'POST', SpanKind.CLIENT), new Error('connect ECONNREFUSED 10.0.0.7:5432'));
    thrown(child(second, 'request handler - /pay'), new SyntaxError('Unexpected token < in JSON'));
    thrown(child(first, 'request handler - /pay'), new TypeError('amount is not a function'));
    failed(second);
    failed(first);
    expect(categoriesOf('/pay').sort()).toEqual(['SyntaxError: Unexpected token < in JSON 1', 'TypeError: amount is not a function 1']);
  });

  it('keeps the status category of a failed request with no exception, after a request that caught one and succeeded', () => {
    const { server, child, thrown, failed, categoriesOf } = requests();
    const caught = server('/stock');
    thrown(child(caught, 'GET', SpanKind.CLIENT), new Error('socket hang up'));
    caught.end();
    failed(server('/stock'));
    expect(categoriesOf('/stock')).toEqual(['HTTP 500 1']);
  });

  it('holds at most maxWaiting exceptions for parents that never end, dropping the oldest', () => {
    const tracer = new TracerProvider().getTracer('orphans');
    const exceptions = new RequestExceptions(2);
    const parents = [0, 1, 2].map((i) => tracer.startSpan(`parent ${i}`));
    for (const [i, parent] of parents.entries()) {
      const orphan = tracer.startSpan(`child ${i}`, {}, trace.setSpan(context.active(), parent));
      orphan.recordException(new Error(`failure ${i}`));
      orphan.end();
      exceptions.passUp(orphan as unknown as ReadableSpan, undefined);
    }
    const messages = parents.map((p) => exceptions.take(p as unknown as ReadableSpan)?.attributes?.['exception.message']);
    expect(messages).toEqual([undefined, 'failure 1', 'failure 2']);
  });
});
