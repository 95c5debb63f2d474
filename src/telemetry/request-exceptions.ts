/**
 * The exception of a request recorded on a span other than its server span: Express records a
 * route handler's exception on the handler's span (`request handler - /fail`), NestJS on its
 * handler's span, children of the server span that end before it. A span that ends with an
 * exception event, or holding one passed up from a child, passes it up to its parent span; the
 * server span takes the one passed up to it. A later span's exception replaces an earlier one:
 * the last to end is the nearest the request's failure.
 *
 * A span with no events costs one test while no exception waits. Bounded: at most `maxWaiting`
 * exceptions wait for their parent to end (a parent that ended first, or in another process,
 * leaves one behind; the oldest is dropped).
 */
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';
import { exceptionEventOf } from '../analysis/error-categories.js';

export class RequestExceptions {
  private readonly waiting = new Map<string, TimedEvent>();

  constructor(private readonly maxWaiting = 1024) {}

  /** A span of a request ended: its exception, else `passedUp` (what `take` gave for it), goes to its parent. */
  passUp(span: ReadableSpan, passedUp: TimedEvent | undefined): void {
    if (span.events.length === 0 && passedUp === undefined) return;
    const exception = exceptionEventOf(span.events) ?? passedUp;
    const parent = span.parentSpanContext?.spanId;
    if (exception === undefined || parent === undefined) return;
    if (this.waiting.size >= this.maxWaiting && !this.waiting.has(parent)) this.waiting.delete(this.waiting.keys().next().value!);
    this.waiting.set(parent, exception);
  }

  /** The exception passed up to `span`, which no longer waits. */
  take(span: ReadableSpan): TimedEvent | undefined {
    if (this.waiting.size === 0) return undefined;
    const id = span.spanContext().spanId;
    const exception = this.waiting.get(id);
    if (exception !== undefined) this.waiting.delete(id);
    return exception;
  }
}
