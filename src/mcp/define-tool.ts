/**
 * defineTool: the one way a tool is defined, the built-in ones and the app's own
 * (`registerTool` in the API builds on it). A definition names the tool, the permission it needs,
 * whether it only reads or may destroy, and its parameters, made with the shared helpers of
 * src/mcp/tool-params.ts; its handler gets the arguments already checked and parsed (an operation
 * name in its canonical spelling, a page as a number). Everything is checked once, when the tool
 * is defined: its name, its permission, each parameter's bounds.
 *
 * At call time the defined handler checks the agent's raw arguments in this order: unknown names,
 * non-string values, length, accepted values, then missing required ones (blank counts as
 * missing), then each parameter's own parsing in declaration order. Every refusal is an
 * AgentError naming the argument, what was wrong and what is accepted.
 *
 * @example
 * const getQueueDepth = defineTool({
 *   name: 'get_queue_depth',
 *   description: 'Jobs waiting in a queue',
 *   readOnly: true,
 *   params: { queue: text('Queue name, e.g. "emails"', { required: true }), format: format() },
 *   handler: ({ queue, format }) => (format === 'json' ? { text: `${depth(queue)}`, structured: { depth: depth(queue) } } : `${depth(queue)} jobs`),
 * });
 */
import { PERMISSIONS, type Permission } from '../shared/enums.js';
import { printable } from '../shared/printable.js';
import { INPUT_LIMITS, tooLong } from './input-limits.js';
import { type ParameterDefinition, type ToolContext, type ToolDefinition, ToolError, type ToolResult } from './tool-definition.js';

/** A parameter of a defined tool: what tools/list shows, whether it is required, and how the handler gets its value. */
export interface ToolParam<T> extends ParameterDefinition {
  readonly required: boolean;
  /** The handler's value from the checked string (`undefined` when not sent); throws an AgentError naming what is accepted. */
  readonly parse: (value: string | undefined, context: ToolContext) => T;
  /** What leaving it out means (`text` for format), named when a value is refused. */
  readonly omitted?: string;
  /** What to add to the message when a required argument is missing (e.g. the known operations). */
  readonly whenMissing?: (context: ToolContext) => string | undefined;
}

export type ToolParams = Readonly<Record<string, ToolParam<unknown>>>;

/** The handler's arguments: each parameter's parsed value. */
export type ArgumentsOf<P extends ToolParams> = { readonly [K in keyof P]: P[K] extends ToolParam<infer T> ? T : never };

export interface ToolSpec<P extends ToolParams> {
  /** 1-64 letters, digits, `_` or `-`. */
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** The permission a caller's role must grant; default READ. */
  readonly permission?: Permission;
  /** The tool only reads (MCP `readOnlyHint`); default false. */
  readonly readOnly?: boolean;
  /** The tool may change state in ways that are hard to undo (MCP `destructiveHint`); default: not readOnly. */
  readonly destructive?: boolean;
  readonly params?: P;
  /** A string answer is the result's text. */
  handler(args: ArgumentsOf<P>, context: ToolContext): ToolResult | string | Promise<ToolResult | string>;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Why a tool cannot be defined this way, if it cannot: bad name, unknown permission, a parameter out of bounds. */
export function definitionProblem(tool: Pick<ToolDefinition, 'name' | 'permission' | 'parameters' | 'required'>): string | undefined {
  if (!TOOL_NAME.test(tool.name)) return `tool name "${printable(tool.name, 80)}": use 1-64 letters, digits, "_" or "-"`;
  if (!PERMISSIONS.includes(tool.permission)) return `tool ${tool.name}: permission "${printable(String(tool.permission), 40)}" is not one of ${PERMISSIONS.join(', ')}`;
  for (const [name, parameter] of Object.entries(tool.parameters)) {
    if (parameter.type !== 'string') return `tool ${tool.name}: parameter ${name} has type "${printable(String(parameter.type), 40)}"; every tool argument is a string`;
    const max = parameter.maxLength;
    if (max !== undefined && !(Number.isInteger(max) && max >= 1 && max <= INPUT_LIMITS.argument))
      return `tool ${tool.name}: parameter ${name} has maxLength ${max}; use an integer from 1 to ${INPUT_LIMITS.argument}`;
    if (parameter.enum !== undefined && !(Array.isArray(parameter.enum) && parameter.enum.length > 0 && parameter.enum.every((v) => typeof v === 'string')))
      return `tool ${tool.name}: parameter ${name} has an enum that is not a list of strings`;
  }
  for (const name of tool.required) if (!Object.hasOwn(tool.parameters, name)) return `tool ${tool.name}: required parameter ${name} is not among its parameters`;
  return undefined;
}

/**
 * Defines a tool; throws when the definition cannot be served (see definitionProblem).
 * The returned definition is frozen and can be registered with any ToolRegistry.
 */
export function defineTool<P extends ToolParams = Record<never, never>>(spec: ToolSpec<P>): ToolDefinition {
  const params: ToolParams = spec.params ?? {};
  const parameters: Record<string, ParameterDefinition> = {};
  for (const [name, p] of Object.entries(params)) {
    parameters[name] = Object.freeze({ type: p.type, description: p.description, ...(p.enum && { enum: Object.freeze([...p.enum]) }), ...(p.maxLength !== undefined && { maxLength: p.maxLength }) });
  }
  const readOnly = spec.readOnly ?? false;
  const tool: Omit<ToolDefinition, 'handler'> = {
    name: spec.name,
    ...(spec.title !== undefined && { title: spec.title }),
    description: spec.description,
    permission: spec.permission ?? 'READ',
    parameters: Object.freeze(parameters),
    required: Object.freeze(Object.entries(params).flatMap(([name, p]) => (p.required ? [name] : []))),
    annotations: Object.freeze({ readOnlyHint: readOnly, destructiveHint: spec.destructive ?? !readOnly }),
  };
  const problem = definitionProblem(tool);
  if (problem) throw new Error(problem);
  const entries = Object.entries(params);
  return Object.freeze({
    ...tool,
    async handler(rawArgs: Readonly<Record<string, unknown>> | undefined, context: ToolContext): Promise<ToolResult> {
      const checked = checkArguments(tool, rawArgs, params, context);
      const args: Record<string, unknown> = {};
      for (const [name, p] of entries) args[name] = p.parse(checked[name], context);
      const result = await spec.handler(args as ArgumentsOf<P>, context);
      return typeof result === 'string' ? { text: result } : result;
    },
  });
}

/**
 * The raw arguments as strings, checked against the parameters; throws ToolError. Names are
 * looked up as own properties only, so `constructor` or `__proto__` are unknown arguments, not
 * inherited ones.
 */
function checkArguments(tool: Pick<ToolDefinition, 'name'>, args: Readonly<Record<string, unknown>> | undefined, params: ToolParams, context: ToolContext): Record<string, string> {
  const checked: Record<string, string> = Object.create(null) as Record<string, string>;
  const accepted = Object.keys(params);
  for (const [name, value] of Object.entries(args ?? {})) {
    const parameter = Object.hasOwn(params, name) ? params[name] : undefined;
    if (!parameter) throw new ToolError(`unknown argument "${printable(name, 64)}" for ${tool.name}; accepted: ${accepted.length ? accepted.join(', ') : 'no arguments'}`);
    if (typeof value !== 'string')
      throw new ToolError(`argument "${name}" of ${tool.name} must be a string (every tool argument is); got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
    const tooLongMessage = tooLong(`argument "${name}" of ${tool.name}`, value, parameter.maxLength ?? INPUT_LIMITS.argument);
    if (tooLongMessage) throw new ToolError(tooLongMessage);
    if (parameter.enum && !parameter.enum.includes(value)) {
      const omit = parameter.omitted === undefined ? '' : ` (omit it for ${parameter.omitted})`;
      throw new ToolError(`argument "${name}" of ${tool.name} must be one of ${parameter.enum.join(', ')}; got "${printable(value, 64)}"${omit}`);
    }
    checked[name] = value;
  }
  const missing = accepted.filter((name) => params[name]!.required && !checked[name]?.trim());
  if (missing.length) {
    const described = missing.map((name) => `${name} (${params[name]!.description})`).join('; ');
    const hints = missing.flatMap((name) => params[name]!.whenMissing?.(context) ?? []);
    throw new ToolError(`missing required argument${missing.length > 1 ? 's' : ''} for ${tool.name}: ${described}${hints.length ? `; ${hints.join('; ')}` : ''}`);
  }
  return checked;
}
