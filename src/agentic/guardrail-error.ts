/**
 * The error a guardrail throws into the agent's code at the step that crosses its limit, before
 * that step runs. It is meant to reach the app: the agent stops, the request that ran it decides
 * what to answer. Every later step of the same run throws it again.
 *
 * `instanceof GuardrailError` holds across copies of the package (the preload's and the app's):
 * the check is by a global brand, not by class identity.
 *
 * @example
 * try {
 *   return await support.invoke(runAgent, question);
 * } catch (error) {
 *   if (error instanceof GuardrailError) return { status: 429, body: `agent stopped: ${error.guardrail}` };
 *   throw error;
 * }
 */
export type Guardrail = 'max_steps' | 'loop' | 'cost_budget';

const BRAND = Symbol.for('svc.GuardrailError');

export interface GuardrailErrorDetails {
  readonly guardrail: Guardrail;
  /** The agent's name. */
  readonly agent: string;
  /** The limit in force: max steps, loop threshold, or budget in USD. */
  readonly limit: number;
  /** What was observed: the step number refused, identical calls in a row, or USD spent. */
  readonly observed: number;
  /** The invocation stopped: its invoke_agent span's id (16 hex digits). */
  readonly invocationId: string;
  /** The tool whose call was refused, for a tool step. */
  readonly tool?: string | undefined;
}

export class GuardrailError extends Error {
  readonly guardrail: Guardrail;
  readonly agent: string;
  readonly limit: number;
  readonly observed: number;
  readonly invocationId: string;
  readonly tool: string | undefined;

  constructor(details: GuardrailErrorDetails) {
    super(describe(details));
    this.name = 'GuardrailError';
    this.guardrail = details.guardrail;
    this.agent = details.agent;
    this.limit = details.limit;
    this.observed = details.observed;
    this.invocationId = details.invocationId;
    this.tool = details.tool;
    Object.defineProperty(this, BRAND, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }
}

function usd(value: number): string {
  return `$${value.toFixed(4)}`;
}

function describe(d: GuardrailErrorDetails): string {
  const who = `agent "${d.agent}"`;
  switch (d.guardrail) {
    case 'max_steps':
      return `${who} stopped before step ${d.observed}: max steps ${d.limit} reached (guardrail max_steps)`;
    case 'loop':
      return `${who} stopped: tool "${d.tool ?? '?'}" called ${d.observed} times in a row with the same arguments (guardrail loop, threshold ${d.limit})`;
    case 'cost_budget':
      return `${who} stopped: cost ${usd(d.observed)} exceeds the budget of ${usd(d.limit)} (guardrail cost_budget)`;
  }
}
