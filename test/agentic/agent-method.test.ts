/**
 * @AgentMethod in both decorator modes (legacy as TypeScript's __decorate calls it, standard as
 * the TC39 sequence does): each call is one invocation of the named agent, the method reaches its
 * run with currentRun(), and its options are the agent's guardrails.
 */
import 'reflect-metadata';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { currentRun } from '../../src/agentic/agent.js';
import { declaredAgentNames } from '../../src/agentic/agent-declarations.js';
import { AGENT_METHOD_KEY, AgentMethod, type AgentMethodOptions } from '../../src/agentic/agent-method.js';
import { GuardrailError } from '../../src/agentic/guardrail-error.js';
import { otelHarness, parentId, spanId } from './otel-harness.js';

const otel = otelHarness();
afterEach(() => otel.reset());
afterAll(() => otel.shutdown());

class Support {
  constructor(readonly docs: Record<string, string>) {}
  async answer(question: string): Promise<string> {
    const run = currentRun()!;
    run.step('plan');
    const found = await run.tool('search_docs', { q: question }, async (args) => this.docs[args.q] ?? 'nothing');
    return `${run.agent}: ${found}`;
  }
  poll(times: number): number {
    const run = currentRun()!;
    for (let i = 0; i < times; i++) run.tool('status', { job: 1 }, () => 'pending');
    return run.steps;
  }
}

type Mode = 'legacy' | 'standard';

/** A fresh Support class whose `method` is decorated in `mode`. */
function decorated(mode: Mode, method: 'answer' | 'poll', options?: AgentMethodOptions): typeof Support {
  const cls = class extends Support {};
  Object.defineProperty(cls, 'name', { value: 'Support' });
  const original = Support.prototype[method];
  if (mode === 'legacy') {
    const descriptor = { value: original, writable: true, configurable: true, enumerable: false };
    Object.defineProperty(cls.prototype, method, Reflect.decorate([AgentMethod(options)], cls.prototype, method, descriptor) as PropertyDescriptor);
  } else {
    const metadata: Record<PropertyKey, unknown> = {};
    const wrapped = AgentMethod(options)(original, { kind: 'method', name: method, static: false, private: false, metadata, addInitializer: () => {} });
    Object.defineProperty(cls.prototype, method, { value: wrapped, writable: true, configurable: true, enumerable: false });
    Object.defineProperty(cls, Symbol.for('test.metadata'), { value: metadata });
  }
  return cls;
}

describe.each<Mode>(['legacy', 'standard'])('%s decorators', (mode) => {
  it('makes each call one invocation of the named agent, with the run reachable from the method', async () => {
    const cls = decorated(mode, 'answer', { name: `docs-${mode}`, type: 'single', version: '1.2' });
    const support = new cls({ refunds: '30 days' });
    await expect(support.answer('refunds')).resolves.toBe(`docs-${mode}: 30 days`);
    await support.answer('shipping');
    const invocations = otel.named(`invoke_agent docs-${mode}`);
    expect(invocations).toHaveLength(2);
    expect(invocations[0]!.attributes).toMatchObject({ 'gen_ai.agent.name': `docs-${mode}`, 'gen_ai.agent.version': '1.2', 'svc.agent.type': 'single', 'svc.agent.steps': 2 });
    const tools = otel.named('execute_tool search_docs');
    expect(tools.map(parentId).sort()).toEqual(invocations.map(spanId).sort());
    expect(declaredAgentNames()).toContain(`docs-${mode}`);
  });

  it("enforces the decorator's guardrails", () => {
    const cls = decorated(mode, 'poll', { name: `poller-${mode}`, loopThreshold: 4 });
    const support = new cls({});
    expect(support.poll(3)).toBe(3);
    let error: unknown;
    try {
      support.poll(10);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GuardrailError);
    expect(error).toMatchObject({ agent: `poller-${mode}`, guardrail: 'loop', limit: 4, observed: 4 });
  });

  it('names the agent Class.method without a name', () => {
    const cls = decorated(mode, 'poll');
    expect(new cls({}).poll(1)).toBe(1);
    expect(otel.named('invoke_agent Support.poll')).toHaveLength(1);
  });

  it('records its options as metadata', () => {
    const cls = decorated(mode, 'poll', { name: `meta-${mode}`, maxSteps: 3 });
    if (mode === 'legacy') expect(Reflect.getOwnMetadata(AGENT_METHOD_KEY, cls.prototype, 'poll')).toEqual({ name: `meta-${mode}`, maxSteps: 3 });
    else expect((cls as unknown as Record<symbol, Record<symbol, unknown>>)[Symbol.for('test.metadata')]![AGENT_METHOD_KEY]).toEqual([{ name: `meta-${mode}`, maxSteps: 3, method: 'poll' }]);
  });
});

describe('standard decorators without a name', () => {
  it('a call without a receiver runs under the method name and does not fix the name', () => {
    const cls = decorated('standard', 'poll');
    const detached = cls.prototype.poll;
    expect(() => detached.call(undefined, 0)).not.toThrow();
    expect(new cls({}).poll(0)).toBe(0);
    expect(otel.spans().map((s) => s.name)).toEqual(['invoke_agent poll', 'invoke_agent Support.poll']);
  });
});
