/**
 * Tools called as the tool server calls them: a handler with a READ caller and the services of a
 * real Engine (fake clock, real TracerProvider) and ServiceMetadata with default configuration.
 */
import { type Attributes, context as otelContext, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { ResolvedConfig } from '../../src/config/resolved-config.js';
import type { ToolContext, ToolDefinition, ToolResult } from '../../src/mcp/tool-definition.js';
import type { ToolServices } from '../../src/mcp/tool-services.js';
import { ServiceMetadata } from '../../src/metadata/service-metadata.js';
import { AgentError } from '../../src/shared/agent-error.js';
import type { EngineOptions } from '../../src/wiring/service-engine.js';
import { engineHarness } from '../support/engine-harness.js';
import { newRegistry } from '../support/registry.js';

export function toolHarness(options: Omit<EngineOptions, 'clock' | 'emit'> = {}) {
  const harness = engineHarness({ serviceName: 'checkout', ...options });
  // A process past its warm-up, whose latency counts toward health.
  harness.clock.advance(60_000);
  const metadata = new ServiceMetadata(new ResolvedConfig([]), newRegistry());
  const context: ToolContext = {
    caller: { agentName: 't', role: 'observer', permissions: new Set(['READ']), credential: 'token:t', tokenAgent: 't' },
    // The reporting tools read only the engine and the metadata.
    services: { analysis: harness.engine, metadata } as Partial<ToolServices> as ToolServices,
  };
  // A second provider on the same engine, for server spans that carry error details.
  const tracer = new TracerProvider({ spanProcessors: [harness.engine.createSpanProcessor()] }).getTracer('tool-harness');

  return {
    ...harness,
    metadata,
    async callTool(tool: ToolDefinition, args: Record<string, string> = {}): Promise<ToolResult> {
      return tool.handler(args, context);
    },
    toolError: (tool: ToolDefinition, args: Record<string, string> = {}) => toolErrorOf(tool, args, context),
    /** A failed `GET <route>` request whose span carries `attributes` (error.type, status code). */
    failure(route: string, latencyMs: number, attributes: Attributes): void {
      const start = harness.clock.now();
      const span = tracer.startSpan(`GET ${route}`, { kind: SpanKind.SERVER, startTime: start, attributes: { 'http.request.method': 'GET', 'http.route': route, ...attributes } });
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(start + latencyMs);
    },
    /** A failed `GET <route>` request (HTTP 500) whose route handler threw `error`, recorded on the handler's span as Express records it. */
    thrown(route: string, latencyMs: number, error: Error): void {
      const start = harness.clock.now();
      const server = tracer.startSpan(`GET ${route}`, { kind: SpanKind.SERVER, startTime: start, attributes: { 'http.request.method': 'GET', 'http.route': route } });
      const handler = tracer.startSpan(`request handler - ${route}`, { kind: SpanKind.INTERNAL, startTime: start }, trace.setSpan(otelContext.active(), server));
      handler.recordException(error, start);
      handler.end(start);
      server.setAttribute('http.response.status_code', 500);
      server.setStatus({ code: SpanStatusCode.ERROR });
      server.end(start + latencyMs);
    },
    /** `count` requests per minute for `minutes` minutes, spread over each minute; `at(minute, i)` gives latency and error. */
    traffic(route: string, minutes: number, count: (minute: number) => number, at: (minute: number, i: number) => { latencyMs: number; isError?: boolean }): void {
      for (let minute = 0; minute < minutes; minute++) {
        const start = harness.clock.now();
        const n = count(minute);
        for (let i = 0; i < n; i++) {
          const { latencyMs, isError = false } = at(minute, i);
          harness.request(route, latencyMs, isError);
          harness.clock.advance(Math.floor(60_000 / (n + 1)));
        }
        harness.clock.set(start + 60_000);
      }
    },
  };
}

/** How a missing operation_name is described: the argument and its description. */
export const OPERATION_NAME_ARGUMENT = 'operation_name (Operation name as shown by get_service_health, e.g. "GET /orders/{id}")';

/** The AgentError a call throws; fails the test when it succeeds or throws something else. */
export async function toolErrorOf(tool: ToolDefinition, args: Record<string, string>, context: ToolContext): Promise<AgentError> {
  try {
    await tool.handler(args, context);
  } catch (error) {
    if (error instanceof AgentError) return error;
    throw error;
  }
  throw new Error(`${tool.name} succeeded with ${JSON.stringify(args)}`);
}

/** The index of each line that starts with one of `titles`, in the order given. */
export function lineIndexes(text: string, titles: readonly string[]): number[] {
  const lines = text.split('\n');
  return titles.map((title) => lines.findIndex((line) => line.startsWith(title)));
}

/** The first line containing `fragment`. */
export function lineWith(text: string, fragment: string): string {
  const line = text.split('\n').find((l) => l.includes(fragment));
  if (line === undefined) throw new Error(`no line with '${fragment}' in:\n${text}`);
  return line;
}
