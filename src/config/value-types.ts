/**
 * The value types a configuration key can have. Each type parses a raw value (a YAML scalar or
 * list, or the string of an env var or `-D` property) and either returns the typed value or
 * throws a ValueError whose message says what is wrong. Every type is bounded: numbers and
 * durations have a range, strings a length, lists an item count (docs/configuration.md says why
 * each key's bound is what it is).
 */
import { printableValue } from '../shared/printable.js';
import { parseStoreUrl, redactedStoreUrl } from '../store/store-url.js';
import { yaml } from './yaml.js';

export class ValueError extends Error {
  /** What is wrong, without the value: `is not an integer`, for messages that must not echo it. */
  readonly reason: string;

  constructor(raw: unknown, reason: string) {
    super(`${printableValue(raw)} ${reason}`);
    this.reason = reason;
  }
}

export type ValueKind = 'boolean' | 'integer' | 'number' | 'duration' | 'window' | 'string' | 'enum' | 'list' | 'digest';

export interface ValueType<T = unknown> {
  /** Short description of what is accepted, with the range, used in error messages and `svc check`. */
  readonly accepts: string;
  readonly kind: ValueKind;
  /** Smallest accepted value (numbers; durations and windows in ms). */
  readonly min?: number;
  /** Largest accepted value (numbers; durations and windows in ms), length (strings) or item count (lists). */
  readonly max?: number;
  parse(raw: unknown): T;
  /**
   * The value written as the file accepts it (`30s`, `15m`, `30d`, `[READ, DIAGNOSE]`, a string
   * quoted when YAML needs it): `parse` of its YAML reading gives the value back (`svc check`).
   */
  format(value: T): string;
}

/** `1e-7` -> `0.0000001`: the shortest digits that read back as `n`, without an exponent (duration syntax has none). */
export function plainDecimal(n: number): string {
  const text = String(n);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, whole, fraction = '', exponentText] = match as unknown as [string, string, string, string | undefined, string];
  const digits = whole + fraction;
  const point = whole.length + Number(exponentText);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Characters that make a plain YAML scalar mean something else (a flow collection, a comment, an alias, a quote). */
const YAML_SPECIAL = /[:#{}[\],&*!|>'"%@`]|^[\s?-]|\s$/;
/** A string as a YAML scalar: plain when YAML reads it back as the same string, else double-quoted. */
export function yamlString(text: string): string {
  if (text === '' || YAML_SPECIAL.test(text) || text.includes('\n')) return JSON.stringify(text);
  try {
    // A number, a boolean, null, ~ read as something else than the string.
    return yaml().parse(text) === text ? text : JSON.stringify(text);
  } catch {
    return JSON.stringify(text);
  }
}

export const booleanType: ValueType<boolean> = {
  accepts: 'true or false',
  kind: 'boolean',
  parse(raw) {
    if (typeof raw === 'boolean') return raw;
    if (typeof raw === 'string') {
      const lower = raw.trim().toLowerCase();
      if (lower === 'true') return true;
      if (lower === 'false') return false;
    }
    throw new ValueError(raw, 'is not a boolean');
  },
  format: String,
};

function toNumber(raw: unknown): number {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'string' && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw);
  return Number.NaN;
}

export function integerType(min: number, max: number): ValueType<number> {
  return {
    accepts: `an integer from ${min} to ${max}`,
    kind: 'integer',
    min,
    max,
    parse(raw) {
      const n = toNumber(raw);
      if (!Number.isInteger(n)) throw new ValueError(raw, 'is not an integer');
      if (n < min || n > max) throw new ValueError(n, 'is out of range');
      return n;
    },
    format: plainDecimal,
  };
}

/** A finite number from `min` (or above it, when `aboveMin`) to `max`. */
export function numberType(min: number, max: number, aboveMin = false): ValueType<number> {
  return {
    accepts: aboveMin ? `a number above ${min} and at most ${max}` : `a number from ${min} to ${max}`,
    kind: 'number',
    min,
    max,
    parse(raw) {
      const n = toNumber(raw);
      if (Number.isNaN(n)) throw new ValueError(raw, 'is not a number');
      if (n < min || (aboveMin && n === min) || n > max) throw new ValueError(n, 'is out of range');
      return n;
    },
    format: plainDecimal,
  };
}

/** A fraction 0.0 to 1.0; `allowUnset` also accepts -1, which means "unset" (rule 9). */
export function fractionType(allowUnset = false): ValueType<number> {
  const inner = numberType(0, 1);
  return {
    accepts: allowUnset ? 'a fraction from 0.0 to 1.0, or -1 for unset' : 'a fraction from 0.0 to 1.0',
    kind: 'number',
    min: allowUnset ? -1 : 0,
    max: 1,
    parse(raw) {
      if (allowUnset && toNumber(raw) === -1) return -1;
      return inner.parse(raw);
    },
    format: plainDecimal,
  };
}

/** A fraction strictly between 0 and 1: an SLO target (0 allows every request to fail, 1 allows none, so no budget exists). */
export function openFractionType(): ValueType<number> {
  return {
    accepts: 'a fraction above 0.0 and below 1.0',
    kind: 'number',
    min: 0,
    max: 1,
    parse(raw) {
      const n = toNumber(raw);
      if (Number.isNaN(n)) throw new ValueError(raw, 'is not a number');
      if (!(n > 0 && n < 1)) throw new ValueError(n, 'is out of range');
      return n;
    },
    format: plainDecimal,
  };
}

/** Free text: names, descriptions, versions. */
export const TEXT_CHARS = 1024;

/** A string of at most `maxLength` characters; longer ones are refused, never cut. */
export function textType(maxLength: number, options: { nonEmpty?: boolean } = {}): ValueType<string> {
  return {
    accepts: options.nonEmpty ? `a non-empty string of at most ${maxLength} characters` : `a string of at most ${maxLength} characters`,
    kind: 'string',
    max: maxLength,
    parse(raw) {
      const text = typeof raw === 'string' ? raw : typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : undefined;
      if (text === undefined) throw new ValueError(raw, 'is not a string');
      if (text.length > maxLength) throw new ValueError(raw, `is longer than ${maxLength} characters`);
      if (options.nonEmpty && text.trim() === '') throw new ValueError(raw, 'is empty');
      return text;
    },
    format: yamlString,
  };
}

export const stringType = textType(TEXT_CHARS);
/** URLs get twice the free-text length: long query strings and paths are common in runbook links. */
export const urlType = textType(2048);

/** `svc.store.url`: a value it refuses is echoed with any password hidden. */
export const storeUrlType: ValueType<string> = {
  accepts: 'a string of at most 2048 characters',
  kind: 'string',
  max: 2048,
  parse(raw) {
    if (typeof raw !== 'string') throw new ValueError(raw, 'is not a string');
    if (raw.length > 2048) throw new ValueError(redactedStoreUrl(raw), 'is longer than 2048 characters');
    try {
      parseStoreUrl(raw);
    } catch (error) {
      throw new ValueError(redactedStoreUrl(raw), (error as Error).message);
    }
    return raw.trim();
  },
  format: (value) => yamlString(redactedStoreUrl(value)),
};

const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)\s*$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** Parses `250ms`, `1.5s`, `2m` to milliseconds (rule 10). */
export function parseDurationMs(text: string): number {
  const match = DURATION.exec(text);
  if (!match) throw new ValueError(text, 'is not a duration');
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

/** `600000` -> `10m`, `30000` -> `30s`, `1500` -> `1500ms`: in the largest unit that divides it. */
export function formatDuration(ms: number): string {
  if (ms > 0 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms > 0 && ms % 1000 === 0) return `${ms / 1000}s`;
  return `${plainDecimal(ms)}ms`;
}

/**
 * A duration with suffix ms, s or m, at most `max` (written as a user would, `10m`). `min` is
 * the smallest accepted (default `0ms`); `positive` refuses 0 where 0 would make the key
 * meaningless (a latency, a window).
 */
export function durationType(max: string, options: { min?: string; positive?: boolean } = {}): ValueType<number> {
  const maxMs = parseDurationMs(max);
  const minMs = options.min ? parseDurationMs(options.min) : 0;
  const range = options.positive ? `above 0 and at most ${formatDuration(maxMs)}` : `from ${formatDuration(minMs)} to ${formatDuration(maxMs)}`;
  return {
    accepts: `a duration ${range} with suffix ms, s or m (for example 250ms, 1.5s, 2m)`,
    kind: 'duration',
    min: minMs,
    max: maxMs,
    parse(raw) {
      if (typeof raw !== 'string') throw new ValueError(raw, 'has no unit');
      const ms = parseDurationMs(raw);
      if (options.positive && ms <= 0) throw new ValueError(raw, 'is not above 0');
      if (ms < minMs || ms > maxMs) throw new ValueError(raw, 'is out of range');
      return ms;
    },
    format: formatDuration,
  };
}

const LONG_DURATION = /^\s*(\d+(?:\.\d+)?)\s*(m|h|d)\s*$/;
const LONG_UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A time window with suffix m, h or d (for example 30d), in milliseconds, from `min` to `max` (both with such a suffix). */
export function windowType(min: string, max: string): ValueType<number> {
  const toMs = (text: string): number | undefined => {
    const match = LONG_DURATION.exec(text);
    return match ? Number(match[1]) * LONG_UNIT_MS[match[2]!]! : undefined;
  };
  const minMs = toMs(min)!;
  const maxMs = toMs(max)!;
  return {
    accepts: `a time window from ${min} to ${max} with suffix m, h or d (for example 90m, 6h, 30d)`,
    kind: 'window',
    min: minMs,
    max: maxMs,
    parse(raw) {
      const ms = typeof raw === 'string' ? toMs(raw) : undefined;
      if (ms === undefined) throw new ValueError(raw, 'is not a time window');
      if (ms < minMs || ms > maxMs) throw new ValueError(raw, 'is out of range');
      return ms;
    },
    format(ms) {
      // The largest unit that divides it; else the one whose decimal reads back exactly.
      for (const unit of ['d', 'h', 'm'] as const) if (ms % LONG_UNIT_MS[unit]! === 0) return `${ms / LONG_UNIT_MS[unit]!}${unit}`;
      for (const unit of ['m', 'h', 'd'] as const) {
        const text = `${plainDecimal(ms / LONG_UNIT_MS[unit]!)}${unit}`;
        if (toMs(text) === ms) return text;
      }
      return `${plainDecimal(ms / LONG_UNIT_MS.m!)}m`;
    },
  };
}

/**
 * A case-insensitive choice. `aliases` maps extra accepted spellings to a canonical value
 * (for example `sync` to `synchronous`).
 */
export function enumType<T extends string>(values: readonly T[], aliases: Record<string, T> = {}): ValueType<T> {
  const lookup = new Map<string, T>();
  for (const v of values) lookup.set(v.toLowerCase(), v);
  for (const [alias, v] of Object.entries(aliases)) lookup.set(alias.toLowerCase(), v);
  const accepted = [...values, ...Object.keys(aliases)].join(', ');
  return {
    accepts: `one of ${accepted}`,
    kind: 'enum',
    parse(raw) {
      const found = typeof raw === 'string' ? lookup.get(raw.trim().toLowerCase()) : undefined;
      if (found === undefined) throw new ValueError(raw, 'is not an accepted value');
      return found;
    },
    format: String,
  };
}

function listItems(raw: unknown, split: (text: string) => string[]): unknown[] | undefined {
  return Array.isArray(raw) ? raw : typeof raw === 'string' ? split(raw) : undefined;
}

/** A list of choices, given as a YAML list or a comma-separated string. */
export function enumListType<T extends string>(values: readonly T[]): ValueType<T[]> {
  const item = enumType(values);
  return {
    accepts: `a list of ${values.join(', ')}`,
    kind: 'list',
    max: values.length,
    parse(raw) {
      const items = listItems(raw, (text) => text.split(',').filter((s) => s.trim()));
      if (items === undefined) throw new ValueError(raw, 'is not a list');
      return [...new Set(items.map((i) => item.parse(i)))];
    },
    format: (values) => `[${values.join(', ')}]`,
  };
}

/** A list of at most `maxItems` non-empty names of at most TEXT_CHARS each, given as a YAML list or a comma-separated string. */
export function stringListType(maxItems: number): ValueType<string[]> {
  return {
    accepts: `a list of at most ${maxItems} names of at most ${TEXT_CHARS} characters (YAML list or comma-separated)`,
    kind: 'list',
    max: maxItems,
    parse(raw) {
      const items = listItems(raw, (text) => text.split(','));
      if (items === undefined || !items.every((i) => typeof i === 'string' || typeof i === 'number')) throw new ValueError(raw, 'is not a list of names');
      const names = [...new Set(items.map((i) => String(i).trim()).filter(Boolean))];
      if (names.length > maxItems) throw new ValueError(raw, `has ${names.length} names, more than ${maxItems}`);
      const long = names.find((name) => name.length > TEXT_CHARS);
      if (long !== undefined) throw new ValueError(raw, `has a name longer than ${TEXT_CHARS} characters`);
      return names;
    },
    format: (names) => `[${names.map(yamlString).join(', ')}]`,
  };
}

export const sha256Type: ValueType<string> = {
  accepts: 'a SHA-256 hex digest (64 hex characters)',
  kind: 'digest',
  max: 64,
  parse(raw) {
    if (typeof raw === 'string' && /^[0-9a-f]{64}$/i.test(raw.trim())) return raw.trim().toLowerCase();
    throw new ValueError(raw, 'is not a SHA-256 hex digest');
  },
  format: String,
};
