/**
 * One invocation of an agent: the run handle its code receives. `step()` and `tool()` are the
 * agent's steps; each checks the guardrails first and throws `GuardrailError` instead of running
 * when one is crossed:
 * - max_steps: the step would be number `maxSteps + 1` (`maxSteps` 0: unlimited);
 * - cost_budget: the cost recorded so far exceeds `costBudgetUsd` (0: unlimited); `cost()` itself
 *   never throws, the next step does;
 * - loop: the tool call is the `loopThreshold`-th in a row with the same tool name and canonical
 *   arguments (plain steps between calls do not break the row; a call whose arguments are too large
 *   to compare does).
 * Once stopped, every later step of the run throws the same error.
 *
 * Spans (OpenTelemetry GenAI conventions, docs/agentic.md): each step is an internal `step` span
 * from `step()` until the next step or the end of the run; each tool call an `execute_tool {tool}`
 * span around the call, active while it runs (the tool's own spans are its children). Both are
 * children of the invocation span, whatever context the agent's code is in when it calls them.
 *
 * What the run keeps is fixed in size: counters, the hash of the last tool call and its count.
 */

import { randomBytes } from 'node:crypto';
import { type AttributeValue, type Context, context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { EmitEvent } from '../analysis/emit-event.js';
import { AGENT, ERROR_TYPE, GEN_AI, GEN_AI_GUARDRAIL, GEN_AI_OPERATION } from '../shared/attribute-names.js';
import { reportError } from '../shared/report-error.js';
import type { AgentActivity, AgentStats } from './agent-activity.js';
import { keptName } from './agent-activity.js';
import type { AgentSettings } from './agent-settings.js';
import { callIdentity } from './canonical-args.js';
import { type Guardrail, GuardrailError } from './guardrail-error.js';
import { costUsd, modelPrice } from './model-prices.js';

/** The event a guardrail trip emits (a WARN log record). */
export const GUARDRAIL_EVENT = 'svc.agent.guardrail_triggered';

const STEP_SPAN = 'step';
const GUARDRAIL_SPAN = 'run_guardrail svc';
const MAX_DESCRIPTION = 256;
const MAX_CALL_ID = 256;

/** Usage to add to the run's cost: USD directly, or tokens of a model priced by the price table. */
export type CostUsage =
  | { readonly usd: number; readonly inputTokens?: number; readonly outputTokens?: number; readonly model?: string }
  | { readonly model: string; readonly inputTokens: number; readonly outputTokens: number; readonly usd?: undefined };

export interface ToolOptions {
  /** `gen_ai.tool.call.id`: the model's id for this call, when it gave one. */
  readonly callId?: string;
}

/** What an invocation hands its run: where to trace, what to enforce, where to count. */
export interface RunScope {
  readonly tracer: Tracer;
  readonly span: Span;
  /** The invocation span's context: the parent of every step and tool span. */
  readonly context: Context;
  readonly settings: AgentSettings;
  readonly activity: AgentActivity;
  readonly stats: AgentStats | undefined;
  /** The span of the request or operation the agent runs in, for trips' operation names. */
  readonly operationSpan: object | undefined;
  readonly emit: EmitEvent;
}

function errorAttributes(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setAttribute(ERROR_TYPE, error instanceof Error ? error.name || 'Error' : '_OTHER');
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

const MAX_REPORTED_MODELS = 64;
const reportedModels = new Set<string>();

/** Once per model (at most 64 models, then once for all others): a model without a price costs 0. */
function reportUnpriced(model: string): void {
  const shown = model.length > 100 ? `${model.slice(0, 99)}…` : model;
  const known = reportedModels.has(shown) || reportedModels.size < MAX_REPORTED_MODELS;
  if (known) reportedModels.add(shown);
  reportError(
    known ? `pricing model ${shown}` : 'pricing further models',
    new Error('no price for this model, its cost counts as 0; add one with setModelPrice(model, { inputPerMillionUsd, outputPerMillionUsd })'),
  );
}

function finite(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

export class AgentRun<Input = unknown> {
  private stepCount = 0;
  private stepSpan: Span | undefined;
  private lastCall: string | undefined;
  private repeats = 0;
  private spentUsd = 0;
  private inputTokens = 0;
  private outputTokens = 0;
  private stopped: GuardrailError | undefined;
  private ended = false;
  private id: string | undefined;

  constructor(
    private readonly scope: RunScope,
    /** The input given to `invoke` (the method's arguments for `@AgentMethod`). */
    readonly input: Input,
  ) {}

  /** The agent's name. */
  get agent(): string {
    return this.scope.settings.name;
  }

  /** The guardrails and identity in force for this run (rule 7 resolved). */
  get settings(): AgentSettings {
    return this.scope.settings;
  }

  /** Steps run so far (tool calls included). */
  get steps(): number {
    return this.stepCount;
  }

  /** USD recorded with `cost()` so far. */
  get costUsd(): number {
    return this.spentUsd;
  }

  /** The guardrail error that stopped this run, if one did. */
  get stoppedBy(): GuardrailError | undefined {
    return this.stopped;
  }

  /** The invocation's id: its invoke_agent span id (16 hex digits), or a random one when the span is not recorded. */
  get invocationId(): string {
    if (this.id === undefined) this.id = this.scope.span.isRecording() ? this.scope.span.spanContext().spanId : randomBytes(8).toString('hex');
    return this.id;
  }

  /**
   * Starts the next step (an LLM call, a plan, a decision). Throws `GuardrailError` instead when
   * this step would cross max steps or the cost budget.
   */
  step(description?: string): void {
    if (this.ended) return;
    this.check(undefined, undefined);
    this.stepCount++;
    this.closeStep();
    const attributes: Record<string, AttributeValue> = { [AGENT.stepNumber]: this.stepCount };
    if (typeof description === 'string' && description) attributes[AGENT.stepDescription] = description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION - 1)}…` : description;
    this.stepSpan = this.scope.tracer.startSpan(STEP_SPAN, { kind: SpanKind.INTERNAL, attributes }, this.scope.context);
  }

  /**
   * Runs a tool call as a step: checks the guardrails (the loop guardrail compares `name` and
   * `args`), then calls `fn(args)` in an `execute_tool` span and returns what it returns (a promise
   * stays a promise). Throws `GuardrailError` instead of calling `fn` when a guardrail is crossed.
   */
  tool<Args, Result>(name: string, args: Args, fn: (args: Args) => Result, options?: ToolOptions): Result {
    if (this.ended) return fn(args);
    const toolName = typeof name === 'string' && name ? keptName(name) : 'tool';
    this.check(toolName, this.settings.loopThreshold > 0 ? (callIdentity(toolName, args) ?? null) : undefined);
    this.stepCount++;
    this.closeStep();
    const attributes: Record<string, AttributeValue> = { [GEN_AI.operationName]: GEN_AI_OPERATION.executeTool, [GEN_AI.toolName]: toolName, [AGENT.stepNumber]: this.stepCount };
    const callId = options?.callId;
    if (typeof callId === 'string' && callId) attributes[GEN_AI.toolCallId] = callId.slice(0, MAX_CALL_ID);
    const span = this.scope.tracer.startSpan(`execute_tool ${toolName}`, { kind: SpanKind.INTERNAL, attributes }, this.scope.context);
    let result: Result;
    try {
      result = context.with(trace.setSpan(this.scope.context, span), fn, undefined, args);
    } catch (error) {
      errorAttributes(span, error);
      span.end();
      throw error;
    }
    if (!isThenable(result)) {
      span.end();
      return result;
    }
    return Promise.resolve(result).then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        errorAttributes(span, error);
        span.end();
        throw error;
      },
    ) as Result;
  }

  /**
   * Adds to the run's cost: `{ usd }`, or `{ model, inputTokens, outputTokens }` priced by the
   * price table (model-prices.ts; `setModelPrice` adds models). Returns the USD added (0 for a
   * model without a price). Tokens are summed into the invocation's `gen_ai.usage.*`. Never
   * throws: a budget crossed here stops the next step.
   */
  cost(usage: CostUsage): number {
    try {
      const inputTokens = finite(usage?.inputTokens);
      const outputTokens = finite(usage?.outputTokens);
      this.inputTokens += inputTokens;
      this.outputTokens += outputTokens;
      let usd = finite(usage?.usd);
      if (usage?.usd === undefined && typeof usage?.model === 'string') {
        const price = modelPrice(usage.model);
        if (price) usd = costUsd(price, inputTokens, outputTokens);
        else reportUnpriced(usage.model);
      }
      this.spentUsd += usd;
      this.scope.activity.costAdded(this.scope.stats, usd);
      return usd;
    } catch (error) {
      reportError('agent cost', error);
      return 0;
    }
  }

  /**
   * Enforces the guardrails for the step about to run; `call` is the tool call's identity (null:
   * not comparable; undefined: not a tool call, or loop detection off).
   */
  private check(tool: string | undefined, call: string | null | undefined): void {
    if (this.stopped) throw this.stopped;
    const { maxSteps, costBudgetUsd, loopThreshold } = this.scope.settings;
    if (maxSteps > 0 && this.stepCount >= maxSteps) this.trip('max_steps', maxSteps, this.stepCount + 1, tool);
    if (costBudgetUsd > 0 && this.spentUsd > costBudgetUsd) this.trip('cost_budget', costBudgetUsd, this.spentUsd, tool);
    if (call === undefined || tool === undefined) return;
    if (call !== null && call === this.lastCall) this.repeats++;
    else {
      this.lastCall = call ?? undefined;
      this.repeats = call === null ? 0 : 1;
    }
    if (this.repeats >= loopThreshold) this.trip('loop', loopThreshold, this.repeats, tool);
  }

  private trip(guardrail: Guardrail, limit: number, observed: number, tool: string | undefined): never {
    const error = new GuardrailError({ guardrail, agent: this.agent, limit, observed, invocationId: this.invocationId, tool });
    this.stopped = error;
    try {
      this.closeStep();
      this.record(error);
    } catch (failure) {
      reportError('recording a guardrail trip', failure);
    }
    throw error;
  }

  /** The trip on the spans, in the activity and as the event: svc's part, which never throws. */
  private record(error: GuardrailError): void {
    const { span, tracer, activity, stats, operationSpan, emit } = this.scope;
    const attributes: Record<string, AttributeValue> = {
      [AGENT.guardrailName]: error.guardrail,
      [AGENT.guardrailLimit]: error.limit,
      [AGENT.guardrailObserved]: error.observed,
    };
    span.setAttributes(attributes);
    span.setAttribute(ERROR_TYPE, error.name);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    const verdict: Record<string, AttributeValue> = {
      ...attributes,
      [GEN_AI.operationName]: GEN_AI_OPERATION.runGuardrail,
      [GEN_AI_GUARDRAIL.componentName]: 'svc',
      [GEN_AI_GUARDRAIL.targetType]: 'input',
      [GEN_AI_GUARDRAIL.targetSubtype]: error.tool === undefined ? 'action' : 'tool_call',
      [GEN_AI_GUARDRAIL.verdictType]: 'deny',
      [GEN_AI_GUARDRAIL.actionType]: 'block',
      [GEN_AI_GUARDRAIL.policyId]: error.guardrail,
      [GEN_AI_GUARDRAIL.verdictReason]: REASONS[error.guardrail],
      [AGENT.stepNumber]: this.stepCount + 1,
    };
    if (error.tool !== undefined) verdict[GEN_AI.toolName] = error.tool;
    tracer.startSpan(GUARDRAIL_SPAN, { kind: SpanKind.INTERNAL, attributes: verdict }, this.scope.context).end();
    activity.tripped(stats, { agent: error.agent, guardrail: error.guardrail, limit: error.limit, observed: error.observed, invocationId: error.invocationId, tool: error.tool }, operationSpan);
    const body: Record<string, string | number> = {
      agent: keptName(error.agent),
      guardrail: error.guardrail,
      limit: error.limit,
      observed: error.observed,
      invocation_id: error.invocationId,
      step: this.stepCount + 1,
      message: error.message.slice(0, 1024),
    };
    if (error.tool !== undefined) body.tool = error.tool;
    const traceId = span.spanContext().traceId;
    if (span.isRecording()) body.trace_id = traceId;
    context.with(this.scope.context, () => emit(GUARDRAIL_EVENT, 'WARN', body));
  }

  private closeStep(): void {
    if (this.stepSpan) {
      this.stepSpan.end();
      this.stepSpan = undefined;
    }
  }

  /** Ends the run: its last step span, its summary attributes, its span, its statistics. */
  end(error: unknown, failed: boolean): void {
    if (this.ended) return;
    this.ended = true;
    try {
      const { span } = this.scope;
      this.closeStep();
      span.setAttribute(AGENT.steps, this.stepCount);
      if (this.inputTokens > 0 || this.outputTokens > 0) {
        span.setAttribute(GEN_AI.usageInputTokens, Math.round(this.inputTokens));
        span.setAttribute(GEN_AI.usageOutputTokens, Math.round(this.outputTokens));
      }
      if (this.spentUsd > 0) span.setAttribute(AGENT.costUsd, this.spentUsd);
      // A guardrail error of this run already marked the span when it tripped.
      if (failed && error !== this.stopped) errorAttributes(span, error);
      span.end();
      this.scope.activity.invocationEnded(this.scope.stats, this.stepCount, failed);
    } catch (failure) {
      reportError('ending an agent invocation', failure);
    }
  }
}

/** `gen_ai.guardrail.verdict.reason`: low-cardinality, no user content. */
const REASONS: Readonly<Record<Guardrail, string>> = {
  max_steps: 'max steps reached',
  loop: 'same tool call repeated',
  cost_budget: 'cost budget exceeded',
};
