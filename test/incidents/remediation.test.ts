/** Built-in actions act for real: fallback flag, circuit breakers (a real opossum breaker), baseline, escalation. */
import CircuitBreaker from 'opossum';
import { describe, expect, it } from 'vitest';
import { Approvals } from '../../src/incidents/approvals.js';
import { AuditTrail } from '../../src/incidents/audit-trail.js';
import { Remediation, RemediationRefused } from '../../src/incidents/remediation.js';
import { Verifier } from '../../src/incidents/verification.js';
import { engineHarness } from '../support/engine-harness.js';

const operator = { agentName: 'ops-bot', role: 'operator', permissions: new Set(['READ', 'DIAGNOSE', 'REMEDIATE'] as const), credential: 'token:ops-bot', tokenAgent: 'ops-bot' };
const alice = { ...operator, agentName: 'alice', credential: 'token:alice', tokenAgent: 'alice' };

function refusal(outcome: unknown): string {
  return outcome instanceof RemediationRefused ? outcome.message : '';
}

function setup() {
  const h = engineHarness();
  h.request('/pay', 10); // the operation must be known for its actions to run
  const audit = new AuditTrail(h.clock);
  const remediation = new Remediation(h.engine, audit, new Verifier(h.engine), new Approvals(h.clock, ['alice']), () => ({ level: 'page_oncall', channel: '#oncall' }));
  return { h, audit, remediation };
}

describe('Remediation', () => {
  it('opens and closes a watched opossum breaker, with approval for opening', async () => {
    const { h, remediation } = setup();
    const breaker = new CircuitBreaker(async () => 'ok', { name: 'payments-breaker' });
    h.engine.circuitBreakers.watchOpossum(breaker, { dependency: 'payments' });
    expect(remediation.actionsFor('GET /pay').map((a) => a.name)).toContain('open_circuit_breaker:payments-breaker');
    await expect(remediation.execute('open_circuit_breaker:payments-breaker', 'payments down', undefined, operator)).rejects.toBeInstanceOf(RemediationRefused);
    expect(breaker.opened).toBe(false);
    const approval = /Approval request (APR-\S+) is open/.exec(
      refusal(await remediation.execute('open_circuit_breaker:payments-breaker', 'payments down', undefined, operator).catch((e: Error) => e)),
    )![1]!;
    await remediation.execute(`approve:${approval}`, 'payments are down, agreed', undefined, alice);
    await remediation.execute('open_circuit_breaker:payments-breaker', 'payments down', approval, operator);
    expect(breaker.opened).toBe(true);
    expect(remediation.actionsFor('GET /pay').map((a) => a.name)).toContain('close_circuit_breaker:payments-breaker');
    const closed = await remediation.execute('close_circuit_breaker:payments-breaker', 'payments back', undefined, operator);
    expect(closed.outcome).toBe('success');
    expect(breaker.closed).toBe(true);
    breaker.shutdown();
  });

  it('toggles the fallback flag, escalates with the level and channel, and records a config change', async () => {
    const { h, remediation, audit } = setup();
    expect((await remediation.execute('enable_fallback:GET /pay', 'serve cached', undefined, operator)).outcome).toBe('success');
    expect(remediation.isFallbackEnabled('GET /pay')).toBe(true);
    expect(remediation.actionsFor('GET /pay')[0]!.name).toBe('disable_fallback:GET /pay');
    expect((await remediation.execute('escalate:GET /pay', 'needs a human', undefined, operator)).message).toBe('escalated GET /pay at level page_oncall to #oncall');
    expect(h.engine.changes.list().at(-1)!.description).toBe('escalate:GET /pay by ops-bot (operator): needs a human');
    expect(audit.recent().map((e) => e.action)).toEqual(['escalate:GET /pay', 'enable_fallback:GET /pay']);
  });

  it('runs custom actions for their operations only, and reports a failing handler as failed', async () => {
    const { remediation } = setup();
    remediation.registerAction({
      name: 'restart_worker',
      description: 'Restart the worker pool',
      operations: ['POST /jobs'],
      handler: () => {
        throw new Error('pool busy');
      },
    });
    expect(remediation.actionsFor('GET /pay').map((a) => a.name)).not.toContain('restart_worker');
    expect(remediation.actionsFor('POST /jobs').map((a) => a.name)).toContain('restart_worker');
    expect(await remediation.execute('restart_worker', 'stuck', undefined, operator)).toMatchObject({ outcome: 'failed', message: 'pool busy' });
    await expect(remediation.execute('reboot_everything', 'why not', undefined, operator)).rejects.toThrow(/unknown action "reboot_everything"/);
    expect(() => remediation.registerAction({ name: 'escalate', description: 'x', handler: () => undefined })).toThrow(/built-in kind/);
  });

  it("in a fleet: announces the actions every replica applies, and applies another replica's without auditing it again", async () => {
    const a = setup();
    const b = setup();
    const announced: string[] = [];
    a.remediation.onFleetAction = (action) => {
      announced.push(action.action);
      void b.remediation.applyFromFleet(action);
    };
    let flushesOnB = 0;
    const cacheFlush = (remediation: Remediation, count: () => void, fleetWide: boolean, name: string) =>
      remediation.registerAction({ name, description: 'flush the in-process cache', fleetWide, handler: () => count() });
    cacheFlush(a.remediation, () => undefined, true, 'flush_cache');
    cacheFlush(b.remediation, () => flushesOnB++, true, 'flush_cache');
    cacheFlush(a.remediation, () => undefined, false, 'rotate_keys');
    cacheFlush(b.remediation, () => flushesOnB++, false, 'rotate_keys');
    const breakerB = new CircuitBreaker(async () => 'ok', { name: 'payments-breaker' });
    b.h.engine.circuitBreakers.watchOpossum(breakerB, { dependency: 'payments' });

    for (const action of ['enable_fallback:GET /pay', 'escalate:GET /pay', 'flush_cache', 'rotate_keys', 'close_circuit_breaker:payments-breaker'])
      await a.remediation.execute(action, 'fleet test', undefined, operator);
    await new Promise((resolve) => setImmediate(resolve));
    // escalate notifies once and a custom action runs once unless fleetWide; the breaker A lacks failed there, so it is not announced.
    expect(announced).toEqual(['enable_fallback:GET /pay', 'flush_cache']);
    expect(b.remediation.isFallbackEnabled('GET /pay')).toBe(true);
    expect(flushesOnB).toBe(1);
    expect(b.audit.recent(10)).toEqual([]);

    await b.remediation.applyFromFleet({ action: 'open_circuit_breaker:payments-breaker', reason: 'payments down', agentName: 'alice', role: 'operator' });
    expect(breakerB.opened).toBe(true);
    // A missed disable: the store's records (no flag, no breaker) are what B ends with.
    b.remediation.reconcile([]);
    expect(b.remediation.isFallbackEnabled('GET /pay')).toBe(false);
    expect(breakerB.closed).toBe(true);
    breakerB.shutdown();
  });
});
