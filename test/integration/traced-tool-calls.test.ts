/**
 * An agent's investigation, followed end to end: a real service under the preload exporting over
 * OTLP/HTTP, and an agent that sends one traceparent with every call (two clients, one per
 * protocol). Its tool calls arrive with the app's telemetry as one trace under the agent's span,
 * and none of them is one of the app's operations.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FixtureApp, ROOT, startFixture } from '../support/fixture-app.js';
import { newClient } from '../support/mcp-harness.js';
import { OtlpReceiver, SPAN_KIND } from '../support/otlp-receiver.js';

const receiver = new OtlpReceiver();
let app: FixtureApp | undefined;

beforeAll(async () => {
  app = await startFixture({ script: 'app.mjs', cwd: join(ROOT, 'fixtures', 'http-plain'), otlpEndpoint: await receiver.start() });
});

afterAll(async () => {
  await app?.stop();
  await receiver.stop();
});

it('exports an investigation of several calls as one trace under the agent, kept out of the operations', async () => {
  for (let i = 0; i < 5; i++) await app!.get(`/orders/${i}`);
  const url = await receiver.waitFor(() => /MCP tool server listening at (\S+)/.exec(app!.stderr())?.[1]);
  const agentTrace = randomBytes(16).toString('hex');
  const agentSpan = randomBytes(8).toString('hex');
  const traceparent = `00-${agentTrace}-${agentSpan}-01`;

  const calls: [string, Record<string, string>][] = [
    ['get_service_health', { format: 'json' }],
    ['get_incident_context', { operation_name: 'GET /orders/{id}' }],
    ['get_trend_analysis', { operation_name: 'GET /orders/{id}' }],
  ];
  let health: { operations: { name: string }[] } | undefined;
  for (const protocol of ['2026-07-28', '2025-11-25'] as const) {
    const client = newClient(protocol, { name: 'investigator' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    for (const [name, args] of calls) {
      const result = await client.callTool({ name, arguments: args, _meta: { traceparent } });
      expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
      if (name === 'get_service_health') health = result.structuredContent as typeof health;
    }
    await client.close();
  }

  const investigation = await receiver.waitFor(() => {
    const spans = receiver.spans.filter((s) => s.traceId === agentTrace);
    return spans.length >= 6 && spans;
  });
  expect(investigation.map((s) => s.name).sort()).toEqual([...calls, ...calls].map(([name]) => `tools/call ${name}`).sort());
  for (const span of investigation) {
    expect(span.parentSpanId).toBe(agentSpan);
    expect(span.kind).toBe(SPAN_KIND.SERVER);
    expect(span.scope).toBe('@svc/register/mcp');
    expect(span.attributes['svc.operation.name']).toBeUndefined();
    expect(span.attributes['svc.mcp.agent.name']).toBe('anonymous');
  }
  expect(new Set(investigation.map((s) => s.attributes['mcp.protocol.version']))).toEqual(new Set(['2026-07-28', '2025-11-25']));
  // Exported with the app's telemetry: the same Resource as its requests.
  const request = await receiver.waitFor(() => receiver.spans.find((s) => s.kind === SPAN_KIND.SERVER && s.attributes['svc.operation.name'] === 'GET /orders/{id}'));
  expect(investigation[0]!.resource['service.name']).toBe(request.resource['service.name']);
  // Not an operation: health lists the app's operations only, and the tool server's HTTP is not traced.
  const operations = health!.operations.map((o) => o.name);
  expect(operations).toContain('GET /orders/{id}');
  expect(operations.filter((name) => name.includes('tools/call'))).toEqual([]);
  expect(receiver.spans.filter((s) => String(s.attributes['url.path'] ?? '').startsWith('/mcp'))).toEqual([]);
});
