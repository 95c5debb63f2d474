/**
 * Concrete configuration keys (`operations.[GET /orders/{id}].retryable`, `dependencies[0].name`)
 * and their match against the schema's key paths (`operations.*.retryable`, `dependencies[].name`).
 */

import { printableValue } from '../shared/printable.js';
import { didYouMean } from './did-you-mean.js';
import { type KeySpec, SCHEMA } from './schema.js';

/** One step of a concrete key: a literal or user-chosen name, or a list index. */
export type Segment = string | number;

interface SchemaNode {
  literal: Map<string, SchemaNode>;
  wildcard?: SchemaNode;
  list?: SchemaNode;
  spec?: KeySpec;
}

function newNode(): SchemaNode {
  return { literal: new Map() };
}

function buildTree(): SchemaNode {
  const root = newNode();
  for (const spec of SCHEMA) {
    let node = root;
    for (const part of spec.path.split('.')) {
      const listed = part.endsWith('[]');
      const name = listed ? part.slice(0, -2) : part;
      if (name === '*') node = node.wildcard ??= newNode();
      else {
        let next = node.literal.get(name);
        if (!next) node.literal.set(name, (next = newNode()));
        node = next;
      }
      if (listed) node = node.list ??= newNode();
    }
    node.spec = spec;
  }
  return root;
}

const ROOT = buildTree();

export class UnknownKeyError extends Error {}

/** Where a step of a YAML walk or a property key lands in the schema. */
export class SchemaCursor {
  private constructor(private readonly node: SchemaNode) {}

  static root(): SchemaCursor {
    return new SchemaCursor(ROOT);
  }

  get spec(): KeySpec | undefined {
    return this.node.spec;
  }

  get isList(): boolean {
    return this.node.list !== undefined;
  }

  get isNamed(): boolean {
    return this.node.wildcard !== undefined;
  }

  /** Steps into a map key; throws UnknownKeyError with a suggestion when the key is not known. */
  child(key: string): SchemaCursor {
    const literal = this.node.literal.get(key);
    if (literal) return new SchemaCursor(literal);
    if (this.node.wildcard) return new SchemaCursor(this.node.wildcard);
    const known = [...this.node.literal.keys()];
    if (this.node.list) throw new UnknownKeyError(`${printableValue(key)} is not a list index; write a whole number from 0, as in [0]`);
    const suggestion = didYouMean(key, known);
    const hint = suggestion ? `did you mean "${suggestion}"?` : known.length ? `known here: ${known.join(', ')}` : '';
    throw new UnknownKeyError(`unknown key ${printableValue(key)}${hint ? `; ${hint}` : ''}`);
  }

  item(): SchemaCursor {
    if (!this.node.list) throw new UnknownKeyError('a list is not accepted here');
    return new SchemaCursor(this.node.list);
  }
}

/** Finds the schema entry of a concrete key, or throws UnknownKeyError. */
export function specOf(segments: readonly Segment[]): KeySpec {
  let cursor = SchemaCursor.root();
  for (const segment of segments) cursor = typeof segment === 'number' ? cursor.item() : cursor.child(segment);
  if (!cursor.spec) throw new UnknownKeyError('incomplete key: it names a section, not a value');
  return cursor.spec;
}

/** `['operations', 'GET /a', 'retryable']` -> `operations.[GET /a].retryable`. */
export function formatKey(segments: readonly Segment[]): string {
  let node: SchemaNode | undefined = ROOT;
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') {
      out += `[${segment}]`;
      node = node?.list;
      continue;
    }
    const literal = node?.literal.get(segment);
    if (!literal && node?.list) {
      out += `[${segment}]`; // not an index, but shown where one belongs: dependencies[-1]
      node = undefined;
      continue;
    }
    out += (out ? '.' : '') + (literal || !/[.\s/[\]]/.test(segment) ? segment : `[${segment}]`);
    node = literal ?? node?.wildcard;
  }
  return out;
}

/**
 * Parses the key of a `-D` property (without the `svc.` prefix). Names with dots, spaces or slashes
 * are written in brackets, optionally quoted: `operations.[GET /orders/{id}].retryable` or
 * `operations."[GET /orders/{id}]".retryable`. List items: `dependencies[0].name`.
 */
export function parsePropertyKey(key: string): Segment[] {
  const segments: Segment[] = [];
  let i = 0;
  while (i < key.length) {
    let ch = key[i]!;
    if (ch === '.') {
      i++;
      continue;
    }
    const quoted = ch === '"';
    if (quoted) ch = key[++i] ?? '';
    if (ch === '[') {
      const close = key.indexOf(']', i);
      if (close < 0) throw new UnknownKeyError(`unclosed "[" in ${printableValue(key)}`);
      const inner = key.slice(i + 1, close);
      segments.push(/^\d+$/.test(inner) && segments.length > 0 && !quoted ? Number(inner) : inner);
      i = close + 1;
      if (quoted && key[i] === '"') i++;
      continue;
    }
    let end = i;
    while (end < key.length && key[end] !== '.' && key[end] !== '[') end++;
    segments.push(key.slice(i, end));
    i = end;
  }
  return segments;
}
