/**
 * Checks a JSON-RPC request's params before the MCP SDK sees them. The SDK answers params that
 * fail its schema with -32603 (internal error) and a dump of the schema; a malformed request is
 * the caller's error, -32602 (invalid params), told in one line.
 */
import { printable } from '../printable.js';

export const INVALID_PARAMS = -32602;

function kind(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What is wrong with a request's params, or undefined. */
export function malformedParams(message: unknown): string | undefined {
  if (!isObject(message) || typeof message.method !== 'string') return undefined;
  const { method, params } = message;
  if (params === undefined) return method === 'tools/call' ? 'tools/call: params with the tool name are required' : undefined;
  if (!isObject(params)) return `${printable(method, 64)}: params must be an object; got ${kind(params)}`;
  if (params._meta !== undefined && !isObject(params._meta)) return `${printable(method, 64)}: params._meta must be an object; got ${kind(params._meta)}`;
  if (method !== 'tools/call') return undefined;
  if (typeof params.name !== 'string') return `tools/call: params.name must be the tool's name as a string; got ${kind(params.name)}`;
  if (params.arguments !== undefined && !isObject(params.arguments)) return `tools/call: params.arguments must be an object of string values; got ${kind(params.arguments)}`;
  return undefined;
}

/** The id of a request, for the error answering it. */
export function requestId(message: unknown): string | number | null {
  const id = isObject(message) ? message.id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
