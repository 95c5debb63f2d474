/**
 * Guardrail settings of an agent that runs inside the app (rule 7): configuration
 * (`svc.agentic.agents.<name>.*`) overrides the `@AgentMethod` annotation, which overrides the
 * builder defaults (`agent(name, defaults)`); a per-agent max-steps or loop-threshold of 0 (or none
 * at any level) means "use the global one" (`svc.agentic.default-max-steps`,
 * `svc.agentic.loop-threshold`). A cost budget of 0 is unlimited, as is a global max-steps of 0.
 * Without svc running, the configuration is the schema's defaults (loop threshold 3, max steps and
 * cost budget unlimited).
 */
import type { ResolvedConfig } from '../config/resolved-config.js';

export interface AgentSettings {
  readonly name: string;
  readonly type: string | undefined;
  readonly framework: string;
  readonly version: string;
  /** `gen_ai.agent.id`, from the declaration or builder only (there is no configuration key). */
  readonly id?: string | undefined;
  /** 0 is unlimited. */
  readonly maxSteps: number;
  readonly loopThreshold: number;
  /** 0 is unlimited. */
  readonly costBudgetUsd: number;
}

/** What `@AgentMethod` options and `agent(name, defaults)` may give; every field optional. */
export interface AgentDefaults {
  /** single, orchestrator, worker, evaluator, critic, router, react (as `svc.agentic.agents.<name>.type`). */
  readonly type?: string;
  readonly framework?: string;
  readonly version?: string;
  /** `gen_ai.agent.id`, when the agent has an identifier of its own. */
  readonly id?: string;
  /** 0 (or absent) uses the global default. */
  readonly maxSteps?: number;
  /** 0 (or absent) uses the global default. */
  readonly loopThreshold?: number;
  /** 0 (or absent) is unlimited. */
  readonly costBudgetUsd?: number;
}

export type DeclaredAgentSettings = AgentDefaults;

export function resolveAgentSettings(config: ResolvedConfig, name: string, declared: AgentDefaults = {}, builder: AgentDefaults = {}): AgentSettings {
  const pick = <T>(field: string, fromDeclaration: T | undefined, fromBuilder: T | undefined, fallback: T): T =>
    config.member<T>('agentic.agents', name, field)?.value ?? fromDeclaration ?? fromBuilder ?? fallback;
  // A 0 at a higher level is a value ("use the global one"): it is not passed over for a lower level's number.
  const maxSteps = pick('max-steps', declared.maxSteps, builder.maxSteps, 0);
  const loopThreshold = pick('loop-threshold', declared.loopThreshold, builder.loopThreshold, 0);
  return {
    name,
    type: pick<string | undefined>('type', declared.type, builder.type, undefined),
    framework: pick('framework', declared.framework, builder.framework, ''),
    version: pick('version', declared.version, builder.version, ''),
    id: declared.id ?? builder.id,
    maxSteps: maxSteps === 0 ? config.get<number>('agentic.default-max-steps') : maxSteps,
    loopThreshold: loopThreshold === 0 ? config.get<number>('agentic.loop-threshold') : loopThreshold,
    costBudgetUsd: pick('cost-budget-usd', declared.costBudgetUsd, builder.costBudgetUsd, 0),
  };
}

const LIMITS: Readonly<Record<'maxSteps' | 'loopThreshold' | 'costBudgetUsd', { integer: boolean; max: number }>> = {
  maxSteps: { integer: true, max: 1_000_000 },
  loopThreshold: { integer: true, max: 1000 },
  costBudgetUsd: { integer: false, max: 1_000_000 },
};
const TEXT_FIELDS = ['type', 'framework', 'version', 'id'] as const;
const MAX_TEXT = 256;

/**
 * The defaults as code gave them, with what does not fit the configuration's ranges left out (as
 * if not given) and described in `problems`: a negative, fractional or huge limit, a non-string or
 * over-long name field.
 */
export function checkedDefaults(defaults: unknown): { defaults: AgentDefaults; problems: string[] } {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  if (defaults === undefined || defaults === null) return { defaults: {}, problems };
  if (typeof defaults !== 'object') return { defaults: {}, problems: [`defaults must be an object, got ${typeof defaults}`] };
  const given = defaults as Record<string, unknown>;
  for (const [field, { integer, max }] of Object.entries(LIMITS)) {
    const value = given[field];
    if (value === undefined) continue;
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= max && (!integer || Number.isInteger(value))) out[field] = value;
    else problems.push(`${field} ${String(value)} is not ${integer ? 'a whole number' : 'a number'} from 0 to ${max}; ignored`);
  }
  for (const field of TEXT_FIELDS) {
    const value = given[field];
    if (value === undefined) continue;
    if (typeof value === 'string' && value.length <= MAX_TEXT) out[field] = value;
    else problems.push(`${field} is not a string of at most ${MAX_TEXT} characters; ignored`);
  }
  return { defaults: Object.freeze(out) as AgentDefaults, problems };
}
