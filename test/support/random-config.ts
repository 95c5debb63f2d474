/**
 * Random configuration for the config fuzz test: `-D` arguments, `SVC_*` variables and svc.yml
 * text with keys from the schema (and some that are not), values at and past every bound,
 * overlong, unicode and control-character text, huge and negative list indexes, broken and
 * hostile YAML. Values under mcp.tokens are unique markers, so the test can tell whether one
 * was printed.
 */
import { stringify } from 'yaml';
import { envName, isScalarKey, isSecretPath, type KeySpec, SCHEMA } from '../../src/config/schema.js';

export interface ConfigCase {
  readonly args: string[];
  readonly env: Record<string, string>;
  /** svc.yml text, or undefined for no file. */
  readonly file: string | undefined;
  /** Values given under mcp.tokens: none may appear in any output. */
  readonly secrets: string[];
}

type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function chance(random: Random, p: number): boolean {
  return random() < p;
}

const NAMES = ['GET /orders/{id}', 'bot', 'api.v1.2', 'two words', '', 'naïve-日本', '🚀', '\u001b[31mred', '\u202eevil', 'n'.repeat(1025), ']', '[', '"', 'a=b', 'x\r\ny'];
const INDEXES = ['0', '1', '4', '199', '200', '1000', '1000000000', '99999999999999999999999', '-1', '1.5', 'abc', '', ' 3', '1e9', '007'];
const ANY_VALUES = [
  '',
  ' ',
  'true',
  'false',
  'TRUE',
  '0',
  '-1',
  '1.5',
  '-0',
  '1e308',
  '1e400',
  'NaN',
  'Infinity',
  '0x10',
  '2147483648',
  '9007199254740993',
  '9999999m',
  '0ms',
  '1.5s',
  '2m',
  '1h',
  '30d',
  '-5s',
  '10 m',
  '\u001b[2J\u001b[H',
  'a\r\nb',
  '\u202eevil',
  '\u0000',
  '日本語',
  '🚀'.repeat(300),
  'x'.repeat(1025),
  'x'.repeat(5000),
  'a,b,c',
  'READ,DIAGNOSE',
  'sync',
  'database',
  'https://runbooks.example.com/orders',
];
/** For files, which the YAML parser reads at about a microsecond a character: the fuzz stays fast. */
const SHORT_VALUES = ANY_VALUES.filter((value) => value.length <= 100);
const BROKEN = '[]{}:-?&*!|>%@`"\'\t\n# ,';
const HOSTILE = ['[', '{', '&a ', '!a ', '*a ', '- ', '? ', ': '];

/** Enumeration values out of a type's `accepts` text (`one of a, b, c`). */
function enumValues(spec: KeySpec): string[] {
  return spec.type.accepts.startsWith('one of ') ? spec.type.accepts.slice('one of '.length).split(', ') : [];
}

/** A value for a key: within its bounds, at them, just past them, or anything; `huge` allows long ones (not in files: a 1 MB file is refused whole). */
function valueFor(random: Random, spec: KeySpec, huge: boolean): string {
  const { kind, min = 0, max = 1 } = spec.type;
  if (huge && chance(random, 0.003)) return `\u001b]0;pwned\u0007${'a'.repeat(1 << 20)}`;
  if (chance(random, 0.35)) return pick(random, huge ? ANY_VALUES : SHORT_VALUES);
  switch (kind) {
    case 'integer':
      return String(pick(random, [min, max, min - 1, max + 1, Math.floor(min + random() * (max - min)), -max, max * 1000]));
    case 'number':
      return String(pick(random, [min, max, min - 0.5, max + 0.5, min + random() * (max - min), -1e300, 1e300]));
    case 'duration':
    case 'window': {
      const ms = pick(random, [min, max, max + 1, min - 1, Math.floor(min + random() * (max - min))]);
      return kind === 'window' ? `${Math.max(0, Math.round(ms / 60_000))}m` : `${ms}ms`;
    }
    case 'string':
      return pick(random, ['x'.repeat(max), 'x'.repeat(max + 1), 'ok', `é${'\u0301'.repeat(50)}`]);
    case 'enum':
      return pick(random, [...enumValues(spec), 'gold', ' STANDARD ']);
    case 'list':
      return pick(random, ['READ,DIAGNOSE', 'alice, bob', Array.from({ length: 150 }, (_, i) => `n${i}`).join(','), ',,,', 'READ,FLY']);
    case 'digest':
      return pick(random, ['c5a2bd3b0e2dfe6a5d15e10f2c4f3b1ad7b0a7e6f3d9b1c2e8f4a6d0b3c5e7f9', 'abc']);
    default:
      return pick(random, ['true', 'false', 'yes']);
  }
}

/** A concrete `-D` key for a schema path (without `svc.`), sometimes mangled. */
function propertyKey(random: Random, spec: KeySpec, mangle: boolean): string {
  const key = spec.path
    .replace(/\*/g, () => {
      const name = pick(random, NAMES);
      return pick(random, [`[${name}]`, `"[${name}]"`, name]);
    })
    .replace(/\[\]/g, () => `[${pick(random, INDEXES)}]`);
  if (mangle && chance(random, 0.1)) return pick(random, ['', 'nope.key', `${key}x`, key.slice(0, -1), `${key}.more`, `${key}[0]`, `\u001b[1m${key}`, `${key}[`, 'dependencies', 'ü.ß']);
  return key;
}

function argument(random: Random, secrets: string[]): string {
  const spec = pick(random, SCHEMA);
  // A key mangled out of mcp.tokens is no longer a token's key: its value would be an ordinary one.
  const key = propertyKey(random, spec, !isSecretPath(spec.path));
  const value = isSecretPath(spec.path) ? secret(random, secrets) : valueFor(random, spec, true);
  if (chance(random, 0.05)) return pick(random, [`-Dsvc.${key}`, '-Dsvc.', `-Dsvc.=${value}`, `-Dsvc.${key}:${value}`]);
  return `-Dsvc.${key}=${value}`;
}

function secret(random: Random, secrets: string[]): string {
  const value = `SECRET${Math.floor(random() * 1e9)}tok`;
  secrets.push(value);
  return value;
}

function environment(random: Random, secrets: string[]): [string, string] {
  const roll = random();
  if (roll < 0.05) return ['SVC_CONFIG_FILE', pick(random, ['nope.yml', '/dev/zero', 'x'.repeat(5000), '', '\u001b[2J.yml', '.'])];
  if (roll < 0.1) return ['SVC_MCP_TOKENS_BOT_SHA256', secret(random, secrets)];
  if (roll < 0.2) return [pick(random, ['SVC_', 'SVC_TOPOLGY_TEAM', 'SVC_X\u001b[2J', `SVC_${'Y'.repeat(3000)}`, 'SVC_LIMITS_MAX_OPERATIONS_']), pick(random, ANY_VALUES)];
  const spec = pick(random, SCHEMA.filter(isScalarKey));
  return [envName(spec.path), valueFor(random, spec, true)];
}

/** Sets `value` at `path` (YAML keys and list indexes) in a plain object tree. */
function place(tree: Record<string, unknown>, path: (string | number)[], value: unknown): void {
  let node: Record<string | number, unknown> = tree;
  path.forEach((step, i) => {
    if (i === path.length - 1) {
      node[step] = value;
      return;
    }
    const next = path[i + 1];
    if (typeof node[step] !== 'object' || node[step] === null) node[step] = typeof next === 'number' ? [] : {};
    node = node[step] as Record<string | number, unknown>;
  });
}

function structuredFile(random: Random, secrets: string[]): string {
  const tree: Record<string, unknown> = {};
  const count = 1 + Math.floor(random() * 12);
  for (let i = 0; i < count; i++) {
    const spec = pick(random, SCHEMA);
    const path: (string | number)[] = [];
    for (const part of spec.path.split('.')) {
      const listed = part.endsWith('[]');
      const name = listed ? part.slice(0, -2) : part;
      path.push(name === '*' ? pick(random, NAMES) : name);
      if (listed) path.push(pick(random, [0, 1, 2, 5]));
    }
    const raw = isSecretPath(spec.path) ? secret(random, secrets) : valueFor(random, spec, false);
    const typed = chance(random, 0.3) && Number.isFinite(Number(raw)) && raw.trim() !== '' ? Number(raw) : chance(random, 0.05) ? [raw, raw] : raw;
    place(tree, path, typed);
  }
  if (chance(random, 0.05)) tree.dependencies = Array.from({ length: 210 + Math.floor(random() * 100) }, (_, i) => ({ name: `d${i}`, type: 'cache', criticality: 'optional' }));
  const text = stringify(chance(random, 0.5) ? { svc: tree } : tree, { lineWidth: 0 });
  return chance(random, 0.1) ? `${text}${pick(random, ['unknown-top: 1\n', 'svc: again\n', '---\nsecond: doc\n'])}` : text;
}

/** A structured file with random damage, or (rarely) kilobytes of one hostile token. */
function brokenFile(random: Random): string {
  if (chance(random, 0.1)) return pick(random, HOSTILE).repeat(256 + Math.floor(random() * 1792));
  // Damage can turn a value into a key, which messages name: the markers here are not tracked.
  let text = structuredFile(random, []);
  const edits = 1 + Math.floor(random() * 5);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(random() * (text.length + 1));
    const roll = random();
    if (roll < 0.6) text = text.slice(0, at) + pick(random, [...BROKEN]) + text.slice(at);
    else if (roll < 0.8) text = text.slice(0, at);
    else text = `${text.slice(0, at)}\n${'  '.repeat(Math.floor(random() * 8))}${text.slice(at)}`;
  }
  return text;
}

export function randomConfigCase(random: Random): ConfigCase {
  const secrets: string[] = [];
  const args = Array.from({ length: Math.floor(random() * 5) }, () => argument(random, secrets));
  const env = Object.fromEntries(Array.from({ length: Math.floor(random() * 5) }, () => environment(random, secrets)));
  const roll = random();
  const file = roll < 0.45 ? structuredFile(random, secrets) : roll < 0.65 ? brokenFile(random) : undefined;
  return { args, env, file, secrets };
}
