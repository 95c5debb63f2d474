/**
 * What a tool is once defined (src/mcp/define-tool.ts): name, description, the permission it
 * needs, its string parameters as tools/list shows them, MCP annotations, and a handler that
 * takes the agent's raw arguments, checks them and runs the tool. The 15 built-in tools and the
 * app's custom tools share this shape; the tool server lists them, checks permission at call
 * time and runs the handler.
 */

import type { Actor } from '../incidents/actor.js';
import { AgentError } from '../shared/agent-error.js';
import type { Permission } from '../shared/enums.js';
import type { ToolServices } from './tool-services.js';

/** A parameter as tools/list shows it. Every tool argument is a string (spec). */
export interface ParameterDefinition {
  readonly type: 'string';
  readonly description: string;
  /** Accepted values, checked before the handler runs (for example `text`, `json`). */
  readonly enum?: readonly string[];
  /** Longest accepted value in characters; default INPUT_LIMITS.argument. */
  readonly maxLength?: number;
}

/** The credential of callers without a token (loopback binds only): one shared pool. */
export const ANONYMOUS_CREDENTIAL = 'anonymous loopback';

/** The caller as the tool server established it: credential, then headers or `_meta` that may lower the role. */
export type CallerIdentity = Actor;

export interface ToolContext {
  readonly caller: CallerIdentity;
  readonly services: ToolServices;
}

export interface ToolResult {
  /** Human-readable text, the tool's answer. */
  readonly text: string;
  /** A JSON structure, for tools with `format=json`. */
  readonly structured?: Record<string, unknown>;
  /** The call failed in a way the agent can fix (missing approval, bad value, ...). */
  readonly isError?: boolean;
}

export interface ToolDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly permission: Permission;
  readonly parameters: Readonly<Record<string, ParameterDefinition>>;
  readonly required: readonly string[];
  readonly annotations: { readonly readOnlyHint: boolean; readonly destructiveHint: boolean };
  /**
   * Checks the agent's raw arguments against the parameters (an AgentError names what is wrong
   * and what is accepted), then runs the tool.
   */
  handler(args: Readonly<Record<string, unknown>> | undefined, context: ToolContext): Promise<ToolResult>;
}

/** An argument or a tool's own refusal the agent can act on; the server turns it into an `isError` result. */
export class ToolError extends AgentError {
  override readonly name: string = 'ToolError';
}

export function textResult(text: string, structured?: Record<string, unknown>): ToolResult {
  return structured ? { text, structured } : { text };
}
