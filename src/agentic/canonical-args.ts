/**
 * The identity of a tool call for loop detection: the tool's name and its arguments as canonical
 * JSON (object keys sorted, so `{ a, b }` and `{ b, a }` are the same call), hashed with SHA-256
 * unless it is at most 64 characters. Only that identity is kept per run (at most 65 characters),
 * so what a run holds does not grow with the arguments.
 *
 * Bounded: serialization stops beyond `MAX_CANONICAL_BYTES` characters of keys and values, or
 * objects nested deeper than `MAX_DEPTH` levels. Such a
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
/** Thrown (one instance, no stack captured per call) when a value exceeds the bounds. */
const TOO_LARGE = new TooLarge('arguments too large to compare');

interface State {
  /** Characters of values and keys written so far (punctuation is not counted). */
  length: number;
  /** The objects being written, outermost first: a cycle is an object already on it. */
  readonly path: object[];
}

/** Canonical JSON of `value`, or undefined when it exceeds the bounds. */
export function canonicalJson(value: unknown): string | undefined {
  try {
    return write(value, { length: 0, path: [] }, 0);
  } catch (error) {
    if (error === TOO_LARGE) return undefined;
    throw error;
  }
}

/** Identities up to this length are the name and canonical arguments themselves: shorter than a hash, and cheaper. */
export const MAX_RAW_IDENTITY = 64;

/**
 * The call's identity: `=` and the name and canonical arguments when that is at most 64
 * characters, else `#` and their base64 SHA-256; undefined when not comparable.
 */
export function callIdentity(tool: string, args: unknown): string | undefined {
  let json: string | undefined;
  try {
    json = canonicalJson(args);
  } catch {
    // An argument whose getter or toJSON throws: the call is not comparable, and the tool runs.
    return undefined;
  }
  if (json === undefined) return undefined;
  const call = `${tool}\u0000${json}`;
  return call.length <= MAX_RAW_IDENTITY ? `=${call}` : `#${hash('sha256', call, 'base64')}`;
}

function counted(text: string, state: State): string {
  state.length += text.length;
  if (state.length > MAX_CANONICAL_BYTES) throw TOO_LARGE;
  return text;
}

/** A Map key's or Set item's own canonical JSON, counted against the budget of the whole call. */
function nested(value: unknown, state: State): string {
  const json = canonicalJson(value);
  if (json === undefined) throw TOO_LARGE;
  return counted(json, state);
}

const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const compareEntries = (a: readonly [string, unknown], b: readonly [string, unknown]): number => compareKeys(a[0], b[0]);

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

function write(value: unknown, state: State, depth: number): string {
  const text = scalar(value);
  if (text !== undefined) return counted(text, state);
  if (depth > MAX_DEPTH) throw TOO_LARGE;
  const object = value as object;
  if (state.path.includes(object)) return counted('"[Circular]"', state);
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return write(toJSON.call(object), state, depth + 1);
  state.path.push(object);
  let out: string;
  if (Array.isArray(object)) {
    out = '[';
    for (let i = 0; i < object.length; i++) out += (i > 0 ? ',' : '') + write(object[i], state, depth + 1);
    out += ']';
  } else if (object instanceof Map) {
    const entries = [...object].map(([key, item]) => [nested(key, state), item] as const).sort(compareEntries);
    out = '{"[Map]":[';
    for (let i = 0; i < entries.length; i++) out += `${i > 0 ? ',' : ''}[${entries[i]![0]},${write(entries[i]![1], state, depth + 1)}]`;
    out += ']}';
  } else if (object instanceof Set) {
    out = `{"[Set]":[${[...object]
      .map((item) => nested(item, state))
      .sort(compareKeys)
      .join(',')}]}`;
  } else {
    const keys = Object.keys(object);
    // The default sort compares UTF-16 code units, as compareKeys does.
    if (keys.length > 1) keys.sort();
    out = '{';
    let first = true;
    for (const key of keys) {
      const item = (object as Record<string, unknown>)[key];
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      out += `${first ? '' : ','}${counted(JSON.stringify(key), state)}:${write(item, state, depth + 1)}`;
      first = false;
    }
    out += '}';
  }
  state.path.pop();
  return out;
}
