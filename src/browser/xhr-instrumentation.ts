/**
 * XMLHttpRequest calls as client spans, shaped like instrumentation-fetch's (name = method,
 * `http.request.method`, `url.full`, `http.response.status_code`, `server.address`, error status
 * from 400 or no response). svc's own: OpenTelemetry's XHR instrumentation has no 3.x release,
 * and its 2.x core would be bundled twice. `traceparent` goes only to URLs `propagates` allows.
 */
import { context, propagation, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';

export interface XhrInstrumentationOptions {
  readonly tracer: Tracer;
  /** True when this absolute URL may receive a traceparent header. */
  readonly propagates: (url: string) => boolean;
  /** True for URLs not to trace (the collector endpoint). */
  readonly ignored: (url: string) => boolean;
  readonly onStart: (span: Span) => void;
  readonly onEnd: (span: Span, status: number) => void;
}

const REQUEST = Symbol('svc.xhr');

interface Tracked {
  method: string;
  url: string;
}

/** Patches XMLHttpRequest.prototype; returns the function that restores it. */
export function instrumentXhr(options: XhrInstrumentationOptions): () => void {
  if (typeof XMLHttpRequest === 'undefined') return () => {};
  const proto = XMLHttpRequest.prototype;
  const open = proto.open;
  const send = proto.send;
  proto.open = function (this: XMLHttpRequest & { [REQUEST]?: Tracked }, method: string, url: string | URL, ...rest: unknown[]) {
    try {
      this[REQUEST] = { method: String(method).toUpperCase(), url: new URL(String(url), location.href).href };
    } catch {
      this[REQUEST] = undefined;
    }
    return (open as (...args: unknown[]) => void).call(this, method, url, ...rest);
  } as typeof proto.open;
  proto.send = function (this: XMLHttpRequest & { [REQUEST]?: Tracked }, body?: Document | XMLHttpRequestBodyInit | null) {
    const request = this[REQUEST];
    if (!request || options.ignored(request.url)) return send.call(this, body);
    const url = new URL(request.url);
    const span = options.tracer.startSpan(request.method, {
      kind: SpanKind.CLIENT,
      attributes: { 'http.request.method': request.method, 'url.full': request.url, 'server.address': url.hostname, ...(url.port && { 'server.port': Number(url.port) }) },
    });
    options.onStart(span);
    const done = (): void => {
      const status = this.status;
      span.setAttribute('http.response.status_code', status);
      if (status === 0 || status >= 400) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute('error.type', status === 0 ? 'network_error' : String(status));
      }
      options.onEnd(span, status);
      span.end();
    };
    this.addEventListener('loadend', done, { once: true });
    return context.with(trace.setSpan(context.active(), span), () => {
      if (options.propagates(request.url)) {
        const headers: Record<string, string> = {};
        propagation.inject(context.active(), headers);
        for (const [name, value] of Object.entries(headers)) this.setRequestHeader(name, value);
      }
      return send.call(this, body);
    });
  };
  return () => {
    proto.open = open;
    proto.send = send;
  };
}
