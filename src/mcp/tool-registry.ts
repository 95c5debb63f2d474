/**
 * The tools the server offers: the built-ins and the app's custom tools. A duplicate name is
 * refused at registration; listeners hear about every change (the server then sends
 * `notifications/tools/list_changed`). `checkArguments` enforces the parameter definitions at
 * call time.
 */
import { PERMISSIONS, type Permission } from '../enums.js';
import { printable } from '../printable.js';
import { INPUT_LIMITS, tooLong } from './input-limits.js';
import { type ParameterDefinition, type ToolContext, type ToolDefinition, ToolError, type ToolResult } from './tool-definition.js';

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The definition a custom tool is registered with (spec "Custom tools"). */
export interface CustomToolDefinition {
  readonly name: string;
  readonly description: string;
  /** Parameter name -> definition; every type is 'string'. */
  readonly parameters?: Readonly<Record<string, { readonly type: string; readonly description: string; readonly enum?: readonly string[]; readonly maxLength?: number }>>;
  readonly required?: readonly string[];
  /** Permission needed to call it; default READ. */
  readonly permission?: Permission;
  /** Whether the tool only reads (default false: it may act). */
  readonly readOnly?: boolean;
}

export type CustomToolHandler = (args: Readonly<Record<string, string>>, context: ToolContext) => unknown;

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly listeners = new Set<() => void>();

  register(tool: ToolDefinition): void {
    if (!TOOL_NAME.test(tool.name)) throw new Error(`tool name "${tool.name}": use 1-64 letters, digits, "_" or "-"`);
    if (this.tools.has(tool.name)) throw new Error(`a tool named "${tool.name}" is already registered`);
    if (!PERMISSIONS.includes(tool.permission)) throw new Error(`tool ${tool.name}: permission "${tool.permission}" is not one of ${PERMISSIONS.join(', ')}`);
    for (const [name, parameter] of Object.entries(tool.parameters)) {
      if (parameter.type !== 'string') throw new Error(`tool ${tool.name}: parameter ${name} has type "${parameter.type}"; every tool argument is a string`);
      const max = parameter.maxLength;
      if (max !== undefined && !(Number.isInteger(max) && max >= 1 && max <= INPUT_LIMITS.argument))
        throw new Error(`tool ${tool.name}: parameter ${name} has maxLength ${max}; use an integer from 1 to ${INPUT_LIMITS.argument}`);
    }
    for (const name of tool.required) if (!(name in tool.parameters)) throw new Error(`tool ${tool.name}: required parameter ${name} is not among its parameters`);
    this.tools.set(tool.name, tool);
    for (const listener of this.listeners) listener();
  }

  /** Registers an app's tool; its handler's result is shown as text (JSON for objects). */
  registerCustom(definition: CustomToolDefinition, handler: CustomToolHandler): void {
    this.register({
      name: definition.name,
      description: definition.description,
      permission: definition.permission ?? 'READ',
      parameters: (definition.parameters ?? {}) as Record<string, ParameterDefinition>,
      required: definition.required ?? [],
      annotations: { readOnlyHint: definition.readOnly ?? false, destructiveHint: !(definition.readOnly ?? false) },
      async handler(args, context): Promise<ToolResult> {
        const result = await handler(args, context);
        if (typeof result === 'string') return { text: result };
        return result !== null && typeof result === 'object' ? { text: JSON.stringify(result, null, 2), structured: result as Record<string, unknown> } : { text: String(result) };
      },
    });
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  list(): ToolDefinition[] {
    return [...this.tools.values()];
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * Checks call arguments against the tool's parameters; returns them as strings or throws
 * ToolError. Names are looked up as own properties only, so `constructor` or `__proto__` are
 * unknown arguments, not inherited ones.
 */
export function checkArguments(tool: ToolDefinition, args: Readonly<Record<string, unknown>> | undefined): Record<string, string> {
  const checked: Record<string, string> = Object.create(null) as Record<string, string>;
  const accepted = Object.keys(tool.parameters);
  for (const [name, value] of Object.entries(args ?? {})) {
    const parameter = Object.hasOwn(tool.parameters, name) ? tool.parameters[name] : undefined;
    if (!parameter) throw new ToolError(`unknown argument "${printable(name, 64)}" for ${tool.name}; accepted: ${accepted.length ? accepted.join(', ') : 'no arguments'}`);
    if (typeof value !== 'string')
      throw new ToolError(`argument "${name}" of ${tool.name} must be a string (every tool argument is); got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
    const tooLongMessage = tooLong(`argument "${name}" of ${tool.name}`, value, parameter.maxLength ?? INPUT_LIMITS.argument);
    if (tooLongMessage) throw new ToolError(tooLongMessage);
    if (parameter.enum && !parameter.enum.includes(value)) throw new ToolError(`argument "${name}" of ${tool.name} must be one of ${parameter.enum.join(', ')}; got "${printable(value, 64)}"`);
    checked[name] = value;
  }
  const missing = tool.required.filter((name) => checked[name] === undefined || checked[name] === '');
  if (missing.length) {
    const described = missing.map((name) => `${name} (${tool.parameters[name]!.description})`).join('; ');
    throw new ToolError(`missing required argument${missing.length > 1 ? 's' : ''} for ${tool.name}: ${described}`);
  }
  return checked;
}
