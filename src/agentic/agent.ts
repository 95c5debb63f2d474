/**
 * Agents inside the app: `agent(name, defaults)` gives an agent whose `invoke(fn, input)` runs one
 * invocation in an `invoke_agent {name}` span, a child of the active span (the request that
 * started it), and hands `fn` a run handle whose steps are guarded (agent-run.ts). `currentRun()`
 * is the run of the current async context.
 *
 * This works with svc's preload and with only the OpenTelemetry API and the app's own SDK: spans
 * come from the global tracer provider (`trace.getTracer`), the guardrail event goes to the global
 * logger provider. While svc runs (preload or `start()`, svc.enabled=true), guardrails follow
 * `svc.agentic.*` configuration (rule 7, agent-settings.ts); otherwise the code's values and the
 * schema's defaults (loop threshold 3, max steps and cost budget unlimited).
 *
 * @example
 * const support = agent('support-bot', { type: 'react', maxSteps: 20, costBudgetUsd: 0.5 });
 * const answer = await support.invoke(async (run, question) => {
 *   run.step('plan');
 *   const order = await run.tool('lookup_order', { id: 7 }, (args) => orders.find(args.id));
 *   run.cost({ model: 'gpt-4o-mini', inputTokens: 1200, outputTokens: 300 });
 *   return summarise(order);
 * }, 'Where is my order?');
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Attributes, type Context, context, INVALID_SPAN_CONTEXT, type Span, SpanKind, type Tracer, trace } from '@opentelemetry/api';
import { getRPCMetadata } from '@opentelemetry/core';
import { ResolvedConfig } from '../config/resolved-config.js';
import { decoratorRegistry } from '../metadata/decorator-registry.js';
import { AGENT, GEN_AI, GEN_AI_OPERATION } from '../shared/attribute-names.js';
import { reportError } from '../shared/report-error.js';
import { EventLog } from '../telemetry/event-log.js';
import { keptName } from './agent-activity.js';
import { agentDeclarations, declareBuilderAgent, noteSeen } from './agent-declarations.js';
import { agentEnvironment } from './agent-environment.js';
import { AgentRun } from './agent-run.js';
import { type AgentDefaults, type AgentSettings, checkedDefaults, resolveAgentSettings } from './agent-settings.js';

const TRACER = '@svc/register';
/** The configuration while svc does not run: the schema's defaults. */
const DEFAULTS = new ResolvedConfig([]);

const RUNS = Symbol.for('svc.agent-runs');

function runs(): AsyncLocalStorage<AgentRun> {
  const holder = globalThis as { [RUNS]?: AsyncLocalStorage<AgentRun> };
  return (holder[RUNS] ??= new AsyncLocalStorage<AgentRun>());
}

/** The run of the agent invocation the caller is in (the innermost one), or undefined outside any. */
export function currentRun(): AgentRun | undefined {
  return runs().getStore();
}

export interface Agent {
  readonly name: string;
  /** The builder defaults, as accepted (values out of range are left out and reported once). */
  readonly defaults: AgentDefaults;
  /**
   * Runs one invocation: `fn(run, input)` in an `invoke_agent` span; returns what `fn` returns (a
   * promise stays a promise). A `GuardrailError` thrown at a step propagates out of `invoke`.
   */
  invoke<Result, Input = undefined>(fn: (run: AgentRun<Input>, input: Input) => Result, input?: Input): Result;
}

/**
 * Resolved settings of one entry point (a builder, a decorated method), recomputed when svc's
 * configuration or the process's declarations change, and the invocation span's attributes with them.
 */
export class SettingsCache {
  private config: ResolvedConfig | undefined;
  private version = -1;
  private resolved!: { settings: AgentSettings; attributes: Attributes };

  constructor(
    readonly name: string,
    private readonly own: AgentDefaults,
    private readonly ownLevel: 'method' | 'builder',
  ) {}

  get(): { settings: AgentSettings; attributes: Attributes } {
    const config = agentEnvironment().config ?? DEFAULTS;
    const declarations = agentDeclarations();
    if (config !== this.config || declarations.version !== this.version) {
      this.config = config;
      this.version = declarations.version;
      const declared = this.ownLevel === 'method' ? this.own : (declarations.methods.get(this.name) ?? {});
      const builder = this.ownLevel === 'builder' ? this.own : (declarations.builders.get(this.name) ?? {});
      const settings = resolveAgentSettings(config, this.name, declared, builder);
      this.resolved = { settings, attributes: invocationAttributes(settings) };
    }
    return this.resolved;
  }
}

function invocationAttributes(s: AgentSettings): Attributes {
  const attributes: Attributes = { [GEN_AI.operationName]: GEN_AI_OPERATION.invokeAgent, [GEN_AI.agentName]: keptName(s.name) };
  if (s.id) attributes[GEN_AI.agentId] = s.id;
  if (s.version) attributes[GEN_AI.agentVersion] = s.version;
  if (s.type) attributes[AGENT.type] = s.type;
  if (s.framework) attributes[AGENT.framework] = s.framework;
  if (s.maxSteps > 0) attributes[AGENT.maxSteps] = s.maxSteps;
  attributes[AGENT.loopThreshold] = s.loopThreshold;
  if (s.costBudgetUsd > 0) attributes[AGENT.costBudgetUsd] = s.costBudgetUsd;
  return Object.freeze(attributes);
}

/** Code's defaults, checked once; what is out of range is left out and reported (the first time per entry point kind, as every svc failure). */
export function acceptedDefaults(name: string, given: unknown, where: string): AgentDefaults {
  const { defaults, problems } = checkedDefaults(given);
  if (problems.length) reportError(where, new Error(`agent ${keptName(name).slice(0, 100)}: ${problems.join('; ')}`));
  return defaults;
}

function agentName(name: unknown): string {
  return typeof name === 'string' && name ? name : String(name ?? '') || 'agent';
}

/**
 * An agent, with its builder defaults (configuration and `@AgentMethod` of the same name override
 * them, rule 7).
 */
export function agent(name: string, defaults?: AgentDefaults): Agent {
  const agentNameValue = agentName(name);
  const accepted = acceptedDefaults(agentNameValue, defaults, 'agent() defaults');
  declareBuilderAgent(agentNameValue, accepted);
  const settings = new SettingsCache(agentNameValue, accepted, 'builder');
  return Object.freeze({
    name: agentNameValue,
    defaults: accepted,
    invoke<Result, Input = undefined>(fn: (run: AgentRun<Input>, input: Input) => Result, input?: Input): Result {
      return invokeAgent(settings, fn, input as Input);
    },
  });
}

/** A run handle that traces nothing, for when svc could not set up an invocation: the agent still runs, guarded. */
function unrecordedTracer(): Tracer {
  const span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
  return { startSpan: () => span, startActiveSpan: ((_name: string, ...rest: unknown[]) => (rest.at(-1) as (s: Span) => unknown)(span)) as Tracer['startActiveSpan'] };
}

/** The span whose operation a guardrail trip belongs to: a decorated operation's span, else the request's. */
function operationSpanOf(parent: Context): object | undefined {
  const span = trace.getSpan(parent);
  if (span && decoratorRegistry().operationOfSpan.has(span)) return span;
  return getRPCMetadata(parent)?.span;
}

/** One invocation: its span and run, `fn` in their context, and the run's end however `fn` ends. */
export function invokeAgent<Result, Input>(cache: SettingsCache, fn: (run: AgentRun<Input>, input: Input) => Result, input: Input): Result {
  let run: AgentRun<Input>;
  let runContext: Context;
  try {
    const { settings, attributes } = cache.get();
    noteSeen(settings.name);
    const tracer = trace.getTracer(TRACER);
    const parent = context.active();
    const span = tracer.startSpan(`invoke_agent ${keptName(settings.name)}`, { kind: SpanKind.INTERNAL, attributes }, parent);
    runContext = trace.setSpan(parent, span);
    const activity = agentEnvironment().activity;
    run = new AgentRun<Input>(
      {
        tracer,
        span,
        context: runContext,
        settings,
        activity,
        stats: activity.stats(settings.name),
        operationSpan: operationSpanOf(parent),
        emit: (name, severity, body) => new EventLog().emit(name, severity, body),
      },
      input,
    );
  } catch (error) {
    reportError('starting an agent invocation', error);
    const tracer = unrecordedTracer();
    const activity = agentEnvironment().activity;
    runContext = context.active();
    let settings: AgentSettings;
    try {
      settings = cache.get().settings;
    } catch {
      settings = resolveAgentSettings(DEFAULTS, cache.name);
    }
    run = new AgentRun<Input>({ tracer, span: tracer.startSpan(''), context: runContext, settings, activity, stats: undefined, operationSpan: undefined, emit: () => {} }, input);
  }
  return runs().run(run as AgentRun, () =>
    context.with(runContext, () => {
      let result: Result;
      try {
        result = fn(run, input);
      } catch (error) {
        run.end(error, true);
        throw error;
      }
      if (result === null || (typeof result !== 'object' && typeof result !== 'function') || typeof (result as { then?: unknown }).then !== 'function') {
        run.end(undefined, false);
        return result;
      }
      return Promise.resolve(result).then(
        (value) => {
          run.end(undefined, false);
          return value;
        },
        (error: unknown) => {
          run.end(error, true);
          throw error;
        },
      ) as Result;
    }),
  );
}
