/**
 * What a tool is: name, description, the permission it needs, string-typed parameters, MCP
 * annotations and a handler. The 15 built-in tools and custom tools share this shape; the tool
 * server lists them, checks permission and arguments at call time, and runs the handler.
 */
import type { Permission } from '../enums.js';
import type { Actor } from '../incidents/actor.js';
import { INPUT_LIMITS } from './input-limits.js';
import type { ToolServices } from './tool-services.js';

export interface ParameterDefinition {
  /** Every tool argument is a string (spec); other types are refused at registration. */
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
  handler(args: Readonly<Record<string, string>>, context: ToolContext): ToolResult | Promise<ToolResult>;
}

/** A tool error the agent can act on; the server turns it into an `isError` result. */
export class ToolError extends Error {}

/** Annotations of a tool that only reads. */
export const READ_ONLY = Object.freeze({ readOnlyHint: true, destructiveHint: false });

/** The `operation_name` parameter most tools take. */
export const OPERATION_NAME: ParameterDefinition = Object.freeze({
  type: 'string',
  description: 'Operation name as shown by get_service_health, e.g. "GET /orders/{id}"',
  maxLength: INPUT_LIMITS.operationName,
});

/** The `format` parameter of the tools that can answer in JSON. */
export const FORMAT: ParameterDefinition = Object.freeze({ type: 'string', description: '`text` (default) or `json` for a structured result', enum: Object.freeze(['text', 'json']) });

export function textResult(text: string, structured?: Record<string, unknown>): ToolResult {
  return structured ? { text, structured } : { text };
}
