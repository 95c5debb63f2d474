/**
 * Rule 7 as invocations see it: `svc.agentic.agents.<name>.*` over `@AgentMethod` over builder
 * defaults; per-agent max-steps and loop-threshold over the global ones; 0 means "the global
 * default" for those two and "unlimited" for the cost budget; the configured name must equal the
 * invoked or annotated one. Each case runs an agent into its guardrail and reads the limit that
 * stopped it. Configuration applies while svc runs (runtime active with a loaded config).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { agent, currentRun } from '../../src/agentic/agent.js';
import { declaredAgentNames } from '../../src/agentic/agent-declarations.js';
import { agentEnvironment } from '../../src/agentic/agent-environment.js';
import { AgentMethod } from '../../src/agentic/agent-method.js';
import type { AgentRun } from '../../src/agentic/agent-run.js';
import { configuredAgentsNeverDeclared } from '../../src/agentic/configured-agents.js';
import { GuardrailError } from '../../src/agentic/guardrail-error.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { ResolvedConfig } from '../../src/config/resolved-config.js';
import { tempDir } from '../support/temp-dir.js';
import { otelHarness } from './otel-harness.js';

const otel = otelHarness();
afterAll(() => otel.shutdown());
afterEach(() => {
  otel.reset();
  agentEnvironment().config = undefined;
});

function running(yaml: string): ResolvedConfig {
  const { config } = loadConfig({ cwd: tempDir({ 'svc.yml': yaml }), args: [], env: {} });
  expect(config.problems).toEqual([]);
  agentEnvironment().config = config;
  return config;
}

/** The guardrail error an agent body meets when it loops forever; `kind` picks the loop's shape. */
function stopOf(invoke: (body: (run: AgentRun) => void) => void, kind: 'steps' | 'same-call' | 'spend'): GuardrailError {
  try {
    invoke((run) => {
      for (let i = 0; i < 100_000; i++) {
        if (kind === 'steps') run.step();
        else if (kind === 'same-call') run.tool('poll', { job: 1 }, () => 'pending');
        else {
          run.step();
          run.cost({ usd: 0.01 });
        }
      }
    });
  } catch (error) {
    if (error instanceof GuardrailError) return error;
    throw error;
  }
  throw new Error('the agent was never stopped');
}

const viaBuilder = (name: string, defaults = {}) => {
  const a = agent(name, defaults);
  return (body: (run: AgentRun) => void) => a.invoke(body);
};

/** A legacy-decorated method (as TypeScript's __decorate calls it) whose body is the loop. */
function viaLegacyMethod(options: Parameters<typeof AgentMethod>[0]) {
  class Agents {
    work(body: (run: AgentRun) => void): void {
      body(currentRunOrFail());
    }
  }
  const descriptor = Object.getOwnPropertyDescriptor(Agents.prototype, 'work')!;
  Object.defineProperty(Agents.prototype, 'work', AgentMethod(options)(Agents.prototype, 'work', descriptor));
  const instance = new Agents();
  return (body: (run: AgentRun) => void) => instance.work(body);
}

/** A standard-decorated method (the TC39 call sequence). */
function viaStandardMethod(options: Parameters<typeof AgentMethod>[0]) {
  const work = function (this: unknown, body: (run: AgentRun) => void): void {
    body(currentRunOrFail());
  };
  const wrapped = AgentMethod(options)(work, { kind: 'method', name: 'work', static: false, metadata: {} }) as typeof work;
  class Agents {
    work = wrapped;
  }
  const instance = new Agents();
  return (body: (run: AgentRun) => void) => instance.work(body);
}

function currentRunOrFail(): AgentRun {
  const run = currentRun();
  if (!run) throw new Error('no current run in a decorated method');
  return run;
}

describe('max steps', () => {
  it('configuration over @AgentMethod over builder', () => {
    running('agentic: { agents: { triage: { max-steps: 2 } } }');
    agent('triage', { maxSteps: 10 });
    expect(stopOf(viaLegacyMethod({ name: 'triage', maxSteps: 5 }), 'steps')).toMatchObject({ guardrail: 'max_steps', limit: 2, observed: 3 });
  });

  it('@AgentMethod over builder, in both decorator modes, whichever entry point invokes', () => {
    running('agentic: { default-max-steps: 50 }');
    agent('summariser', { maxSteps: 10 });
    expect(stopOf(viaLegacyMethod({ name: 'summariser', maxSteps: 5 }), 'steps').limit).toBe(5);
    expect(stopOf(viaStandardMethod({ name: 'summariser-std', maxSteps: 6 }), 'steps').limit).toBe(6);
    // The builder of a name that a decorator also declares is overridden by the decorator.
    expect(stopOf(viaBuilder('summariser', { maxSteps: 10 }), 'steps').limit).toBe(5);
  });

  it('builder defaults over the global default', () => {
    running('agentic: { default-max-steps: 50 }');
    expect(stopOf(viaBuilder('planner', { maxSteps: 7 }), 'steps').limit).toBe(7);
  });

  it('the global default when nothing names a limit, and per-agent 0 means the global default at every level', () => {
    running(`agentic:
  default-max-steps: 4
  agents:
    zeroed: { max-steps: 0 }
`);
    expect(stopOf(viaBuilder('plain'), 'steps').limit).toBe(4);
    // Configuration's 0 beats the code's 9: "use the global default".
    expect(stopOf(viaBuilder('zeroed', { maxSteps: 9 }), 'steps').limit).toBe(4);
    expect(stopOf(viaLegacyMethod({ name: 'zero-method', maxSteps: 0 }), 'steps').limit).toBe(4);
  });
});

describe('loop threshold', () => {
  it('per-agent configuration over the global threshold, and over the code', () => {
    running(`agentic:
  loop-threshold: 5
  agents:
    poller: { loop-threshold: 2 }
`);
    expect(stopOf(viaBuilder('poller', { loopThreshold: 8 }), 'same-call')).toMatchObject({ guardrail: 'loop', limit: 2, observed: 2 });
  });

  it('per-agent 0 (or none) uses the global threshold; without svc the default is 3', () => {
    running(`agentic:
  loop-threshold: 5
  agents:
    patient: { loop-threshold: 0 }
`);
    expect(stopOf(viaBuilder('patient', { loopThreshold: 0 }), 'same-call').limit).toBe(5);
    expect(stopOf(viaStandardMethod({ name: 'unset' }), 'same-call').limit).toBe(5);
    agentEnvironment().config = undefined;
    expect(stopOf(viaBuilder('offline'), 'same-call').limit).toBe(3);
  });

  it('@AgentMethod over builder', () => {
    running('agentic: { loop-threshold: 9 }');
    agent('checker', { loopThreshold: 6 });
    expect(stopOf(viaStandardMethod({ name: 'checker', loopThreshold: 4 }), 'same-call').limit).toBe(4);
  });
});

describe('cost budget', () => {
  it('configuration over the code; a configured 0 is unlimited', () => {
    running(`agentic:
  agents:
    buyer: { cost-budget-usd: 0.05 }
    unlimited: { cost-budget-usd: 0 }
`);
    expect(stopOf(viaLegacyMethod({ name: 'buyer', costBudgetUsd: 5 }), 'spend')).toMatchObject({ guardrail: 'cost_budget', limit: 0.05 });
    // 0 in configuration overrides the code's budget: this agent is only stopped by max steps.
    expect(stopOf(viaBuilder('unlimited', { costBudgetUsd: 0.01, maxSteps: 200 }), 'spend')).toMatchObject({ guardrail: 'max_steps', limit: 200 });
  });

  it('@AgentMethod over builder, builder alone', () => {
    running('agentic: {}');
    agent('reviewer', { costBudgetUsd: 1 });
    expect(stopOf(viaStandardMethod({ name: 'reviewer', costBudgetUsd: 0.03 }), 'spend').limit).toBe(0.03);
    expect(stopOf(viaBuilder('solo', { costBudgetUsd: 0.02 }), 'spend').limit).toBe(0.02);
  });
});

describe('names', () => {
  it('configuration applies only to the exact name, and only while svc runs', () => {
    running('agentic: { agents: { Support-Bot: { max-steps: 1 } } }');
    expect(stopOf(viaBuilder('support-bot', { maxSteps: 3 }), 'steps').limit).toBe(3);
    expect(stopOf(viaBuilder('Support-Bot', { maxSteps: 3 }), 'steps').limit).toBe(1);
    agentEnvironment().config = undefined;
    expect(stopOf(viaBuilder('Support-Bot', { maxSteps: 3 }), 'steps').limit).toBe(3);
  });

  it('a configured agent no code declared or invoked is listed for svc check', () => {
    const config = running(`agentic:
  agents:
    support-bot: { max-steps: 3 }
    suport-bot: { max-steps: 3 }
    nightly-digest: { cost-budget-usd: 1 }
`);
    agent('support-bot');
    expect(configuredAgentsNeverDeclared(config, declaredAgentNames())).toEqual(['nightly-digest', 'suport-bot']);
    viaLegacyMethod({ name: 'nightly-digest' });
    expect(configuredAgentsNeverDeclared(config, declaredAgentNames())).toEqual(['suport-bot']);
  });

  it('the invocation span carries the limits that applied', () => {
    running('agentic: { loop-threshold: 4, agents: { shown: { max-steps: 12, cost-budget-usd: 0.5, type: critic, version: "3" } } }');
    agent('shown').invoke(() => undefined);
    expect(otel.span('invoke_agent shown').attributes).toMatchObject({
      'svc.agent.max_steps': 12,
      'svc.agent.loop_threshold': 4,
      'svc.agent.cost_budget_usd': 0.5,
      'svc.agent.type': 'critic',
      'gen_ai.agent.version': '3',
    });
  });
});

describe('values the code gives out of range', () => {
  it('are ignored (as if not given) and reported once, never thrown', () => {
    running('agentic: { default-max-steps: 3 }');
    const writes: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => writes.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      const bad = agent('sloppy', { maxSteps: -1, loopThreshold: 2.5, costBudgetUsd: Number.NaN });
      expect(bad.defaults).toEqual({});
      expect(stopOf(viaBuilder('sloppy', { maxSteps: -1 }), 'steps').limit).toBe(3);
    } finally {
      process.stderr.write = original;
    }
    expect(writes.join('')).toContain(
      'agent() defaults failed: agent sloppy: maxSteps -1 is not a whole number from 0 to 1000000; ignored; loopThreshold 2.5 is not a whole number from 0 to 1000; ignored',
    );
  });
});
