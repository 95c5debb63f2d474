/**
 * Readable ids that no other process produces: `<prefix>-<tag>-<n>`, where the tag is 5 random
 * Crockford base32 characters drawn once per process (33.5 million values) and `n` counts up
 * from 0001. Two runs, or two replicas, of a service hand out different ids, so an agent holding
 * an id from before a restart gets "unknown" instead of acting on something else.
 */
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** 5 random characters of Crockford's base32 (lower case, without i, l, o, u). */
export function randomTag(): string {
  let tag = '';
  for (const byte of randomBytes(5)) tag += ALPHABET[byte & 31];
  return tag;
}

/** This process's tag, shared by every id sequence in it. */
export const PROCESS_TAG = randomTag();

export class IdSequence {
  private count = 0;

  constructor(
    private readonly prefix: string,
    private readonly tag: string = PROCESS_TAG,
  ) {}

  /** The next id; `infix` (for example the day of an incident) goes before the tag. */
  next(infix?: string): string {
    const n = (++this.count).toString().padStart(4, '0');
    return infix ? `${this.prefix}-${infix}-${this.tag}-${n}` : `${this.prefix}-${this.tag}-${n}`;
  }
}
