/**
 * The app's own OpenTelemetry SDK, registered globally as an app without svc's preload would:
 * a real TracerProvider and LoggerProvider with in-memory exporters, and the AsyncLocalStorage
 * context manager. svc's agent activity gets a fake clock. `reset()` between tests.
 */
import { context, logs, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemoryLogRecordExporter, LoggerProvider, type ReadableLogRecord, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { AgentActivity } from '../../src/agentic/agent-activity.js';
import { agentEnvironment } from '../../src/agentic/agent-environment.js';
import { FakeClock } from '../../src/analysis/clock.js';

export function otelHarness() {
  const spans = new InMemorySpanExporter();
  const records = new InMemoryLogRecordExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
  const loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: records })] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(tracerProvider);
  logs.setGlobalLoggerProvider(loggerProvider);
  const clock = new FakeClock();
  agentEnvironment().activity = new AgentActivity(clock);

  const finished = (): ReadableSpan[] => spans.getFinishedSpans();
  return {
    clock,
    tracer: trace.getTracer('app'),
    spans: finished,
    span(name: string): ReadableSpan {
      const found = finished().find((s) => s.name === name);
      if (!found)
        throw new Error(
          `no span '${name}' among: ${finished()
            .map((s) => s.name)
            .join(', ')}`,
        );
      return found;
    },
    named: (name: string): ReadableSpan[] => finished().filter((s) => s.name === name),
    events: (name: string): ReadableLogRecord[] => records.getFinishedLogRecords().filter((r) => r.attributes['event.name'] === name),
    reset(): void {
      spans.reset();
      records.reset();
      agentEnvironment().activity = new AgentActivity(clock);
    },
    shutdown(): void {
      trace.disable();
      logs.disable();
      context.disable();
    },
  };
}

/** The parent span id of a finished span (sdk-trace 3.x keeps the parent's span context). */
export function parentId(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

export function spanId(span: { spanContext(): { spanId: string } }): string {
  return span.spanContext().spanId;
}
