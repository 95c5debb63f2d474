/**
 * Spans shaped like the browser SDK's, made by a real OpenTelemetry TracerProvider and serialized
 * by OpenTelemetry's own OTLP serializers (JSON and protobuf), so the listener is tested with the
 * bytes a real exporter sends.
 */
import { type Attributes, ROOT_CONTEXT, SpanKind, SpanStatusCode, type TimeInput, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { FRONTEND, FRONTEND_ANOMALY, FRONTEND_EVENT } from '../../src/frontend/attribute-names.js';

export const APP_RESOURCE = {
  'service.name': 'shop-web',
  'service.version': '1.4.2',
  'deployment.environment.name': 'production',
  'svc.topology.team': 'web',
  'svc.topology.domain': 'commerce',
  [FRONTEND.samplingRate]: 1,
};

export interface SpanSpec {
  readonly name: string;
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  readonly events?: readonly { name: string; attributes: Attributes }[];
  readonly startMs?: number;
  readonly durationMs?: number;
  readonly error?: boolean;
}

export function browserSpans(specs: readonly SpanSpec[], resource: Attributes = APP_RESOURCE): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ resource: resourceFromAttributes(resource), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('@svc/register/browser');
  for (const spec of specs) {
    const start: TimeInput = spec.startMs ?? Date.UTC(2026, 0, 1);
    const span = tracer.startSpan(spec.name, { kind: spec.kind ?? SpanKind.INTERNAL, attributes: spec.attributes, startTime: start }, ROOT_CONTEXT);
    for (const event of spec.events ?? []) span.addEvent(event.name, event.attributes);
    if (spec.error) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end((spec.startMs ?? Date.UTC(2026, 0, 1)) + (spec.durationMs ?? 10));
  }
  return exporter.getFinishedSpans();
}

export const json = (spans: ReadableSpan[]): Uint8Array => JsonTraceSerializer.serializeRequest(spans)!;
export const protobuf = (spans: ReadableSpan[]): Uint8Array => ProtobufTraceSerializer.serializeRequest(spans)!;

const session = (id: string) => ({ [FRONTEND.session]: id });

export const CHECKOUT_ROUTE = {
  [FRONTEND.route]: '/checkout',
  [FRONTEND.businessCriticality]: 'revenue',
  [FRONTEND.pageLoadP50Ms]: 800,
  [FRONTEND.apiCallP50Ms]: 120,
  [FRONTEND.escalationLevel]: 'page_oncall',
  [FRONTEND.runbookUrl]: 'https://runbooks.example.com/checkout',
  [FRONTEND.journeyName]: 'purchase',
  [FRONTEND.journeyStep]: 3,
  [FRONTEND.journeySteps]: 3,
  [FRONTEND.journeyBaselineCompletionRate]: 0.7,
  [FRONTEND.journeyBaselineAvgDurationS]: 60,
};

export function pageLoad(sessionId: string, durationMs: number, route: Attributes = CHECKOUT_ROUTE): SpanSpec {
  return { name: 'documentLoad', attributes: { ...route, ...session(sessionId), [FRONTEND.span]: 'page_load', [FRONTEND.pageLoadMs]: durationMs }, durationMs };
}

export function apiCall(sessionId: string, durationMs: number, options: { error?: boolean; route?: Attributes } = {}): SpanSpec {
  return {
    name: 'GET',
    kind: SpanKind.CLIENT,
    attributes: { ...(options.route ?? CHECKOUT_ROUTE), ...session(sessionId), [FRONTEND.span]: 'api_call', 'http.request.method': 'GET', 'url.full': 'http://127.0.0.1/api/orders' },
    durationMs,
    error: options.error,
  };
}

export function anomaly(sessionId: string, pattern: string, route: Attributes = CHECKOUT_ROUTE): SpanSpec {
  return {
    name: 'click',
    attributes: { ...route, ...session(sessionId), [FRONTEND.span]: 'interaction' },
    events: [{ name: FRONTEND_EVENT.anomaly, attributes: { [FRONTEND_ANOMALY.pattern]: pattern, [FRONTEND_ANOMALY.count]: 3 } }],
  };
}

export function journeyEnd(sessionId: string, status: 'completed' | 'abandoned', step: number, durationMs: number): SpanSpec {
  return {
    name: 'route_change',
    attributes: { ...CHECKOUT_ROUTE, ...session(sessionId), [FRONTEND.span]: 'route_change' },
    events: [
      {
        name: FRONTEND_EVENT.journey,
        attributes: {
          [FRONTEND.journeyName]: 'purchase',
          [FRONTEND.journeyStatus]: status,
          [FRONTEND.journeyStep]: step,
          [FRONTEND.journeySteps]: 3,
          [FRONTEND.journeyDurationMs]: durationMs,
          [FRONTEND.journeyBaselineCompletionRate]: 0.7,
          [FRONTEND.journeyBaselineAvgDurationS]: 60,
        },
      },
    ],
  };
}

/** The browser client span's context, as a backend would receive it in a traceparent header. */
export function remoteParentOf(span: ReadableSpan) {
  return trace.setSpanContext(ROOT_CONTEXT, { ...span.spanContext(), isRemote: true });
}
