/**
 * Every `tools/call` as a span of the OpenTelemetry MCP semantic conventions, v1.41.0
 * (docs/gen-ai/mcp.md, the server span): named `tools/call <tool>` (`tools/call` alone for a tool
 * that does not exist, as its name is whatever the agent sent), kind SERVER, `mcp.method.name`,
 * `gen_ai.tool.name`, `gen_ai.operation.name` `execute_tool`, `mcp.protocol.version`,
 * `mcp.session.id` (2025 sessions), `jsonrpc.request.id`, `network.*`, `client.*`; svc adds the
 * caller's agent name and role and the outcome (`svc.mcp.*`). An `isError` result sets `error.type`
 * `tool_error`, a JSON-RPC error its code (and `rpc.response.status_code`); both set status ERROR.
 *
 * The parent is the agent's trace when the request's `_meta` carries W3C `traceparent` (and
 * `tracestate`), as SEP-414 puts them: an agent that sends the same traceparent with each call of
 * an investigation finds them as one trace. Without one, the span starts a trace of its own (the
 * tool server's HTTP is not traced, so there is no ambient context to join).
 *
 * The spans carry the instrumentation scope MCP_INSTRUMENTATION_SCOPE, which svc's span processor
 * skips: exported with the app's telemetry, never counted among its operations.
 */
import { type Attributes, context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type TextMapGetter, type Tracer, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { ERROR_TYPE, GEN_AI, GEN_AI_OPERATION, MCP, MCP_CALL } from '../shared/attribute-names.js';
import { printable } from '../shared/printable.js';
import type { CallerIdentity } from './tool-definition.js';

/** What the server knows about a tools/call before running it. */
export interface ToolCallRequest {
  /** The tool's name as sent. */
  readonly tool: string;
  /** Whether a tool of that name exists (the span is then named after it). */
  readonly known: boolean;
  readonly requestId: string | number;
  readonly protocolVersion: string | undefined;
  /** The 2025 session, when there is one. */
  readonly sessionId: string | undefined;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly clientAddress: string | undefined;
  readonly clientPort: number | undefined;
}

/** What a call's handling tells its span. */
export interface ToolCallRecord {
  /** The caller as the credential and declared name established it. */
  caller(caller: CallerIdentity): void;
  /** svc failed inside the tool (answered as an isError result). */
  failed(error: unknown): void;
}

export interface ToolCallResult {
  readonly isError?: boolean;
  readonly content?: readonly { readonly type: string; readonly text?: string }[];
}

/** The longest status description, caller name or tool name a span carries. */
const MAX_SPAN_TEXT = 256;
/** A longer tracestate is ignored (W3C Trace Context: at most 512 characters). */
const MAX_TRACESTATE = 512;

const propagator = new W3CTraceContextPropagator();
const metaGetter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' && (key !== 'tracestate' || value.length <= MAX_TRACESTATE) ? value : undefined;
  },
  keys: (carrier) => Object.keys(carrier),
};

const NO_RECORD: ToolCallRecord = { caller: () => undefined, failed: () => undefined };

export class ToolCallTracer {
  /** Without a tracer (no OpenTelemetry in the process), calls run untraced. */
  constructor(private readonly tracer: Tracer | undefined) {}

  async trace<T extends ToolCallResult>(request: ToolCallRequest, call: (record: ToolCallRecord) => Promise<T>): Promise<T> {
    if (!this.tracer) return call(NO_RECORD);
    const parent = request.meta?.traceparent === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, request.meta, metaGetter);
    const span = this.tracer.startSpan(request.known ? `tools/call ${request.tool}` : 'tools/call', { kind: SpanKind.SERVER, attributes: requestAttributes(request) }, parent);
    let outcome = 'success';
    const record: ToolCallRecord = {
      caller: (caller) =>
        span.setAttributes({
          [MCP_CALL.agentName]: printable(caller.agentName, MAX_SPAN_TEXT),
          [MCP_CALL.agentRole]: printable(caller.role, 64),
          [MCP_CALL.agentVerified]: caller.tokenAgent !== undefined,
        }),
      failed: (error) => {
        outcome = 'internal_error';
        span.recordException(error instanceof Error ? error : String(error));
      },
    };
    try {
      const result = await context.with(trace.setSpan(parent, span), () => call(record));
      if (result.isError) {
        if (outcome === 'success') outcome = 'tool_error';
        fail(span, 'tool_error', result.content?.find((c) => c.type === 'text')?.text ?? 'tool error');
      }
      return result;
    } catch (error) {
      // A JSON-RPC error (an unknown tool): its code is the error type.
      const code = (error as { code?: unknown }).code;
      outcome = 'protocol_error';
      if (typeof code === 'number') span.setAttribute(MCP.rpcResponseStatusCode, String(code));
      fail(span, typeof code === 'number' ? String(code) : '_OTHER', error instanceof Error ? error.message : String(error));
      throw error;
    } finally {
      span.setAttribute(MCP_CALL.outcome, outcome);
      span.end();
    }
  }
}

function fail(span: Span, type: string, message: string): void {
  span.setAttribute(ERROR_TYPE, type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: printable(message, MAX_SPAN_TEXT) });
}

function requestAttributes(request: ToolCallRequest): Attributes {
  const attributes: Attributes = {
    [MCP.methodName]: 'tools/call',
    [GEN_AI.toolName]: printable(request.tool, 64),
    [GEN_AI.operationName]: GEN_AI_OPERATION.executeTool,
    [MCP.jsonrpcRequestId]: String(request.requestId),
    [MCP.networkTransport]: 'tcp',
    [MCP.networkProtocolName]: 'http',
  };
  if (request.protocolVersion) attributes[MCP.protocolVersion] = printable(request.protocolVersion, 32);
  if (request.sessionId) attributes[MCP.sessionId] = request.sessionId;
  if (request.clientAddress) attributes[MCP.clientAddress] = request.clientAddress;
  if (request.clientPort !== undefined) attributes[MCP.clientPort] = request.clientPort;
  return attributes;
}
