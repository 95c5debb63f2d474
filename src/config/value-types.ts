/**
 * The value types a configuration key can have. Each type parses a raw value (a YAML scalar or
 * list, or the string of an env var or `-D` property) and either returns the typed value or
 * throws a ValueError whose message says what is wrong.
 */
import { printableValue } from './printable.js';

export class ValueError extends Error {
  /** What is wrong, without the value: `is not an integer`, for messages that must not echo it. */
  readonly reason: string;

  constructor(raw: unknown, reason: string) {
    super(`${printableValue(raw)} ${reason}`);
    this.reason = reason;
  }
}

export interface ValueType<T = unknown> {
  /** Short description of what is accepted, used in error messages and `svc check`. */
  readonly accepts: string;
  parse(raw: unknown): T;
}

export const booleanType: ValueType<boolean> = {
  accepts: 'true or false',
  parse(raw) {
    if (typeof raw === 'boolean') return raw;
    if (typeof raw === 'string') {
      const lower = raw.trim().toLowerCase();
      if (lower === 'true') return true;
      if (lower === 'false') return false;
    }
    throw new ValueError(raw, 'is not a boolean');
  },
};

function toNumber(raw: unknown): number {
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'string' && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw);
  return Number.NaN;
}

export function integerType(min: number, max: number = Number.MAX_SAFE_INTEGER): ValueType<number> {
  const accepts = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
  return {
    accepts,
    parse(raw) {
      const n = toNumber(raw);
      if (!Number.isInteger(n)) throw new ValueError(raw, 'is not an integer');
      if (n < min || n > max) throw new ValueError(n, 'is out of range');
      return n;
    },
  };
}

export function numberType(min: number, max: number, accepts?: string): ValueType<number> {
  return {
    accepts: accepts ?? `a number from ${min} to ${max}`,
    parse(raw) {
      const n = toNumber(raw);
      if (Number.isNaN(n)) throw new ValueError(raw, 'is not a number');
      if (n < min || n > max) throw new ValueError(n, 'is out of range');
      return n;
    },
  };
}

/** A fraction 0.0 to 1.0; `allowUnset` also accepts -1, which means "unset" (rule 9). */
export function fractionType(allowUnset = false): ValueType<number> {
  const inner = numberType(0, 1);
  return {
    accepts: allowUnset ? 'a fraction from 0.0 to 1.0, or -1 for unset' : 'a fraction from 0.0 to 1.0',
    parse(raw) {
      if (allowUnset && toNumber(raw) === -1) return -1;
      return inner.parse(raw);
    },
  };
}

export const stringType: ValueType<string> = {
  accepts: 'a string',
  parse(raw) {
    if (typeof raw === 'string') return raw;
    if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
    throw new ValueError(raw, 'is not a string');
  },
};

const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)\s*$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** Parses `250ms`, `1.5s`, `2m` to milliseconds (rule 10). */
export function parseDurationMs(text: string): number {
  const match = DURATION.exec(text);
  if (!match) throw new ValueError(text, 'is not a duration');
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

export const durationType: ValueType<number> = {
  accepts: 'a duration with suffix ms, s or m (for example 250ms, 1.5s, 2m)',
  parse(raw) {
    if (typeof raw !== 'string') throw new ValueError(raw, 'has no unit');
    return parseDurationMs(raw);
  },
};

/** A duration above zero: for latencies and windows that 0 would make meaningless. */
export const positiveDurationType: ValueType<number> = {
  accepts: 'a duration above 0 with suffix ms, s or m (for example 250ms, 1.5s, 2m)',
  parse(raw) {
    const ms = durationType.parse(raw);
    if (ms <= 0) throw new ValueError(raw, 'is not above 0');
    return ms;
  },
};

const LONG_DURATION = /^\s*(\d+(?:\.\d+)?)\s*(m|h|d)\s*$/;
const LONG_UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A time window with suffix m, h or d (for example 30d), in milliseconds. */
export const windowType: ValueType<number> = {
  accepts: 'a time window with suffix m, h or d (for example 90m, 6h, 30d)',
  parse(raw) {
    const match = typeof raw === 'string' ? LONG_DURATION.exec(raw) : null;
    if (!match || Number(match[1]) <= 0) throw new ValueError(raw, 'is not a time window');
    return Number(match[1]) * LONG_UNIT_MS[match[2]!]!;
  },
};

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
    parse(raw) {
      const found = typeof raw === 'string' ? lookup.get(raw.trim().toLowerCase()) : undefined;
      if (found === undefined) throw new ValueError(raw, 'is not an accepted value');
      return found;
    },
  };
}

/** A list of choices, given as a YAML list or a comma-separated string. */
export function enumListType<T extends string>(values: readonly T[]): ValueType<T[]> {
  const item = enumType(values);
  return {
    accepts: `a list of ${values.join(', ')}`,
    parse(raw) {
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',').filter((s) => s.trim()) : null;
      if (items === null) throw new ValueError(raw, 'is not a list');
      return [...new Set(items.map((i) => item.parse(i)))];
    },
  };
}

/** A list of non-empty strings, given as a YAML list or a comma-separated string. */
export const stringListType: ValueType<string[]> = {
  accepts: 'a list of names (YAML list or comma-separated)',
  parse(raw) {
    const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : null;
    if (items === null || !items.every((i) => typeof i === 'string' || typeof i === 'number')) throw new ValueError(raw, 'is not a list of names');
    return [...new Set(items.map((i) => String(i).trim()).filter(Boolean))];
  },
};

export const sha256Type: ValueType<string> = {
  accepts: 'a SHA-256 hex digest (64 hex characters)',
  parse(raw) {
    if (typeof raw === 'string' && /^[0-9a-f]{64}$/i.test(raw.trim())) return raw.trim().toLowerCase();
    throw new ValueError(raw, 'is not a SHA-256 hex digest');
  },
};
