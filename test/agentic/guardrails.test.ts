/**
 * Guardrails stop the invocation at the step that crosses the limit, before that step's tool runs:
 * max steps, the same tool call (name and canonical arguments) `loop-threshold` times in a row,
 * and a cost budget exceeded. Each trip marks the spans, emits svc.agent.guardrail_triggered and
 * is counted; the GuardrailError reaches the app, svc's own failures never do. Only the
 * OpenTelemetry API and the app's own SDK here (svc is not started).
 */
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { agent } from '../../src/agentic/agent.js';
import type { AgentActivity } from '../../src/agentic/agent-activity.js';
import { agentEnvironment } from '../../src/agentic/agent-environment.js';
import type { AgentRun } from '../../src/agentic/agent-run.js';
import { GuardrailError } from '../../src/agentic/guardrail-error.js';
import { otelHarness, parentId, spanId } from './otel-harness.js';

const otel = otelHarness();
afterEach(() => otel.reset());
afterAll(() => otel.shutdown());

/** Runs `fn` and returns the error it throws (fails the test when it does not throw). */
async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('max_steps', () => {
  it('throws at the step after the limit, before its tool runs, and keeps throwing', async () => {
    const bot = agent('stepper', { maxSteps: 3 });
    const lookup = vi.fn((args: { n: number }) => args.n);
    const seen: number[] = [];
    const error = await thrown(() =>
      bot.invoke(async (run) => {
        for (let n = 0; ; n++) {
          run.step('think');
          seen.push(run.steps);
          await run.tool('lookup', { n }, lookup);
        }
      }),
    );
    // Steps 1 (step) 2 (tool) 3 (step): the 4th, a tool call, is refused.
    expect(seen).toEqual([1, 3]);
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(error).toBeInstanceOf(GuardrailError);
    expect(error).toMatchObject({ guardrail: 'max_steps', agent: 'stepper', limit: 3, observed: 4, tool: 'lookup' });
    expect((error as Error).message).toBe('agent "stepper" stopped before step 4: max steps 3 reached (guardrail max_steps)');
  });

  it('keeps refusing after the app catches the error', async () => {
    const bot = agent('stubborn', { maxSteps: 1 });
    const tool = vi.fn(() => 'ran');
    const errors: unknown[] = [];
    const result = bot.invoke((run) => {
      run.step();
      for (let i = 0; i < 3; i++) {
        try {
          run.tool('again', { i }, tool);
        } catch (error) {
          errors.push(error);
        }
      }
      return 'done';
    });
    expect(result).toBe('done');
    expect(tool).not.toHaveBeenCalled();
    expect(errors).toHaveLength(3);
    expect(new Set(errors).size).toBe(1);
    // One trip, one event, however often the app tries again.
    expect(otel.events('svc.agent.guardrail_triggered')).toHaveLength(1);
    expect(otel.span('invoke_agent stubborn').status.code).toBe(SpanStatusCode.ERROR);
  });

  it('marks the invocation span, records a run_guardrail span and emits the WARN event', async () => {
    const bot = agent('marked', { maxSteps: 2 });
    await thrown(() =>
      bot.invoke((run) => {
        run.step('a');
        run.step('b');
        run.step('c');
      }),
    );
    const invocation = otel.span('invoke_agent marked');
    expect(invocation.status).toEqual({ code: SpanStatusCode.ERROR, message: 'agent "marked" stopped before step 3: max steps 2 reached (guardrail max_steps)' });
    expect(invocation.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'marked',
      'error.type': 'GuardrailError',
      'svc.agent.guardrail.name': 'max_steps',
      'svc.agent.guardrail.limit': 2,
      'svc.agent.guardrail.observed': 3,
      'svc.agent.steps': 2,
      'svc.agent.max_steps': 2,
    });
    const verdict = otel.span('run_guardrail svc');
    expect(parentId(verdict)).toBe(spanId(invocation));
    expect(verdict.attributes).toMatchObject({
      'gen_ai.operation.name': 'run_guardrail',
      'gen_ai.guardrail.component.name': 'svc',
      'gen_ai.guardrail.target.type': 'input',
      'gen_ai.guardrail.target.subtype': 'action',
      'gen_ai.guardrail.verdict.type': 'deny',
      'gen_ai.guardrail.action.type': 'block',
      'gen_ai.guardrail.security.policy.id': 'max_steps',
      'gen_ai.guardrail.verdict.reason': 'max steps reached',
      'svc.agent.step.number': 3,
    });
    // Two step spans ran; the refused third has none.
    expect(otel.named('step').map((s) => s.attributes['svc.agent.step.description'])).toEqual(['a', 'b']);

    const [event] = otel.events('svc.agent.guardrail_triggered');
    expect(event!.severityText).toBe('WARN');
    expect(event!.body).toMatchObject({ agent: 'marked', guardrail: 'max_steps', limit: 2, observed: 3, step: 3, invocation_id: spanId(invocation), trace_id: invocation.spanContext().traceId });
    // The record is emitted in the invocation's context, so backends correlate it with the trace.
    expect(event!.spanContext?.spanId).toBe(spanId(invocation));
  });

  it('counts nothing against an unlimited agent (max steps 0 and no global default)', () => {
    const bot = agent('unbounded');
    expect(
      bot.invoke((run) => {
        for (let i = 0; i < 5000; i++) run.step();
        return run.steps;
      }),
    ).toBe(5000);
  });
});

describe('loop', () => {
  it('stops the third identical call in a row, with the argument keys in any order', async () => {
    const bot = agent('looper', { loopThreshold: 3 });
    const search = vi.fn(async (args: unknown) => args);
    const error = await thrown(() =>
      bot.invoke(async (run) => {
        await run.tool('search', { query: 'refund', filters: { region: 'eu', since: 2024 } }, search);
        run.step('reflect');
        await run.tool('search', { filters: { since: 2024, region: 'eu' }, query: 'refund' }, search);
        run.step('reflect');
        await run.tool('search', { query: 'refund', filters: { since: 2024, region: 'eu' } }, search);
      }),
    );
    expect(search).toHaveBeenCalledTimes(2);
    expect(error).toMatchObject({ guardrail: 'loop', limit: 3, observed: 3, tool: 'search' });
    expect((error as Error).message).toContain('tool "search" called 3 times in a row with the same arguments');
    expect(otel.span('run_guardrail svc').attributes).toMatchObject({ 'gen_ai.guardrail.target.subtype': 'tool_call', 'gen_ai.tool.name': 'search', 'gen_ai.guardrail.security.policy.id': 'loop' });
  });

  it('restarts the count when the call differs, and never compares arguments too large to canonicalise', async () => {
    const bot = agent('varied', { loopThreshold: 2 });
    const huge = { blob: 'x'.repeat(70 * 1024) };
    const calls = bot.invoke((run) => {
      const tool = (name: string, args: unknown) => run.tool(name, args, () => name);
      tool('a', { v: 1 });
      tool('a', { v: 2 });
      tool('b', { v: 2 });
      tool('a', { v: 2 });
      tool('big', huge);
      tool('big', huge);
      tool('big', huge);
      return run.steps;
    });
    expect(calls).toBe(7);
    const error = await thrown(() =>
      bot.invoke((run) => {
        run.tool('a', { v: 1 }, () => 1);
        run.tool('a', { v: 1 }, () => 1);
      }),
    );
    expect(error).toMatchObject({ guardrail: 'loop', limit: 2, observed: 2 });
  });

  it('tells apart arguments that differ only in order within arrays or in type', async () => {
    const bot = agent('precise', { loopThreshold: 2 });
    expect(
      bot.invoke((run) => {
        run.tool('t', { ids: [1, 2] }, () => 0);
        run.tool('t', { ids: [2, 1] }, () => 0);
        run.tool('t', { ids: ['2', 1] }, () => 0);
        run.tool('u', { ids: ['2', 1] }, () => 0);
        return run.steps;
      }),
    ).toBe(4);
  });
});

describe('cost_budget', () => {
  it('stops the step after the budget is exceeded; cost() itself never throws', async () => {
    const bot = agent('spender', { costBudgetUsd: 0.01 });
    const tool = vi.fn(() => 'ok');
    const costs: number[] = [];
    const error = await thrown(() =>
      bot.invoke((run) => {
        run.step('llm');
        costs.push(run.cost({ usd: 0.006 }));
        run.step('llm');
        costs.push(run.cost({ model: 'gpt-4o-mini', inputTokens: 20_000, outputTokens: 5_000 }));
        // 0.006 + 0.003 + 0.003 = 0.012 > 0.01: recording that did not throw.
        run.tool('send_email', { to: 'x' }, tool);
      }),
    );
    expect(costs[0]).toBeCloseTo(0.006, 10);
    expect(costs[1]).toBeCloseTo(0.006, 10);
    expect(tool).not.toHaveBeenCalled();
    expect(error).toMatchObject({ guardrail: 'cost_budget', limit: 0.01 });
    expect((error as GuardrailError).observed).toBeCloseTo(0.012, 10);
    const invocation = otel.span('invoke_agent spender');
    expect(invocation.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 20_000, 'gen_ai.usage.output_tokens': 5_000, 'svc.agent.cost_budget_usd': 0.01 });
    expect(invocation.attributes['svc.agent.cost_usd']).toBeCloseTo(0.012, 10);
  });

  it('does not stop at exactly the budget, and 0 is unlimited', () => {
    const exact = agent('exact', { costBudgetUsd: 0.5 });
    const spendThenStep = (usd: number) => (run: AgentRun) => {
      run.cost({ usd });
      run.step();
      return run.steps;
    };
    expect(exact.invoke(spendThenStep(0.5))).toBe(1);
    const free = agent('free', { costBudgetUsd: 0 });
    expect(free.invoke(spendThenStep(1e6))).toBe(1);
  });
});

describe('the host keeps running', () => {
  it('an async agent rejects with the GuardrailError and the app serves its answer', async () => {
    const bot = agent('async-bot', { maxSteps: 1 });
    const answer = bot
      .invoke(async (run) => {
        run.step();
        await Promise.resolve();
        run.step();
        return 'unreachable';
      })
      .catch((error: unknown) => (error instanceof GuardrailError ? `stopped: ${error.guardrail}` : 'other'));
    await expect(answer).resolves.toBe('stopped: max_steps');
  });

  it("svc's failures (activity, event log) never reach the agent; the guardrail still stops it", async () => {
    const broken = new Proxy(agentEnvironment().activity, {
      get: (target, key) =>
        key === 'stats' || key === 'tripped' || key === 'invocationEnded'
          ? () => {
              throw new Error('svc bug');
            }
          : Reflect.get(target, key),
    }) as AgentActivity;
    agentEnvironment().activity = broken;
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const bot = agent('resilient', { maxSteps: 2 });
      const error = await thrown(() => bot.invoke((run) => [run.step(), run.step(), run.step()]));
      expect(error).toBeInstanceOf(GuardrailError);
      expect(
        bot.invoke((run) => {
          run.step();
          return 'fine';
        }),
      ).toBe('fine');
    } finally {
      stderr.mockRestore();
    }
  });

  it("passes the agent's own errors through unchanged and marks the span", async () => {
    const bot = agent('failing');
    const error = await thrown(() =>
      bot.invoke(async (run) => {
        await run.tool('explode', {}, async () => {
          throw new RangeError('bad tool input');
        });
      }),
    );
    expect(error).toBeInstanceOf(RangeError);
    expect(otel.span('execute_tool explode').status.code).toBe(SpanStatusCode.ERROR);
    expect(otel.span('invoke_agent failing').attributes['error.type']).toBe('RangeError');
  });
});

describe('GuardrailError', () => {
  it('is recognised across copies of the package by its brand', () => {
    const error = new GuardrailError({ guardrail: 'loop', agent: 'a', limit: 3, observed: 3, invocationId: '0123456789abcdef', tool: 't' });
    const copy = Object.assign(new Error('from another copy'), { [Symbol.for('svc.GuardrailError')]: true });
    expect(error).toBeInstanceOf(Error);
    expect(copy instanceof GuardrailError).toBe(true);
    expect(new Error('plain') instanceof GuardrailError).toBe(false);
    expect(error.name).toBe('GuardrailError');
  });
});
