/**
 * Guardrail settings of an agent that runs inside the app (rule 7): configuration
 * (`svc.agentic.agents.<name>.*`) overrides what the agent's declaration gives (the `@AgentMethod`
 * annotation or a builder), which overrides the builder defaults; a per-agent max-steps or
 * loop-threshold of 0 means "use the global one" (`svc.agentic.default-max-steps`,
 * `svc.agentic.loop-threshold`). A cost budget of 0 is unlimited.
 */
import type { ResolvedConfig } from '../config/resolved-config.js';

export interface AgentSettings {
  readonly name: string;
  readonly type: string | undefined;
  readonly framework: string;
  readonly version: string;
  /** 0 is unlimited. */
  readonly maxSteps: number;
  readonly loopThreshold: number;
  /** 0 is unlimited. */
  readonly costBudgetUsd: number;
}

export type DeclaredAgentSettings = Partial<Omit<AgentSettings, 'name'>>;

export function resolveAgentSettings(config: ResolvedConfig, name: string, declared: DeclaredAgentSettings = {}): AgentSettings {
  const pick = <T>(field: string, fromDeclaration: T | undefined, builderDefault: T): T => config.member<T>('agentic.agents', name, field)?.value ?? fromDeclaration ?? builderDefault;
  const maxSteps = pick('max-steps', declared.maxSteps, 0);
  const loopThreshold = pick('loop-threshold', declared.loopThreshold, 0);
  return {
    name,
    type: pick<string | undefined>('type', declared.type, undefined),
    framework: pick('framework', declared.framework, ''),
    version: pick('version', declared.version, ''),
    maxSteps: maxSteps === 0 ? config.get<number>('agentic.default-max-steps') : maxSteps,
    loopThreshold: loopThreshold === 0 ? config.get<number>('agentic.loop-threshold') : loopThreshold,
    costBudgetUsd: pick('cost-budget-usd', declared.costBudgetUsd, 0),
  };
}
