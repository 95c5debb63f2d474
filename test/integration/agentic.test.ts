/**
 * A real app under the preload runs agents of its own that would never stop (fixtures/agentic-app):
 * svc.yml's guardrails (over the code's values) stop each at its limit, the app keeps serving
 * other requests meanwhile, and the spans and the svc.agent.guardrail_triggered event arrive over
 * OTLP with the invocation under the request and the steps under the invocation. The agents that
 * operate the service see it through MCP.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FixtureApp, ROOT, startFixture } from '../support/fixture-app.js';
import { OtlpReceiver, SPAN_KIND } from '../support/otlp-receiver.js';

let receiver: OtlpReceiver;
let app: FixtureApp | undefined;
let client: Client | undefined;

beforeEach(async () => {
  receiver = new OtlpReceiver();
  app = await startFixture({
    script: 'app.mjs',
    cwd: join(ROOT, 'fixtures', 'agentic-app'),
    otlpEndpoint: await receiver.start(),
    env: { OTEL_SERVICE_NAME: 'agentic-app', TOOL_MS: '300' },
  });
});

afterEach(async () => {
  await client?.close().catch(() => undefined);
  client = undefined;
  await app?.stop();
  app = undefined;
  await receiver.stop();
});

const STATUS_ERROR = 2;

describe('an agent that loops forever', () => {
  it('is stopped at the configured loop threshold while the service goes on serving', async () => {
    const fixture = app!;
    const started = Date.now();
    let answeredAt = 0;
    const asking = fixture.get('/ask/loop').then(async (response) => {
      answeredAt = Date.now();
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    });
    const served: { status: number; at: number }[] = [];
    while (answeredAt === 0) {
      const response = await fixture.get('/health');
      served.push({ status: response.status, at: Date.now() });
      await response.text();
    }
    const answer = await asking;

    // svc.yml's loop-threshold 3 for this agent, not the code's 50 nor the global 5.
    expect(answer.status).toBe(429);
    expect(answer.body).toMatchObject({ guardrail: 'loop', agent: 'looper', limit: 3, observed: 3, tool: 'check_stock' });
    // Two 300 ms tool calls ran before the third was refused, and the service answered all along.
    expect(answeredAt - started).toBeGreaterThanOrEqual(550);
    expect(served.every((s) => s.status === 200)).toBe(true);
    expect(served.filter((s) => s.at < answeredAt).length).toBeGreaterThanOrEqual(10);
    expect((await fixture.get('/health')).status).toBe(200);
  });

  it('sends its spans and the guardrail event over OTLP, nested request > invocation > steps', async () => {
    const { body } = await app!.get('/ask/loop').then(async (r) => ({ body: (await r.json()) as { invocationId: string } }));
    const verdict = await receiver.waitFor(() => receiver.spans.find((s) => s.name === 'run_guardrail svc'));
    const invocation = await receiver.waitFor(() => receiver.spans.find((s) => s.name === 'invoke_agent looper'));
    const request = await receiver.waitFor(() => receiver.spans.find((s) => s.kind === SPAN_KIND.SERVER && s.attributes['url.path'] === '/ask/loop'));

    expect(invocation.parentSpanId).toBe(request.spanId);
    expect(invocation.traceId).toBe(request.traceId);
    expect(invocation.spanId).toBe(body.invocationId);
    expect(invocation.kind).toBe(SPAN_KIND.INTERNAL);
    expect(invocation.statusCode).toBe(STATUS_ERROR);
    expect(invocation.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'looper',
      'gen_ai.agent.version': '1.0.0',
      'svc.agent.type': 'react',
      'svc.agent.framework': 'fixture',
      'svc.agent.loop_threshold': 3,
      'svc.agent.max_steps': 40,
      'svc.agent.steps': 5,
      'svc.agent.guardrail.name': 'loop',
      'svc.agent.guardrail.limit': 3,
      'svc.agent.guardrail.observed': 3,
      'error.type': 'GuardrailError',
    });

    const children = receiver.spans.filter((s) => s.parentSpanId === invocation.spanId);
    expect(children.map((s) => s.name).sort()).toEqual(['execute_tool check_stock', 'execute_tool check_stock', 'run_guardrail svc', 'step', 'step', 'step']);
    const tool = children.find((s) => s.name === 'execute_tool check_stock')!;
    expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'check_stock' });
    expect(verdict.attributes).toMatchObject({ 'gen_ai.guardrail.verdict.type': 'deny', 'gen_ai.guardrail.security.policy.id': 'loop', 'gen_ai.tool.name': 'check_stock', 'svc.agent.step.number': 6 });

    const event = await receiver.waitFor(() => receiver.logs.find((l) => l.attributes['event.name'] === 'svc.agent.guardrail_triggered'));
    expect(event.severityText).toBe('WARN');
    expect(event.eventName).toBe('svc.agent.guardrail_triggered');
    expect(event.body).toMatchObject({ agent: 'looper', guardrail: 'loop', limit: 3, observed: 3, tool: 'check_stock', step: 6, invocation_id: invocation.spanId, trace_id: request.traceId });
    expect(event.traceId).toBe(request.traceId);
    expect(event.spanId).toBe(invocation.spanId);
    expect(event.resource['service.name']).toBe('agentic-app');
  });
});

describe('max steps and cost budget from svc.yml', () => {
  it('stop the agents the code allowed more', async () => {
    const wander = await app!.get('/ask/wander');
    expect(wander.status).toBe(429);
    expect(await wander.json()).toMatchObject({ guardrail: 'max_steps', agent: 'wanderer', limit: 6, observed: 7 });
    const spend = await app!.get('/ask/spend');
    expect(spend.status).toBe(429);
    // 4 calls of gpt-4o-mini with 40,000 input and 1,000 output tokens: $0.0264 over a $0.02 budget.
    expect(await spend.json()).toMatchObject({ guardrail: 'cost_budget', agent: 'spender', limit: 0.02, observed: expect.closeTo(0.0264, 10) });
    const spender = await receiver.waitFor(() => receiver.spans.find((s) => s.name === 'invoke_agent spender'));
    expect(spender.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 160_000, 'gen_ai.usage.output_tokens': 4_000, 'svc.agent.cost_budget_usd': 0.02, 'svc.agent.steps': 4 });
  });
});

describe('the agents that operate the service', () => {
  async function tools(): Promise<(name: string, args?: Record<string, string>) => Promise<string>> {
    const url = await expect
      .poll(() => /MCP tool server listening at (\S+)/.exec(app!.stderr())?.[1])
      .toBeTruthy()
      .then(() => /MCP tool server listening at (\S+)/.exec(app!.stderr())![1]!);
    client = new Client({ name: 'sre-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return async (name, args = {}) => {
      const result = (await client!.callTool({ name, arguments: args })) as CallToolResult;
      return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    };
  }

  it('see the agents in get_service_health and the trip in get_incident_context', async () => {
    await app!.get('/ask/loop');
    await app!.get('/ask/wander');
    await app!.get('/health');
    const call = await tools();
    const health = await call('get_service_health');
    expect(health).toMatch(
      /AGENTS \(2 agents, last 60 minutes\)\n {2}looper +1 invocation +1 failed +1 guardrail trip \(loop 1\) +steps p50 5, p99 5 +cost \$0\.0000\n {2}wanderer +1 invocation +1 failed +1 guardrail trip \(max_steps 1\)/,
    );
    const request = await receiver.waitFor(() => receiver.spans.find((s) => s.kind === SPAN_KIND.SERVER && s.attributes['url.path'] === '/ask/loop'));
    const operation = String(request.attributes['svc.operation.name'] ?? request.name);
    const context = await call('get_incident_context', { operation_name: operation });
    expect(context).toMatch(/Guardrails: +1 trip in the last hour: \S+ agent looper stopped by loop \(3 identical calls of check_stock in a row, threshold 3; invocation [0-9a-f]{16}\)/);
  });
});
