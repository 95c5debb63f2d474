/**
 * The fleet's merge rules (docs/state.md, Fleet), with two replicas in this process on a real
 * redis-server, each on its own fake clock: two replicas that detect a fault at the same moment
 * end with one incident (the claim in Redis decides), each noting both replicas; resolution on
 * one is resolution on all and frees the operation for the next incident; entries added to one
 * session on two replicas at once are both kept; audit entries carry the replica that ran them.
 */
import { describe, expect, it, vi } from 'vitest';
import { attachState } from '../../src/wiring/state-persistence.js';
import { engineHarness } from '../support/engine-harness.js';
import { failingFor, traffic } from '../support/sustained-traffic.js';
import { redisForTests } from './redis-for-tests.js';

const redis = redisForTests();
const { available } = redis;

async function replica(id: string, namespace: string) {
  // Each replica's parts from fresh modules: its own process tag in the ids, as in its own process.
  vi.resetModules();
  const { IncidentTracker } = await import('../../src/incidents/incident-tracker.js');
  const { SessionStore } = await import('../../src/incidents/session-store.js');
  const { AuditTrail } = await import('../../src/incidents/audit-trail.js');
  const h = engineHarness({ staticBaselines: new Map([['GET /a', { latencyP50Ms: 20, latencyP99Ms: 25, errorRate: 0.01 }]]) });
  const incidents = new IncidentTracker(h.engine, { tierOf: () => 'standard', resolveAfterMs: 120_000 });
  const sessions = new SessionStore(h.clock);
  const audit = new AuditTrail(h.clock);
  const state = await redis.openFleetState(id, namespace);
  attachState(state, { incidents, sessions, audit });
  await state.fleetSync.subscribed;
  h.clock.advance(120_000);
  traffic(h, '/a', { perSecond: 2, seconds: 50 });
  return { h, incidents, sessions, audit, store: state.store };
}

describe.skipIf(!available)('two replicas in one process on a real redis-server', () => {
  it('a fault detected on both at once is one incident, noting both replicas; its resolution on one resolves it on both', async () => {
    const a = await replica('replica-a', 'svc-one');
    const b = await replica('replica-b', 'svc-one');
    // Both open their own incident before either claim is answered: Redis orders the claims.
    failingFor(a.h, '/a');
    failingFor(b.h, '/a');
    const localA = a.incidents.openIncident('GET /a')!.id;
    const localB = b.incidents.openIncident('GET /a')!.id;
    expect(localA).not.toBe(localB);
    await expect.poll(() => a.incidents.openIncident('GET /a')?.id === b.incidents.openIncident('GET /a')?.id, { timeout: 3000 }).toBe(true);
    const id = a.incidents.openIncident('GET /a')!.id;
    expect([localA, localB]).toContain(id);
    // The joining replica's own id still finds the fleet's incident.
    expect(a.incidents.byId(localA)?.id).toBe(id);
    expect(b.incidents.byId(localB)?.id).toBe(id);
    for (const r of [a, b]) await expect.poll(() => [...(r.incidents.openIncident('GET /a')?.replicas ?? [])].sort(), { timeout: 3000 }).toEqual(['replica-a', 'replica-b']);
    const claim = await a.store.run((client) => client.get(a.store.key('incident:GET /a')));
    expect(claim).toBe(id);

    // Past the quiet gap and the five-minute health window, A resolves it: B's copy resolves too, and the claim is freed.
    a.h.clock.advance(6 * 60_000);
    expect(a.incidents.openIncidents()).toEqual([]);
    await expect.poll(() => b.incidents.byId(id)?.status, { timeout: 3000 }).toBe('resolved');
    await expect.poll(() => a.store.run((client) => client.get(a.store.key('incident:GET /a'))), { timeout: 3000 }).toBeNull();
    // The next fault, on B (its clock where A's is), is the next incident.
    b.h.clock.advance(6 * 60_000);
    failingFor(b.h, '/a');
    const next = b.incidents.openIncident('GET /a')!.id;
    expect(next).not.toBe(id);
    await expect.poll(() => a.incidents.byId(next)?.status, { timeout: 3000 }).toBe('open');
  }, 30_000);

  it('keeps the entries two replicas add to one session at once, and names the replica of each audit entry', async () => {
    const a = await replica('replica-a', 'svc-two');
    const b = await replica('replica-b', 'svc-two');
    const session = a.sessions.create('INC-20261122-abcde-0001', 'ops-bot', 'token:ops-bot');
    await expect.poll(() => b.sessions.get(session.id)?.id, { timeout: 3000 }).toBe(session.id);
    a.sessions.add(session.id, { type: 'OBSERVATION', agentName: 'ops-bot', role: 'operator', content: 'seen on a' });
    b.sessions.add(session.id, { type: 'DIAGNOSIS', agentName: 'alice', role: 'operator', content: 'seen on b' });
    for (const r of [a, b]) {
      await expect
        .poll(
          () =>
            r.sessions
              .get(session.id)
              ?.entries.map((e) => e.content)
              .sort(),
          { timeout: 3000 },
        )
        .toEqual(['seen on a', 'seen on b']);
    }
    b.audit.record({
      agentName: 'alice',
      role: 'operator',
      action: 'enable_fallback:GET /a',
      reason: 'r',
      approvedBy: undefined,
      approver: undefined,
      approval: 'not_required',
      outcome: 'success',
      detail: 'ok',
    });
    await expect.poll(() => a.audit.recent(5).map((e) => `${e.action} on ${e.replica}`), { timeout: 3000 }).toEqual(['enable_fallback:GET /a on replica-b']);
    expect(b.audit.recent(5)).toHaveLength(1);
  }, 30_000);
});
