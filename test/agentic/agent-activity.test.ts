/** What svc keeps of agents for the tools: the last hour per agent, bounded, with a fake clock. */
import { describe, expect, it } from 'vitest';
import { AgentActivity, MAX_NAME_CHARS, STEP_SAMPLES } from '../../src/agentic/agent-activity.js';
import { FakeClock } from '../../src/analysis/clock.js';
import { operationNamed } from '../../src/telemetry/operation-of-trip.js';

const MINUTE = 60_000;
const trip = (agent: string) => ({ agent, guardrail: 'loop' as const, limit: 3, observed: 3, invocationId: 'abcd', tool: 'search' });

describe('agent activity', () => {
  it('counts invocations, failures, trips and cost over the last hour, as time passes', () => {
    const clock = new FakeClock();
    const activity = new AgentActivity(clock);
    const bot = activity.stats('bot');
    activity.invocationEnded(bot, 4, false);
    activity.costAdded(bot, 0.25);
    activity.tripped(bot, trip('bot'), undefined);
    activity.invocationEnded(bot, 9, true);
    clock.advance(30 * MINUTE);
    activity.costAdded(bot, 0.5);
    activity.invocationEnded(bot, 2, false);
    expect(activity.summaries()).toEqual([
      { name: 'bot', invocations: 3, failures: 1, guardrailTrips: 1, tripsByGuardrail: { max_steps: 0, loop: 1, cost_budget: 0 }, stepsP50: 4, stepsP99: 9, costUsd: 0.75 },
    ]);
    // An hour after the first invocations, only the later ones count.
    clock.advance(31 * MINUTE);
    expect(activity.summaries()).toEqual([
      { name: 'bot', invocations: 1, failures: 0, guardrailTrips: 0, tripsByGuardrail: { max_steps: 0, loop: 0, cost_budget: 0 }, stepsP50: 2, stepsP99: 2, costUsd: 0.5 },
    ]);
    expect(activity.recentTrips()).toEqual([]);
    // Nothing in the last hour: the agent is not listed.
    clock.advance(60 * MINUTE);
    expect(activity.summaries()).toEqual([]);
  });

  it('takes steps percentiles over the latest invocations', () => {
    const activity = new AgentActivity(new FakeClock());
    const bot = activity.stats('bot');
    for (let i = 1; i <= 100; i++) activity.invocationEnded(bot, i, false);
    expect(activity.summaries()[0]).toMatchObject({ stepsP50: 50, stepsP99: 99 });
    for (let i = 0; i < STEP_SAMPLES; i++) activity.invocationEnded(bot, 1000, false);
    expect(activity.summaries()[0]).toMatchObject({ stepsP50: 1000, stepsP99: 1000, invocations: 100 + STEP_SAMPLES });
  });

  it('tracks a bounded number of agents and trips, with names cut', () => {
    const activity = new AgentActivity(new FakeClock(), { maxAgents: 2, maxTrips: 3 });
    expect(activity.stats('a')).toBeDefined();
    expect(activity.stats('b')).toBeDefined();
    expect(activity.stats('c')).toBeUndefined();
    expect(activity.stats('a')).toBe(activity.stats('a'));
    expect(activity.overflow).toBe(1);
    expect(activity.size).toBe(2);
    for (let i = 0; i < 5; i++) activity.tripped(undefined, { ...trip(`agent-${i}`), tool: 't'.repeat(1000) }, undefined);
    const trips = activity.recentTrips();
    expect(trips.map((t) => t.agent).sort()).toEqual(['agent-2', 'agent-3', 'agent-4']);
    expect(trips[0]!.tool!.length).toBe(MAX_NAME_CHARS);
    const long = new AgentActivity(new FakeClock());
    expect(long.stats('n'.repeat(5000))!.name).toHaveLength(MAX_NAME_CHARS);
  });

  it("names a trip's operation when svc's span processor names the span it ran in", () => {
    const activity = new AgentActivity(new FakeClock());
    const request = {};
    const other = {};
    activity.tripped(undefined, trip('bot'), request);
    activity.tripped(undefined, trip('bot'), request);
    expect(activity.recentTrips('GET /orders/{id}')).toEqual([]);
    operationNamed(other, 'GET /other');
    operationNamed(request, 'GET /orders/{id}');
    expect(activity.recentTrips('GET /orders/{id}')).toHaveLength(2);
    // Named once: a later span naming the same object changes nothing.
    operationNamed(request, 'GET /elsewhere');
    expect(activity.recentTrips('GET /elsewhere')).toEqual([]);
  });
});
