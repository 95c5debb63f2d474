/**
 * Why an operation's requests fail, by category: the span's `error.type` (semantic conventions),
 * else the type of its recorded exception, else its HTTP status (`HTTP 503`), else `unknown`.
 * Counted per operation for the error analysis; bounded in operations and categories.
 */
import type { Attributes } from '@opentelemetry/api';
import type { TimedEvent } from '@opentelemetry/sdk-trace';
import { BoundedMap } from './bounded-map.js';

const MAX_CATEGORIES_PER_OPERATION = 20;
const OTHER = 'other';

export function errorCategoryOf(attributes: Attributes, events: readonly TimedEvent[]): string {
  const errorType = attributes['error.type'];
  if (typeof errorType === 'string' && errorType !== '') return errorType;
  for (const event of events) {
    if (event.name !== 'exception') continue;
    const type = event.attributes?.['exception.type'];
    if (typeof type === 'string' && type !== '') return type;
  }
  const status = attributes['http.response.status_code'];
  if (typeof status === 'number') return `HTTP ${status}`;
  return 'unknown';
}

export class ErrorCategories {
  private readonly counts: BoundedMap<string, Map<string, number>>;

  constructor(maxOperations = 1000) {
    this.counts = new BoundedMap(maxOperations, () => new Map());
  }

  record(operation: string, category: string): void {
    const counts = this.counts.getOrCreate(operation);
    if (!counts) return;
    const key = counts.has(category) || counts.size < MAX_CATEGORIES_PER_OPERATION ? category : OTHER;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }

  /** Categories of the operation's errors, most frequent first. */
  of(operation: string): { category: string; count: number }[] {
    return [...(this.counts.get(operation) ?? [])].map(([category, count]) => ({ category, count })).sort((a, b) => b.count - a.count);
  }
}
