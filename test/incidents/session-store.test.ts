/** SessionStore: bounded in entries per session, in sessions and in bytes, evicting the oldest. */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { SessionFullError, SessionStore } from '../../src/incidents/session-store.js';
import { recordBytes } from '../../src/shared/memory-size.js';

const entry = (content: string) => ({ type: 'OBSERVATION' as const, agentName: 'bot', role: 'diagnostician', content });

describe('SessionStore', () => {
  it('evicts the oldest sessions to stay within its bytes, counting them, and keeps the one written to', () => {
    const maxBytes = 64 * 1024;
    const store = new SessionStore(new FakeClock(), { maxSessions: 100, maxPerCredential: 10, maxEntries: 500, maxBytes });
    const first = store.create('INC-1', 'bot', 'token:bot');
    const second = store.create('INC-2', 'bot', 'token:bot');
    const content = 'x'.repeat(4000);
    for (let i = 0; i < 6; i++) store.add(first.id, entry(content));
    for (let i = 0; i < 6; i++) store.add(second.id, entry(content));
    expect(store.get(first.id)).toBeUndefined();
    expect(store.get(second.id)!.entries).toHaveLength(6);
    expect(store.evicted).toBe(1);
    expect(store.heldBytes).toBeLessThanOrEqual(maxBytes);
    expect(store.heldBytes).toBe(recordBytes(second.id, 'INC-2', 'bot', 'token:bot') + 6 * recordBytes('OBSERVATION', 'bot', 'diagnostician', content));
    // One session alone cannot outgrow the bound: the entry that does not fit is refused.
    expect(() => {
      for (let i = 0; i < 20; i++) store.add(second.id, entry(content));
    }).toThrow(SessionFullError);
    expect(store.heldBytes).toBeLessThanOrEqual(maxBytes);
  });

  it("evicts the oldest session beyond the count and refuses entries beyond a session's cap", () => {
    const store = new SessionStore(new FakeClock(), { maxSessions: 2, maxPerCredential: 10, maxEntries: 2, maxBytes: 1 << 20 });
    const [a, b, c] = ['INC-1', 'INC-2', 'INC-3'].map((incident) => store.create(incident, 'bot', 'token:bot'));
    expect(store.list().map((s) => s.id)).toEqual([b!.id, c!.id]);
    expect(store.get(a!.id)).toBeUndefined();
    expect(store.evicted).toBe(1);
    store.add(c!.id, entry('one'));
    store.add(c!.id, entry('two'));
    expect(() => store.add(c!.id, entry('three'))).toThrow(/maximum of 2 entries/);
  });

  it('keeps a credential to its own share: creating sessions evicts only its own oldest', () => {
    const store = new SessionStore(new FakeClock(), { maxSessions: 100, maxPerCredential: 3, maxEntries: 10, maxBytes: 1 << 20 });
    const others = ['token:a', 'token:b'].map((credential) => store.create('INC-1', credential, credential));
    const flood = Array.from({ length: 50 }, () => store.create('INC-1', 'mallory', 'token:mallory'));
    expect(store.list().map((s) => s.id)).toEqual([...others.map((s) => s.id), ...flood.slice(-3).map((s) => s.id)]);
    expect(store.evicted).toBe(47);
  });

  it('refuses an entry that cannot fit even alone, without evicting the other sessions', () => {
    const store = new SessionStore(new FakeClock(), { maxSessions: 100, maxPerCredential: 10, maxEntries: 500, maxBytes: 64 * 1024 });
    const kept = store.create('INC-1', 'a', 'token:a');
    store.add(kept.id, entry('small'));
    const big = store.create('INC-2', 'b', 'token:b');
    for (let i = 0; i < 7; i++) store.add(big.id, entry('x'.repeat(4000)));
    expect(() => store.add(big.id, entry('x'.repeat(4000)))).toThrow(SessionFullError);
    expect(store.get(kept.id)!.entries).toHaveLength(1);
    expect(store.evicted).toBe(0);
  });

  it("keeps whether a session's incident is svc's or external across a restart; a record without the source is svc's", () => {
    const written: { key: string; value: unknown }[] = [];
    const store = new SessionStore(new FakeClock());
    store.attachStore({ put: (_collection, key, value) => written.push({ key, value: value() }), delete: () => undefined });
    const external = store.create('PD-4711', 'bot', 'token:bot', 'external');
    const own = store.create('INC-20261122-abcde-0001', 'bot', 'token:bot');
    const restored = new SessionStore(new FakeClock());
    const legacy = { ...(written[1]!.value as object), id: 'SES-legacy' } as Record<string, unknown>;
    delete legacy.incidentSource;
    expect(restored.restore([...written, { key: 'SES-legacy', value: legacy }])).toBe(0);
    expect(restored.get(external.id)).toMatchObject({ incidentId: 'PD-4711', incidentSource: 'external' });
    expect(restored.get(own.id)).toMatchObject({ incidentSource: 'svc' });
    expect(restored.get('SES-legacy')).toMatchObject({ incidentSource: 'svc' });
  });
});
