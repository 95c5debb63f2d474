/**
 * An Engine with a fake clock and collected events, behind its span processor in a real
 * TracerProvider: tests drive spans with exact start and end times.
 */
import { type Attributes, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { FakeClock } from '../../src/analysis/clock.js';
import type { EventSeverity } from '../../src/analysis/emit-event.js';
import { Engine, type EngineOptions } from '../../src/wiring/service-engine.js';

export interface CollectedEvent {
  readonly name: string;
  readonly severity: EventSeverity;
  readonly body: Record<string, unknown>;
}

export function engineHarness(options: Omit<EngineOptions, 'clock' | 'emit'> = {}) {
  const clock = new FakeClock();
  const events: CollectedEvent[] = [];
  const engine = new Engine({ ...options, clock, emit: (name, severity, body) => events.push({ name, severity, body }) });
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [engine.createSpanProcessor(), new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('harness');

  function span(kind: SpanKind, name: string, attributes: Attributes, latencyMs: number, isError: boolean): Attributes {
    const start = clock.now();
    const s = tracer.startSpan(name, { kind, attributes, startTime: start });
    if (isError) s.setStatus({ code: SpanStatusCode.ERROR });
    s.end(start + latencyMs);
    const finished = exporter.getFinishedSpans();
    const attrs = finished[finished.length - 1]!.attributes;
    exporter.reset();
    return attrs;
  }

  return {
    clock,
    engine,
    events,
    /** A server span of `GET <route>`, operation `GET <route>`. */
    request(route: string, latencyMs: number, isError = false): Attributes {
      return span(SpanKind.SERVER, `GET ${route}`, { 'http.request.method': 'GET', 'http.route': route }, latencyMs, isError);
    },
    /** A client span to a dependency named by peer.service. */
    call(dependency: string, latencyMs: number, isError = false): Attributes {
      return span(SpanKind.CLIENT, 'call', { 'peer.service': dependency }, latencyMs, isError);
    },
    eventsNamed(name: string): CollectedEvent[] {
      return events.filter((e) => e.name === name);
    },
    patternsSeen(): string[] {
      return [...new Set(events.filter((e) => e.name === 'svc.anomaly.detected' && e.body.pattern).map((e) => String(e.body.pattern)))];
    },
  };
}
