/**
 * The exception an Express handler threw or passed to `next`, recorded on the request's active
 * span (its server span), for svc's default instrumentation set: that set makes no span per
 * Express layer, and OpenTelemetry's Express instrumentation records exceptions only on the
 * layer spans it makes. Each error is recorded once per request, where a route or middleware
 * gives it to Express: Express 5 (the `router` package's Layer#handleRequest) and Express 4
 * (express/lib/router/layer.js, Layer#handle_request). The success path costs one function per
 * layer call.
 */
import { InstrumentationBase, InstrumentationNodeModuleDefinition, InstrumentationNodeModuleFile } from '@opentelemetry/instrumentation';
import { recordOnActiveSpan } from './active-span-exception.js';

/** What Express passes to `next` that is no error: `route` and `router` skip the rest of a route or router. */
const NOT_ERRORS = new Set<unknown>([undefined, null, 'route', 'router']);

interface Layer {
  prototype: Record<string, (...args: unknown[]) => unknown>;
}

function record(error: unknown): void {
  if (!NOT_ERRORS.has(error)) recordOnActiveSpan(error);
}

function recordingHandle(original: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  return function handleRequest(this: unknown, req: unknown, res: unknown, next: unknown): unknown {
    if (typeof next !== 'function') return original.call(this, req, res, next);
    return original.call(this, req, res, function recordingNext(this: unknown, ...args: unknown[]) {
      record(args[0]);
      return next.apply(this, args);
    });
  };
}

export class ExpressExceptionInstrumentation extends InstrumentationBase {
  constructor() {
    super('@svc/register/express-exceptions', '1.0.0', {});
  }

  protected init() {
    const file = (name: string, versions: string[], method: string) =>
      new InstrumentationNodeModuleFile(
        name,
        versions,
        (layer: Layer) => {
          this._wrap(layer.prototype, method, recordingHandle);
          return layer;
        },
        (layer: Layer) => this._unwrap(layer.prototype, method),
      );
    return [
      new InstrumentationNodeModuleDefinition('router', ['>=2 <3'], undefined, undefined, [file('router/lib/layer.js', ['>=2 <3'], 'handleRequest')]),
      new InstrumentationNodeModuleDefinition('express', ['>=4 <5'], undefined, undefined, [file('express/lib/router/layer.js', ['>=4 <5'], 'handle_request')]),
    ];
  }
}
