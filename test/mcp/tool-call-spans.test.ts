/**
 * Every tools/call is a span of the OpenTelemetry MCP conventions, in both protocols: parented by
 * the agent's `_meta.traceparent` when sent, a root otherwise, with the outcome, and never one of
 * the app's operations (the span processor skips svc's scope).
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP, MCP_INSTRUMENTATION_SCOPE } from '../../src/shared/attribute-names.js';
import { mcpHarness, PROTOCOLS, type Protocol, TOKENS } from '../support/mcp-harness.js';

let harness: Awaited<ReturnType<typeof mcpHarness>> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const AGENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const AGENT_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${AGENT_TRACE}-${AGENT_SPAN}-01`;

describe.each(PROTOCOLS)('MCP %s', (protocol: Protocol) => {
  it('makes each call of an investigation a span of the agent trace, named after the tool, with who called and how it ended', async () => {
    harness = await mcpHarness('', { protocol, traced: true });
    harness.request('/orders/:id', 20);
    const ops = await harness.connect(TOKENS.ops, { 'x-agent-name': 'night-shift' });
    await harness.call(ops, 'get_service_health', {}, { traceparent: TRACEPARENT, tracestate: 'agent=1' });
    await harness.call(ops, 'get_incident_context', { operation_name: 'GET /nope' }, { traceparent: TRACEPARENT });
    await expect(ops.callTool({ name: 'drop_database', arguments: {}, _meta: { traceparent: TRACEPARENT } })).rejects.toMatchObject({ code: -32602 });

    const spans = harness.spans.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['tools/call get_service_health', 'tools/call get_incident_context', 'tools/call']);
    for (const span of spans) {
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.instrumentationScope.name).toBe(MCP_INSTRUMENTATION_SCOPE);
      expect(span.spanContext().traceId).toBe(AGENT_TRACE);
      expect(span.parentSpanContext?.spanId).toBe(AGENT_SPAN);
      expect(span.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': protocol,
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'client.address': expect.stringMatching(/127\.0\.0\.1/),
        'jsonrpc.request.id': expect.any(String),
      });
      // Sessions are a 2025 thing.
      expect(span.attributes['mcp.session.id'] !== undefined).toBe(protocol === '2025-11-25');
    }
    const [health, context, unknown] = spans;
    expect(health!.parentSpanContext?.traceState?.get('agent')).toBe('1');
    expect(health!.attributes).toMatchObject({ 'gen_ai.tool.name': 'get_service_health', 'svc.mcp.agent.name': 'ops-bot/night-shift', 'svc.mcp.agent.role': 'operator', 'svc.mcp.outcome': 'success' });
    expect(health!.status.code).toBe(SpanStatusCode.UNSET);
    expect(context!.attributes).toMatchObject({ 'error.type': 'tool_error', 'svc.mcp.outcome': 'tool_error' });
    expect(context!.status).toEqual({ code: SpanStatusCode.ERROR, message: expect.stringContaining('unknown operation "GET /nope"') });
    expect(unknown!.attributes).toMatchObject({ 'gen_ai.tool.name': 'drop_database', 'error.type': '-32602', 'rpc.response.status_code': '-32602', 'svc.mcp.outcome': 'protocol_error' });
    expect(unknown!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('starts a trace of its own without a traceparent, and ignores a malformed one', async () => {
    harness = await mcpHarness('', { protocol, traced: true });
    const ops = await harness.connect(TOKENS.ops);
    await harness.call(ops, 'get_executive_summary');
    await harness.call(ops, 'get_executive_summary', {}, { traceparent: 'not-a-traceparent' });
    const spans = harness.spans.getFinishedSpans();
    expect(spans).toHaveLength(2);
    for (const span of spans) expect(span.parentSpanContext).toBeUndefined();
    expect(spans[0]!.spanContext().traceId).not.toBe(spans[1]!.spanContext().traceId);
  });

  it('is never counted among the operations, nor as the first request', async () => {
    harness = await mcpHarness('', { protocol, traced: true });
    const ops = await harness.connect(TOKENS.ops);
    for (let i = 0; i < 5; i++) await harness.call(ops, 'get_service_health', { format: 'json' });
    expect(harness.spans.getFinishedSpans()).toHaveLength(5);
    expect(harness.engine.health.operations()).toEqual([]);
    const health = await harness.call(ops, 'get_service_health', { format: 'json' });
    expect((health.structuredContent as { operations: unknown[] }).operations).toEqual([]);
  });
});

it("uses the attribute names of @opentelemetry/semantic-conventions' MCP constants", () => {
  expect(MCP.methodName).toBe(semconv.ATTR_MCP_METHOD_NAME);
  expect(MCP.protocolVersion).toBe(semconv.ATTR_MCP_PROTOCOL_VERSION);
  expect(MCP.sessionId).toBe(semconv.ATTR_MCP_SESSION_ID);
  expect(MCP.jsonrpcRequestId).toBe(semconv.ATTR_JSONRPC_REQUEST_ID);
  expect(MCP.rpcResponseStatusCode).toBe(semconv.ATTR_RPC_RESPONSE_STATUS_CODE);
  expect(MCP.networkTransport).toBe(semconv.ATTR_NETWORK_TRANSPORT);
  expect(MCP.clientAddress).toBe(semconv.ATTR_CLIENT_ADDRESS);
});
