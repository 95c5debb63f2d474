/**
 * Agents are visible to the agents that operate the service: get_service_health gains an AGENTS
 * section only when agents inside the app were active, and get_incident_context lists the
 * guardrail trips of agents that ran in the operation. The trip's operation is the request's, as
 * svc's span processor names it (the request span carries OTel's RPC metadata, as the HTTP
 * instrumentation sets it).
 */
import { context, SpanKind, trace } from '@opentelemetry/api';
import { RPCType, setRPCMetadata } from '@opentelemetry/core';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, describe, expect, it } from 'vitest';
import { agent } from '../../src/agentic/agent.js';
import { AgentActivity } from '../../src/agentic/agent-activity.js';
import { agentEnvironment } from '../../src/agentic/agent-environment.js';
import type { ToolContext, ToolDefinition } from '../../src/mcp/tool-definition.js';
import { getIncidentContext } from '../../src/mcp/tools/get-incident-context.js';
import { getServiceHealth } from '../../src/mcp/tools/get-service-health.js';
import { serviceWithTools } from '../mcp/large-state.js';
import { otelHarness } from './otel-harness.js';

const otel = otelHarness();
afterAll(() => otel.shutdown());

function service() {
  const h = serviceWithTools();
  const activity = new AgentActivity(h.clock);
  agentEnvironment().activity = activity;
  const context_: ToolContext = { caller: h.caller, services: { ...h.services, agents: activity } };
  const call = async (tool: ToolDefinition, args: Record<string, string> = {}) => (await tool.handler(args, context_)).text;
  const callJson = async (tool: ToolDefinition, args: Record<string, string> = {}) => (await tool.handler({ ...args, format: 'json' }, context_)).structured as Record<string, unknown>;
  // The app's requests, through svc's span processor (which names their operations).
  const app = new TracerProvider({ spanProcessors: [h.engine.createSpanProcessor()] }).getTracer('app');
  /** A request to GET /orders/{id} in which `work` runs; returns what it threw. */
  const request = (work: () => void): unknown => {
    const start = h.clock.now();
    const span = app.startSpan('GET /orders/:id', { kind: SpanKind.SERVER, startTime: start, attributes: { 'http.request.method': 'GET', 'http.route': '/orders/:id' } });
    const ctx = setRPCMetadata(trace.setSpan(context.active(), span), { type: RPCType.HTTP, span });
    let thrown: unknown;
    try {
      context.with(ctx, work);
    } catch (error) {
      thrown = error;
    }
    span.end(start + 40);
    return thrown;
  };
  return { h, activity, call, callJson, request };
}

const looping = (run: { tool: (name: string, args: unknown, fn: () => unknown) => unknown }) => {
  for (;;) run.tool('check_stock', { sku: 'A-1', warehouse: 'eu' }, () => 'unknown');
};

describe('get_service_health AGENTS', () => {
  it('is absent while no agent ran in the app', async () => {
    const { call, callJson } = service();
    expect(await call(getServiceHealth)).not.toContain('AGENTS');
    expect(await callJson(getServiceHealth)).not.toHaveProperty('agents');
  });

  it('lists each agent: invocations, failures, guardrail trips, steps p50/p99, cost in the last hour, worst first', async () => {
    const { h, call, callJson, request } = service();
    const support = agent('support-bot', { loopThreshold: 3 });
    const digest = agent('digest');
    for (let i = 0; i < 4; i++)
      digest.invoke((run) => {
        for (let s = 0; s <= i; s++) run.step();
        run.cost({ usd: 0.01 });
      });
    request(() => support.invoke(looping));
    request(() => support.invoke(looping));
    support.invoke((run) => run.cost({ model: 'gpt-4o-mini', inputTokens: 100_000, outputTokens: 0 }));

    const text = await call(getServiceHealth);
    const lines = text.split('\n');
    const at = lines.indexOf('AGENTS (2 agents, last 60 minutes)');
    expect(at, text).toBeGreaterThan(lines.findIndex((l) => l.startsWith('SLOs')));
    expect(lines[at + 1]).toMatch(/^ {2}support-bot +3 invocations +2 failed +2 guardrail trips \(loop 2\) +steps p50 2, p99 2 +cost \$0\.0150$/);
    expect(lines[at + 2]).toMatch(/^ {2}digest +4 invocations +0 failed +0 guardrail trips +steps p50 2, p99 4 +cost \$0\.0400$/);

    const json = await callJson(getServiceHealth);
    expect(json.agents).toEqual([
      {
        name: 'support-bot',
        invocations: 3,
        failures: 2,
        guardrailTrips: 2,
        tripsByGuardrail: { max_steps: 0, loop: 2, cost_budget: 0 },
        stepsP50: 2,
        stepsP99: 2,
        costUsd: expect.closeTo(0.015, 10),
        windowMinutes: 60,
      },
      {
        name: 'digest',
        invocations: 4,
        failures: 0,
        guardrailTrips: 0,
        tripsByGuardrail: { max_steps: 0, loop: 0, cost_budget: 0 },
        stepsP50: 2,
        stepsP99: 4,
        costUsd: expect.closeTo(0.04, 10),
        windowMinutes: 60,
      },
    ]);

    // An hour later the section is gone again.
    h.clock.advance(61 * 60_000);
    expect(await call(getServiceHealth)).not.toContain('AGENTS');
  });
});

describe('get_service_health AGENTS, bounded', () => {
  it('pages the agents like the other lists, within svc.mcp.max-output-bytes', async () => {
    const { activity, call } = service();
    for (let i = 0; i < 64; i++) {
      const stats = activity.stats(`agent-${String(i).padStart(2, '0')}-${'x'.repeat(200)}`);
      activity.invocationEnded(stats, i, i % 7 === 0);
      if (i % 5 === 0) activity.tripped(stats, { agent: 'a', guardrail: 'max_steps', limit: 1, observed: 2, invocationId: 'id', tool: undefined }, undefined);
    }
    const first = await call(getServiceHealth);
    expect(Buffer.byteLength(first)).toBeLessThanOrEqual(8192);
    expect(first).toMatch(/… \d+ more agents \(.*\) left out; call get_service_health with page=2/);
    // Agents stopped by guardrails come first.
    const agentsSection = first.slice(first.indexOf('AGENTS (64 agents'));
    expect(agentsSection.split('\n')[1]).toMatch(/guardrail trip \(max_steps 1\)/);
    const second = await call(getServiceHealth, { page: '2' });
    expect(Buffer.byteLength(second)).toBeLessThanOrEqual(8192);
    expect(second).toContain('AGENTS (64 agents');
  });
});

describe('get_incident_context guardrail trips', () => {
  it('lists the trips of agents that ran in the operation as what is happening', async () => {
    const { call, request } = service();
    const support = agent('support-bot', { loopThreshold: 3 });
    expect(request(() => support.invoke(looping))).toMatchObject({ guardrail: 'loop' });
    const text = await call(getIncidentContext, { operation_name: 'GET /orders/{id}' });
    const happening = text.split('\n\n').find((block) => block.startsWith('WHAT IS HAPPENING'))!;
    const line = happening.split('\n').find((l) => l.includes('Guardrails:'));
    expect(line, text).toMatch(
      /^ {2}Guardrails: +1 trip in the last hour: \d{4}-\d\d-\d\dT[\d:.]+Z agent support-bot stopped by loop \(3 identical calls of check_stock in a row, threshold 3; invocation [0-9a-f]{16}\)$/,
    );
    // Aligned with the other fields of the section.
    const operation = happening.split('\n').find((l) => l.startsWith('  Operation:'))!;
    expect(line!.search(/\d trip/)).toBe(operation.search(/GET/));
  });

  it('says nothing about agents for an operation they did not run in', async () => {
    const { call, request } = service();
    request(() => undefined);
    agent('elsewhere', { maxSteps: 1 })
      .invoke(async (run) => {
        run.step();
        run.step();
      })
      .catch(() => undefined);
    expect(await call(getIncidentContext, { operation_name: 'GET /orders/{id}' })).not.toContain('Guardrails:');
  });
});
