/**
 * Reading records back from a store: a record is checked field by field and refused whole when a
 * field is missing or of the wrong kind (a file edited by hand, a record of another version).
 * Strings are cut to the bound the field has in memory.
 */

export type Fields = Readonly<Record<string, unknown>>;

export class BadRecord extends Error {}

export function fields(value: unknown): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadRecord('not an object');
  return value as Fields;
}

export function text(record: Fields, name: string, max = 4096): string {
  const value = record[name];
  if (typeof value !== 'string') throw new BadRecord(`${name} is not a string`);
  return value.length > max ? value.slice(0, max) : value;
}

export function optionalText(record: Fields, name: string, max = 4096): string | undefined {
  return record[name] === undefined || record[name] === null ? undefined : text(record, name, max);
}

export function finite(record: Fields, name: string): number {
  const value = record[name];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new BadRecord(`${name} is not a number`);
  return value;
}

export function optionalFinite(record: Fields, name: string): number | undefined {
  return record[name] === undefined || record[name] === null ? undefined : finite(record, name);
}

export function list(record: Fields, name: string, max = 10_000): unknown[] {
  const value = record[name];
  if (!Array.isArray(value)) throw new BadRecord(`${name} is not a list`);
  return value.slice(0, max);
}

export function oneOf<T extends string>(record: Fields, name: string, allowed: readonly T[]): T {
  const value = record[name];
  if (!allowed.includes(value as T)) throw new BadRecord(`${name} is not one of ${allowed.join(', ')}`);
  return value as T;
}

/** The records that read back, in order; the others are counted in `skipped`. */
export function readAll<T>(values: readonly unknown[], read: (value: unknown) => T): { read: T[]; skipped: number } {
  const out: T[] = [];
  let skipped = 0;
  for (const value of values) {
    try {
      out.push(read(value));
    } catch {
      skipped++;
    }
  }
  return { read: out, skipped };
}

/** A whole number of at least 0 (a count), or throws. */
export function countOf(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new BadRecord(`${name} is not a count`);
  return value;
}

/** A finite number of at least 0, or throws. */
export function amountOf(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new BadRecord(`${name} is not a non-negative number`);
  return value;
}
