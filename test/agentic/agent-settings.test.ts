/** Rule 7: configuration > agent declaration > builder defaults; per-agent 0 uses the global value. */
import { describe, expect, it } from 'vitest';
import { resolveAgentSettings } from '../../src/agentic/agent-settings.js';
import { loadConfig } from '../../src/config/load-config.js';
import { tempDir } from '../support/temp-dir.js';

const { config } = loadConfig({
  cwd: tempDir({
    'svc.yml': `agentic:
  loop-threshold: 4
  default-max-steps: 25
  agents:
    support-bot:
      type: react
      max-steps: 10
      cost-budget-usd: 2.5
    summariser:
      loop-threshold: 0
`,
  }),
  args: [],
  env: {},
});

describe('agent guardrail settings', () => {
  it('configuration overrides the declaration, which overrides builder defaults', () => {
    const settings = resolveAgentSettings(config, 'support-bot', { maxSteps: 50, framework: 'langgraph', loopThreshold: 2 });
    expect(settings).toEqual({ name: 'support-bot', type: 'react', framework: 'langgraph', version: '', maxSteps: 10, loopThreshold: 2, costBudgetUsd: 2.5 });
  });

  it('per-agent 0, or nothing, falls back to the global max-steps and loop threshold', () => {
    expect(resolveAgentSettings(config, 'summariser')).toMatchObject({ maxSteps: 25, loopThreshold: 4, costBudgetUsd: 0 });
    expect(resolveAgentSettings(config, 'unconfigured', { maxSteps: 0 })).toMatchObject({ maxSteps: 25, loopThreshold: 4 });
  });
});
