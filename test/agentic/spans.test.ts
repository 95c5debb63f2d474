/**
 * Spans follow the OpenTelemetry GenAI conventions and nest as a trace should: the invocation is a
 * child of the request that started it, step and tool spans are children of the invocation (across
 * awaits, and whatever span is active where the agent's code calls them), a tool's own spans are
 * children of its execute_tool span. Only the API and the app's own SDK (svc is not started).
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { agent, currentRun } from '../../src/agentic/agent.js';
import { AGENT, GEN_AI, GEN_AI_OPERATION } from '../../src/shared/attribute-names.js';
import { otelHarness, parentId, spanId } from './otel-harness.js';

const otel = otelHarness();
afterEach(() => otel.reset());
afterAll(() => otel.shutdown());

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe('span tree', () => {
  it('invocation under the request, steps and tools under the invocation, tool work under the tool', async () => {
    const support = agent('support-bot', { type: 'react', framework: 'in-house', version: '2.1.0', id: 'asst_42' });
    const request = otel.tracer.startSpan('GET /ask', { kind: SpanKind.SERVER });
    const answer = await context.with(trace.setSpan(context.active(), request), () =>
      support.invoke(async (run, question) => {
        run.step('plan');
        await tick();
        const order = await run.tool(
          'lookup_order',
          { id: 7 },
          async (args) => {
            await tick();
            // The tool's own work (an HTTP call, a query) is traced under the tool.
            otel.tracer.startSpan('SELECT orders').end();
            return { id: args.id, status: 'shipped' };
          },
          { callId: 'call_abc' },
        );
        // Some other span active where the agent's code calls step(): the step still belongs to the invocation.
        const elsewhere = otel.tracer.startSpan('unrelated');
        context.with(trace.setSpan(context.active(), elsewhere), () => run.step('answer'));
        elsewhere.end();
        run.cost({ model: 'gpt-4o', inputTokens: 1000, outputTokens: 200 });
        return `${question}: ${order.status}`;
      }, 'where is order 7'),
    );
    request.end();
    expect(answer).toBe('where is order 7: shipped');

    const invocation = otel.span('invoke_agent support-bot');
    expect(invocation.kind).toBe(SpanKind.INTERNAL);
    expect(parentId(invocation)).toBe(spanId(request));
    expect(invocation.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(invocation.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support-bot',
      'gen_ai.agent.id': 'asst_42',
      'gen_ai.agent.version': '2.1.0',
      'svc.agent.type': 'react',
      'svc.agent.framework': 'in-house',
      'svc.agent.loop_threshold': 3,
      'svc.agent.steps': 3,
      'gen_ai.usage.input_tokens': 1000,
      'gen_ai.usage.output_tokens': 200,
      'svc.agent.cost_usd': 0.0045,
    });
    expect(invocation.status.code).toBe(SpanStatusCode.UNSET);

    const steps = otel.named('step');
    expect(steps.map((s) => [s.attributes['svc.agent.step.number'], s.attributes['svc.agent.step.description'], parentId(s)])).toEqual([
      [1, 'plan', spanId(invocation)],
      [3, 'answer', spanId(invocation)],
    ]);
    const tool = otel.span('execute_tool lookup_order');
    expect(tool.kind).toBe(SpanKind.INTERNAL);
    expect(parentId(tool)).toBe(spanId(invocation));
    expect(tool.attributes).toEqual({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'gen_ai.tool.call.id': 'call_abc', 'svc.agent.step.number': 2 });
    expect(parentId(otel.span('SELECT orders'))).toBe(spanId(tool));
    // Each step span ended: the plan when the tool call began, the answer with the run.
    expect(steps.every((s) => s.ended)).toBe(true);
  });

  it('a nested agent is a child of the tool that invoked it, and currentRun() follows the async context', async () => {
    const orchestrator = agent('orchestrator', { type: 'orchestrator' });
    const worker = agent('worker', { type: 'worker' });
    const seen: (string | undefined)[] = [];
    await orchestrator.invoke(async () => {
      seen.push(currentRun()?.agent);
      await currentRun()!.tool('delegate', { task: 'summarise' }, () =>
        worker.invoke(async (run) => {
          await tick();
          seen.push(currentRun()?.agent);
          run.step('summarise');
        }),
      );
      await tick();
      seen.push(currentRun()?.agent);
    });
    seen.push(currentRun()?.agent);
    expect(seen).toEqual(['orchestrator', 'worker', 'orchestrator', undefined]);
    expect(parentId(otel.span('invoke_agent worker'))).toBe(spanId(otel.span('execute_tool delegate')));
    expect(parentId(otel.span('execute_tool delegate'))).toBe(spanId(otel.span('invoke_agent orchestrator')));
  });

  it('concurrent invocations of one agent keep their own runs and spans', async () => {
    const bot = agent('parallel', { maxSteps: 2 });
    const results = await Promise.allSettled(
      [0, 1, 2].map((i) =>
        bot.invoke(async (run) => {
          for (let n = 0; n <= i; n++) {
            await tick();
            run.step(`${i}`);
          }
          return currentRun() === run;
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(results.slice(0, 2).map((r) => (r as PromiseFulfilledResult<boolean>).value)).toEqual([true, true]);
    const invocations = otel.named('invoke_agent parallel');
    expect(invocations).toHaveLength(3);
    for (const step of otel.named('step')) {
      const owner = invocations.find((inv) => spanId(inv) === parentId(step));
      expect(owner, 'every step under its own invocation').toBeDefined();
    }
  });
});

describe('conventions', () => {
  it("uses the attribute names and values of @opentelemetry/semantic-conventions' GenAI constants", () => {
    expect(GEN_AI).toEqual({
      operationName: semconv.ATTR_GEN_AI_OPERATION_NAME,
      agentName: semconv.ATTR_GEN_AI_AGENT_NAME,
      agentId: semconv.ATTR_GEN_AI_AGENT_ID,
      agentVersion: semconv.ATTR_GEN_AI_AGENT_VERSION,
      toolName: semconv.ATTR_GEN_AI_TOOL_NAME,
      toolCallId: semconv.ATTR_GEN_AI_TOOL_CALL_ID,
      toolType: semconv.ATTR_GEN_AI_TOOL_TYPE,
      usageInputTokens: semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
      usageOutputTokens: semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
    });
    expect(GEN_AI_OPERATION.invokeAgent).toBe(semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT);
    expect(GEN_AI_OPERATION.executeTool).toBe(semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL);
    // svc's own names stay in svc's namespace.
    for (const name of Object.values(AGENT)) expect(name.startsWith('svc.agent.')).toBe(true);
  });
});
