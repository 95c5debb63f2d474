/**
 * Why an operation's requests fail, by category, counted per operation for the error analysis:
 * - an exception: the last `exception` event of the request's operation span, else the one the
 *   span processor found on another span of the same request (an Express or NestJS handler's
 *   span), by its type and normalised message with the first stack frame in the app's own code
 *   (exception-category.ts);
 * - else the span's `error.type` (semantic conventions), else its HTTP status (`HTTP 503`), else
 *   `unknown`.
 * Bounded: at most MAX_CATEGORIES_PER_OPERATION categories per operation, the rest counted as
 * `other`; operations as the engine's. A message is normalised once while it is among the last
 * MESSAGE_CACHE_SIZE distinct ones: an error storm repeats a few messages.
 */
import type { Attributes } from '@opentelemetry/api';
import type { TimedEvent } from '@opentelemetry/sdk-trace';
import { BoundedMap } from './bounded-map.js';
import { appFrameOf, cutType, MAX_MESSAGE_READ, normalisedMessage } from './exception-category.js';

export const MAX_CATEGORIES_PER_OPERATION = 20;
const MESSAGE_CACHE_SIZE = 256;
const OTHER: ErrorCategory = Object.freeze({ name: 'other' });

export interface ErrorCategory {
  /** `TypeError: Cannot read properties of undefined (reading <str>)` for an exception; else error.type, `HTTP 503` or `unknown`. */
  readonly name: string;
  /** The exception's type (`TypeError`); undefined for a category without an exception or whose exception has none. */
  readonly exceptionType?: string;
  /** Where the exception was thrown: the first stack frame in the app's own code, `fn (file:line:column)`. */
  readonly frame?: string;
}

export interface ErrorCategoryCount extends ErrorCategory {
  readonly count: number;
}

/** The last `exception` event among `events`: the one nearest the failure. */
export function exceptionEventOf(events: readonly TimedEvent[]): TimedEvent | undefined {
  for (let i = events.length - 1; i >= 0; i--) if (events[i]!.name === 'exception') return events[i];
  return undefined;
}

export class ErrorCategories {
  private readonly counts: BoundedMap<string, Map<string, { category: ErrorCategory; count: number }>>;
  private readonly normalised = new Map<string, string>();

  /** `cwd`: frames in files under it are shown relative to it. */
  constructor(
    maxOperations = 1000,
    private readonly cwd = process.cwd(),
  ) {
    this.counts = new BoundedMap(maxOperations, () => new Map());
  }

  /** Counts a failed request of `operation`: its span's attributes and events, and the exception of its request found on another span. */
  record(operation: string, attributes: Attributes, events: readonly TimedEvent[], requestException?: TimedEvent): void {
    const counts = this.counts.getOrCreate(operation);
    if (!counts) return;
    const category = this.categoryOf(attributes, exceptionEventOf(events) ?? requestException);
    const key = category.frame === undefined ? category.name : `${category.name}\n${category.frame}`;
    const kept = counts.has(key) || counts.size < MAX_CATEGORIES_PER_OPERATION;
    const slot = kept ? key : OTHER.name;
    let entry = counts.get(slot);
    if (!entry) {
      entry = { category: kept ? category : OTHER, count: 0 };
      counts.set(slot, entry);
    }
    entry.count++;
  }

  /** Categories of the operation's errors, most frequent first. */
  of(operation: string): ErrorCategoryCount[] {
    return [...(this.counts.get(operation)?.values() ?? [])].map(({ category, count }) => ({ ...category, count })).sort((a, b) => b.count - a.count);
  }

  private categoryOf(attributes: Attributes, exception: TimedEvent | undefined): ErrorCategory {
    const fromException = exception && this.exceptionCategory(exception);
    if (fromException) return fromException;
    const errorType = attributes['error.type'];
    if (typeof errorType === 'string' && errorType !== '') return { name: errorType };
    const status = attributes['http.response.status_code'];
    if (typeof status === 'number') return { name: `HTTP ${status}` };
    return { name: 'unknown' };
  }

  private exceptionCategory(exception: TimedEvent): ErrorCategory | undefined {
    const type = exception.attributes?.['exception.type'];
    const message = exception.attributes?.['exception.message'];
    const stacktrace = exception.attributes?.['exception.stacktrace'];
    const shownType = typeof type === 'string' && type !== '' ? cutType(type) : undefined;
    const shownMessage = typeof message === 'string' && message !== '' ? this.normalisedOf(message) : undefined;
    if (shownType === undefined && shownMessage === undefined) return undefined;
    const name = shownType === undefined ? shownMessage! : shownMessage === undefined ? shownType : `${shownType}: ${shownMessage}`;
    const frame = typeof stacktrace === 'string' ? appFrameOf(stacktrace, this.cwd) : undefined;
    return { name, ...(shownType !== undefined && { exceptionType: shownType }), ...(frame !== undefined && { frame }) };
  }

  private normalisedOf(message: string): string {
    const raw = message.length > MAX_MESSAGE_READ ? message.slice(0, MAX_MESSAGE_READ) : message;
    let normalised = this.normalised.get(raw);
    if (normalised === undefined) {
      normalised = normalisedMessage(raw);
      if (this.normalised.size >= MESSAGE_CACHE_SIZE) this.normalised.delete(this.normalised.keys().next().value!);
      this.normalised.set(raw, normalised);
    }
    return normalised;
  }
}
