/**
 * OpenTelemetry contexts that die young. The API's context class (`@opentelemetry/api`'s
 * BaseContext) gives each context its `getValue`, `setValue` and `deleteValue` as arrow functions
 * assigned in its constructor, and V8 allocates a function literal assigned straight to a property
 * in the old generation (it takes it for a method). So every context a request makes (its server
 * span's, each child span's, `suppressTracing`'s) is kept by old objects until the next full
 * collection, and with it the span and attributes it holds: 2.4-2.8 KB of each request of an app
 * with a server and a client span promoted, 1.3 KB of each tool call, and the major collections
 * that follow (docs/analysis.md, Cost).
 *
 * Every context derives from the API's root context: svc gives the root a `setValue` and
 * `deleteValue` that make contexts of the class below, the API's behaviour (immutable, each change
 * copies the values) with the methods on its prototype. It does so for each build of the API it
 * loads (ES module and CommonJS, which the instrumentations use); a copy of another version that
 * the app brings is left as it is.
 */
import { createRequire } from 'node:module';
import { type Context, ROOT_CONTEXT } from '@opentelemetry/api';

class YoungContext implements Context {
  constructor(private readonly values: ReadonlyMap<symbol, unknown>) {}

  getValue(key: symbol): unknown {
    return this.values.get(key);
  }

  setValue(key: symbol, value: unknown): Context {
    const values = new Map(this.values);
    values.set(key, value);
    return new YoungContext(values);
  }

  deleteValue(key: symbol): Context {
    if (!this.values.has(key)) return this;
    const values = new Map(this.values);
    values.delete(key);
    return new YoungContext(values);
  }
}

const EMPTY = new YoungContext(new Map());

/** Makes every context derived from the API's root contexts (both builds) a YoungContext. */
export function installYoungContexts(): void {
  const commonJsRoot = (createRequire(import.meta.url)('@opentelemetry/api') as { ROOT_CONTEXT: Context }).ROOT_CONTEXT;
  for (const root of new Set([ROOT_CONTEXT, commonJsRoot])) {
    root.setValue = EMPTY.setValue.bind(EMPTY);
    root.deleteValue = () => EMPTY;
  }
}
