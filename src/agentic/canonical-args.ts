/**
 * The identity of a tool call for loop detection: the tool's name and its arguments as canonical
 * JSON (object keys sorted, so `{ a, b }` and `{ b, a }` are the same call), hashed with SHA-256.
 * Only the hash is kept per run, so what a run holds does not grow with the arguments.
 *
 * Bounded: serialization stops at `MAX_CANONICAL_BYTES` characters or `MAX_DEPTH` levels. Such a
 * call is "not comparable": it never counts as a repeat (a loop is never claimed on the strength of
 * a prefix), and it ends the current streak.
 *
 * Beyond JSON: a Map is its entries sorted by key, a Set its values sorted, a bigint `"123n"`, a
 * Date its ISO string (toJSON), a cycle `"[Circular]"`; functions, symbols and undefined are left
 * out of objects as JSON.stringify does. Keys compare by code unit.
 */
import { hash } from 'node:crypto';

export const MAX_CANONICAL_BYTES = 64 * 1024;
export const MAX_DEPTH = 32;

class TooLarge extends Error {}

/** Canonical JSON of `value`, or undefined when it exceeds the bounds. */
export function canonicalJson(value: unknown): string | undefined {
  const out: string[] = [];
  const state = { length: 0 };
  try {
    write(value, out, state, new Set(), 0);
  } catch (error) {
    if (error instanceof TooLarge) return undefined;
    throw error;
  }
  return out.join('');
}

/** The call's identity (base64 SHA-256 of name and canonical arguments), or undefined when not comparable. */
export function callIdentity(tool: string, args: unknown): string | undefined {
  let json: string | undefined;
  try {
    json = canonicalJson(args);
  } catch {
    // An argument whose getter or toJSON throws: the call is not comparable, and the tool runs.
    return undefined;
  }
  return json === undefined ? undefined : hash('sha256', `${tool}\u0000${json}`, 'base64');
}

function push(text: string, out: string[], state: { length: number }): void {
  state.length += text.length;
  if (state.length > MAX_CANONICAL_BYTES) throw new TooLarge();
  out.push(text);
}

/** A Map key's or Set item's own canonical JSON, counted against the budget of the whole call. */
function nested(value: unknown, state: { length: number }): string {
  const json = canonicalJson(value);
  if (json === undefined) throw new TooLarge();
  state.length += json.length;
  if (state.length > MAX_CANONICAL_BYTES) throw new TooLarge();
  return json;
}

const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The JSON of a value that is not an object (or null), else undefined. */
function scalar(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return `"${value}n"`;
    case 'undefined':
    case 'function':
    case 'symbol':
      return 'null';
    default:
      return value === null ? 'null' : undefined;
  }
}

function write(value: unknown, out: string[], state: { length: number }, ancestors: Set<object>, depth: number): void {
  if (depth > MAX_DEPTH) throw new TooLarge();
  const text = scalar(value);
  if (text !== undefined) {
    push(text, out, state);
    return;
  }
  const object = value as object;
  if (ancestors.has(object)) {
    push('"[Circular]"', out, state);
    return;
  }
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    write(toJSON.call(object), out, state, ancestors, depth + 1);
    return;
  }
  ancestors.add(object);
  if (Array.isArray(object)) {
    push('[', out, state);
    object.forEach((item, i) => {
      if (i > 0) push(',', out, state);
      write(item, out, state, ancestors, depth + 1);
    });
    push(']', out, state);
  } else if (object instanceof Map) {
    const entries = [...object.entries()].map(([k, v]) => [nested(k, state), v] as const).sort((a, b) => compareKeys(a[0], b[0]));
    push('{"[Map]":[', out, state);
    entries.forEach(([key, item], i) => {
      push(`${i > 0 ? ',' : ''}[${key},`, out, state);
      write(item, out, state, ancestors, depth + 1);
      push(']', out, state);
    });
    push(']}', out, state);
  } else if (object instanceof Set) {
    const items = [...object].map((item) => nested(item, state)).sort(compareKeys);
    push(`{"[Set]":[${items.join(',')}]}`, out, state);
  } else {
    push('{', out, state);
    let first = true;
    for (const key of Object.keys(object).sort(compareKeys)) {
      const item = (object as Record<string, unknown>)[key];
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      push(`${first ? '' : ','}${JSON.stringify(key)}:`, out, state);
      first = false;
      write(item, out, state, ancestors, depth + 1);
    }
    push('}', out, state);
  }
  ancestors.delete(object);
}
