/**
 * A rogue writer on the fleet channel (anyone with access to the Redis store, or a buggy replica):
 * floods of notices on a real redis-server, published with the `redis` client directly, against a
 * replica's real FleetSync in this process. What the replica holds and the reads it sends to Redis
 * stay bounded, and the genuine records named in the flood are still merged.
 */
import { describe, expect, it } from 'vitest';
import { Approvals } from '../../src/incidents/approvals.js';
import { AuditTrail } from '../../src/incidents/audit-trail.js';
import { IncidentTracker } from '../../src/incidents/incident-tracker.js';
import { Remediation } from '../../src/incidents/remediation.js';
import { SessionStore } from '../../src/incidents/session-store.js';
import { Verifier } from '../../src/incidents/verification.js';
import { attachState } from '../../src/wiring/state-persistence.js';
import { engineHarness } from '../support/engine-harness.js';
import { redisForTests } from './redis-for-tests.js';

const redis = redisForTests();
const { available } = redis;

async function replica(id: string, namespace: string) {
  const h = engineHarness();
  const sessions = new SessionStore(h.clock);
  const incidents = new IncidentTracker(h.engine, { tierOf: () => 'standard', resolveAfterMs: 120_000 });
  const audit = new AuditTrail(h.clock);
  const remediation = new Remediation(h.engine, audit, new Verifier(h.engine), new Approvals(h.clock, ['alice']), () => ({ level: 'page_oncall', channel: '#oncall' }));
  const state = await redis.openFleetState(id, namespace);
  attachState(state, { sessions, audit, remediation, incidents });
  await state.fleetSync.subscribed;
  return { h, sessions, remediation, incidents, fleetSync: state.fleetSync, writer: state.writer };
}

type RogueClient = Awaited<ReturnType<typeof redis.rogueClient>>;

/** HMGETs and scripts (the bounded reads) run so far. */
async function reads(client: RogueClient): Promise<number> {
  const info = await client.info('commandstats');
  return Number(/cmdstat_hmget:calls=(\d+)/.exec(info)?.[1] ?? 0) + Number(/cmdstat_eval:calls=(\d+)/.exec(info)?.[1] ?? 0);
}

async function bytesSent(client: RogueClient): Promise<number> {
  return Number(/total_net_output_bytes:(\d+)/.exec(await client.info('stats'))?.[1]);
}

describe.skipIf(!available)('a rogue writer floods the fleet channel', () => {
  it('records notices are read with a bounded number of HMGETs, and the genuine record among them is merged', async () => {
    const a = await replica('replica-a', 'hostile-records');
    const b = await replica('replica-b', 'hostile-records');
    const rogue = await redis.rogueClient();
    const session = a.sessions.create('INC-20261122-abcde-0001', 'ops-bot', 'token:ops-bot');
    await a.writer.flush();
    await expect.poll(() => b.sessions.get(session.id)?.id, { timeout: 3000 }).toBe(session.id);
    b.sessions.forget(session.id);
    const before = await reads(rogue);
    const notices = 5000;
    const pipeline = rogue.multi();
    for (let i = 0; i < notices; i++) {
      const changes = Array.from({ length: 100 }, (_, j) => ['sessions', `rogue-${(i * 100 + j) % 20_000}`]);
      if (i === notices - 1) changes[0] = ['sessions', session.id];
      pipeline.publish('svc:{hostile-records}:fleet', JSON.stringify({ kind: 'records', from: 'rogue', changes }));
    }
    await pipeline.execAsPipeline();
    await expect.poll(() => b.sessions.get(session.id)?.id, { timeout: 10_000 }).toBe(session.id);
    const done = (await reads(rogue)) - before;
    // Before: one HMGET per notice on each replica (10,000 here), all in flight at once however slow
    // Redis is; after: 67 to 70 (reads of 500 keys, one at a time,
    // notices over 1,000 a second dropped, and a resync of each replica).
    expect(done).toBeLessThan(notices / 10);
  });

  it('records over their size bound are refused in Redis, not sent, and the genuine record beside them is merged', async () => {
    const a = await replica('replica-a', 'hostile-sizes');
    const b = await replica('replica-b', 'hostile-sizes');
    const rogue = await redis.rogueClient();
    const huge = JSON.stringify({ id: 'x', entries: 'y'.repeat(20 * 1024 * 1024) });
    await rogue.hSet('svc:{hostile-sizes}:sessions', { 'huge-1': huge, 'huge-2': huge });
    await rogue.hSet('svc:{hostile-sizes}:audit', { 'huge-3': huge });
    const before = await bytesSent(rogue);
    const session = a.sessions.create('INC-20261122-abcde-0002', 'ops-bot', 'token:ops-bot');
    await a.writer.flush();
    for (let i = 0; i < 10; i++) {
      const changes = [['sessions', 'huge-1'], ['sessions', 'huge-2'], ['audit', 'huge-3'], ...(i === 9 ? [['sessions', session.id]] : [])];
      await rogue.publish('svc:{hostile-sizes}:fleet', JSON.stringify({ kind: 'records', from: 'rogue', changes }));
    }
    await expect.poll(() => b.sessions.get(session.id)?.id, { timeout: 5000 }).toBe(session.id);
    await expect.poll(() => b.fleetSync.refused, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    // Before: each 20 MB record sent to each replica at every read (65.6 MB in one run, the reads
    // already coalesced); after: 5.3 KB.
    expect((await bytesSent(rogue)) - before).toBeLessThan(1024 * 1024);
  });

  it('flag and breaker records naming ever new targets, and closings of unknown breakers, leave what is held bounded', async () => {
    const b = await replica('replica-b', 'hostile-remediation');
    const rogue = await redis.rogueClient();
    const target = (i: number) => `GET /rogue/${i}/${'x'.repeat(250)}`;
    const records: Record<string, string> = {};
    for (let i = 0; i < 1500; i++) records[`fallback:${target(i)}`] = JSON.stringify({ kind: 'fallback', target: target(i) });
    for (let i = 0; i < 1500; i++) records[`breaker:${target(i)}`] = JSON.stringify({ kind: 'breaker', target: target(i), state: 'open' });
    await rogue.hSet('svc:{hostile-remediation}:remediation', records);
    const keys = Object.keys(records);
    const pipeline = rogue.multi();
    for (let i = 0; i < keys.length; i += 100) {
      const changes = keys.slice(i, i + 100).map((key) => ['remediation', key]);
      pipeline.publish('svc:{hostile-remediation}:fleet', JSON.stringify({ kind: 'records', from: 'rogue', changes }));
    }
    for (let i = 0; i < 500; i++) {
      const action = { action: `close_circuit_breaker:${target(10_000 + i)}`, reason: 'r', agentName: 'rogue', role: 'operator' };
      pipeline.publish('svc:{hostile-remediation}:fleet', JSON.stringify({ kind: 'remediation', from: 'rogue', action }));
    }
    await pipeline.execAsPipeline();
    await expect.poll(() => b.fleetSync.applied, { timeout: 5000 }).toBe(500);
    await expect.poll(() => b.remediation.refused, { timeout: 5000 }).toBe(1000);
    // Before: every target kept (1,500 fallbacks, 1,500 opened breakers, 2,000 states forced on registration).
    expect(b.remediation.heldFlags()).toEqual({ fallbacks: 1000, breakers: 1000 });
    expect(b.h.engine.circuitBreakers.pendingForces()).toBe(1000);
    expect(b.remediation.isFallbackEnabled(target(0))).toBe(true);
  });

  it('an incident record that keeps changing its patterns and alerts leaves what the incident holds bounded', async () => {
    const b = await replica('replica-b', 'hostile-incidents');
    const rogue = await redis.rogueClient();
    const id = 'INC-20261122-rogue-0001';
    // Detections within resolve-after of the replica's clock: an incident it resolved would be
    // written back, and its copy could overwrite the rogue's next record before the notice is read.
    const detectedAt = b.h.clock.now();
    for (let round = 0; round < 20; round++) {
      const junk = Array.from({ length: 64 }, (_, i) => `pattern-${round}-${i}-${'p'.repeat(1000)}`);
      const record = {
        id,
        operation: 'GET /a',
        openedAt: detectedAt,
        status: 'open',
        peakSeverity: 'LOW',
        patterns: ['error_rate_spike', ...junk],
        patternOnsets: junk.map((p) => [p, 1]),
        maxAnomalyScore: 1,
        lastDetectionAt: detectedAt + round,
        trigger: 'anomaly',
        sloAlerts: junk.map((p) => `slo-${p}-${'s'.repeat(20_000)}`),
        replicas: [],
      };
      await rogue.hSet('svc:{hostile-incidents}:incidents', id, JSON.stringify(record));
      await rogue.publish('svc:{hostile-incidents}:fleet', JSON.stringify({ kind: 'records', from: 'rogue', changes: [['incidents', id]] }));
      await expect.poll(() => b.incidents.byId(id)?.lastDetectionAt, { timeout: 3000 }).toBe(detectedAt + round);
    }
    const incident = b.incidents.byId(id)!;
    // Before: 1,281 patterns and their onsets (every name read kept), 64 alerts of 20 KB each.
    expect([...incident.patterns]).toEqual(['error_rate_spike']);
    expect(incident.patternOnsets.size).toBe(0);
    expect(incident.sloAlerts.every((a) => a.length <= 1024)).toBe(true);
  });
});
