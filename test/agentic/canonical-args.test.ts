/** A tool call's identity for loop detection: canonical JSON (sorted keys), bounded, hashed. */
import { describe, expect, it } from 'vitest';
import { callIdentity, canonicalJson, MAX_CANONICAL_BYTES, MAX_DEPTH } from '../../src/agentic/canonical-args.js';

describe('canonical JSON', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ q: 'refund', f: { since: 2024, region: 'eu' } })).toBe(canonicalJson({ f: { region: 'eu', since: 2024 }, q: 'refund' }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it('writes what JSON cannot, without mistaking one value for another', () => {
    expect(canonicalJson({ n: 10n, d: new Date(Date.UTC(2026, 0, 2)), u: undefined, f: () => 1, inf: Number.POSITIVE_INFINITY })).toBe('{"d":"2026-01-02T00:00:00.000Z","inf":null,"n":"10n"}');
    expect(
      canonicalJson(
        new Map([
          ['b', 1],
          ['a', 2],
        ]),
      ),
    ).toBe(
      canonicalJson(
        new Map([
          ['a', 2],
          ['b', 1],
        ]),
      ),
    );
    expect(canonicalJson(new Map([['a', 1]]))).not.toBe(canonicalJson(new Map([['a', 2]])));
    expect(canonicalJson(new Set([2, 1]))).toBe(canonicalJson(new Set([1, 2])));
    expect(canonicalJson(new Set([1]))).not.toBe(canonicalJson({}));
    expect(canonicalJson('1')).not.toBe(canonicalJson(1));
  });

  it('survives cycles', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    expect(canonicalJson(a)).toBe('{"name":"a","self":"[Circular]"}');
    // A repeated (not cyclic) object is written twice.
    const shared = { x: 1 };
    expect(canonicalJson({ p: shared, q: shared })).toBe('{"p":{"x":1},"q":{"x":1}}');
  });

  it('gives up beyond its size and depth bounds, so such calls are never compared', () => {
    expect(canonicalJson({ s: 'x'.repeat(MAX_CANONICAL_BYTES) })).toBeUndefined();
    expect(canonicalJson({ s: 'x'.repeat(MAX_CANONICAL_BYTES - 100) })).toBeDefined();
    let deep: unknown = 1;
    for (let i = 0; i <= MAX_DEPTH + 1; i++) deep = [deep];
    expect(canonicalJson(deep)).toBeUndefined();
    expect(callIdentity('t', { s: 'x'.repeat(MAX_CANONICAL_BYTES) })).toBeUndefined();
    expect(canonicalJson(new Set(Array.from({ length: 20_000 }, (_, i) => `item-${i}`)))).toBeUndefined();
  });
});

describe('call identity', () => {
  it('is the same for the same tool and reordered arguments, different otherwise, and short', () => {
    const id = callIdentity('search', { q: 'a', page: 2 });
    expect(id).toBe(callIdentity('search', { page: 2, q: 'a' }));
    expect(id).toBe('=search\u0000{"page":2,"q":"a"}');
    expect(id).not.toBe(callIdentity('lookup', { page: 2, q: 'a' }));
    expect(id).not.toBe(callIdentity('search', { page: 3, q: 'a' }));
    const long = { query: 'x'.repeat(200), filters: { region: 'eu', since: 2024 } };
    const hashed = callIdentity('search', long);
    expect(hashed).toMatch(/^#[A-Za-z0-9+/]{43}=$/);
    expect(hashed).toBe(callIdentity('search', { filters: { since: 2024, region: 'eu' }, query: 'x'.repeat(200) }));
    expect(hashed).not.toBe(callIdentity('search', { ...long, query: `${'x'.repeat(199)}y` }));
    // The separator keeps name and arguments apart.
    expect(callIdentity('a', 'b')).not.toBe(callIdentity('a"', 'b'));
  });

  it('is undefined (not comparable), never a throw, for arguments whose toJSON throws', () => {
    expect(
      callIdentity('t', {
        toJSON: () => {
          throw new Error('no');
        },
      }),
    ).toBeUndefined();
  });
});
