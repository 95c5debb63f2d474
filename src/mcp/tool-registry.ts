/**
 * The tools the server offers: the built-ins and the app's custom tools, all made with defineTool
 * (src/mcp/define-tool.ts). A duplicate name is refused at registration; listeners hear about
 * every change (the server then tells agents that the tool list changed).
 */
import type { Permission } from '../shared/enums.js';
import { defineTool, definitionProblem, type ToolParam, type ToolParams } from './define-tool.js';
import type { ToolContext, ToolDefinition, ToolResult } from './tool-definition.js';
import { text } from './tool-params.js';

/**
 * The definition a custom tool is registered with (spec "Custom tools"): string parameters
 * described in the spec's shape. `registerTool(definition, handler)` turns it into a defineTool
 * definition; an app may also build one with defineTool and register that.
 */
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

/**
 * A custom tool as defineTool defines it: its parameters become string parameters, and its
 * handler's result is shown as text (a string as is, an object as JSON, also given as
 * structuredContent). Throws when the definition cannot be served.
 */
export function customTool(definition: CustomToolDefinition, handler: CustomToolHandler): ToolDefinition {
  const required = new Set(definition.required ?? []);
  const params: Record<string, ToolParam<string | undefined>> = {};
  for (const [name, p] of Object.entries(definition.parameters ?? {})) {
    params[name] = {
      ...text(p.description, { required: required.has(name), ...(p.maxLength !== undefined && { maxLength: p.maxLength }) }),
      type: p.type as 'string',
      ...(p.enum && { enum: p.enum }),
    };
  }
  const unknownRequired = [...required].find((name) => !Object.hasOwn(params, name));
  if (unknownRequired !== undefined) throw new Error(`tool ${definition.name}: required parameter ${unknownRequired} is not among its parameters`);
  return defineTool({
    name: definition.name,
    description: definition.description,
    ...(definition.permission !== undefined && { permission: definition.permission }),
    readOnly: definition.readOnly ?? false,
    params: params as ToolParams,
    async handler(args, context): Promise<ToolResult> {
      const given: Record<string, string> = {};
      for (const [name, value] of Object.entries(args)) if (typeof value === 'string') given[name] = value;
      const result = await handler(given, context);
      if (typeof result === 'string') return { text: result };
      return result !== null && typeof result === 'object' ? { text: JSON.stringify(result, null, 2), structured: result as Record<string, unknown> } : { text: String(result) };
    },
  });
}

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly listeners = new Set<() => void>();

  /** Registers a tool made with defineTool; throws on a duplicate name or a definition that cannot be served. */
  register(tool: ToolDefinition): void {
    const problem = definitionProblem(tool);
    if (problem) throw new Error(problem);
    if (this.tools.has(tool.name)) throw new Error(`a tool named "${tool.name}" is already registered`);
    this.tools.set(tool.name, tool);
    for (const listener of this.listeners) listener();
  }

  /** Registers an app's tool given in the spec's shape (see customTool). */
  registerCustom(definition: CustomToolDefinition, handler: CustomToolHandler): void {
    this.register(customTool(definition, handler));
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
