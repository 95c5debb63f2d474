/**
 * Checks a JSON-RPC request's params before the MCP SDK sees them. The SDK answers params that
 * fail its schema with -32603 (internal error) and a dump of the schema; a malformed request is
 * the caller's error, -32602 (invalid params), told in one line.
 */
import { printable } from '../shared/printable.js';

export const INVALID_PARAMS = -32602;
export const INVALID_REQUEST = -32600;

/**
 * How deep objects and arrays may nest in a request. MCP's messages nest a few levels; the SDK's
 * schemas check a message recursively, and a few thousand levels (12 KB of JSON) overflow the
 * stack there.
 */
export const MAX_NESTING = 64;

/**
 * The largest request the server keeps for as long as what it opens: a 2025 client's `initialize`
 * (its session) and a 2026-07-28 `subscriptions/listen` (its stream). Clients send a few hundred
 * bytes of name and capabilities; the body limit (svc.mcp.max-body-bytes) is for tool arguments.
 */
export const MAX_KEPT_REQUEST_BYTES = 4 * 1024;

/** The requests whose message the server keeps beyond their answer (MAX_KEPT_REQUEST_BYTES). */
export const KEPT_REQUESTS: ReadonlySet<string> = new Set(['initialize', 'subscriptions/listen']);

/** Whether objects and arrays in `value` nest deeper than `limit`; iterative, so any depth is measured safely. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return false;
}

/** What a JSON value is, for a message naming what was sent: null, an array, object, string... */
export function jsonKind(value: unknown): string {
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
  if (!isObject(params)) return `${printable(method, 64)}: params must be an object; got ${jsonKind(params)}`;
  if (params._meta !== undefined && !isObject(params._meta)) return `${printable(method, 64)}: params._meta must be an object; got ${jsonKind(params._meta)}`;
  if (method !== 'tools/call') return undefined;
  if (typeof params.name !== 'string') return `tools/call: params.name must be the tool's name as a string; got ${jsonKind(params.name)}`;
  if (params.arguments !== undefined && !isObject(params.arguments)) return `tools/call: params.arguments must be an object of string values; got ${jsonKind(params.arguments)}`;
  return undefined;
}

/** The id of a request, for the error answering it. */
export function requestId(message: unknown): string | number | null {
  const id = isObject(message) ? message.id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
