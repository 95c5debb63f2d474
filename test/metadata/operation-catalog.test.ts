/** Rules 5 and 6: configuration > @AgentOperation > profile > hardcoded defaults, per property. */
import { describe, expect, it } from 'vitest';
import type { ConfigProblem } from '../../src/config/config-source.js';
import { loadConfig } from '../../src/config/load-config.js';
import { OperationCatalog } from '../../src/metadata/operation-catalog.js';
import { newRegistry } from '../support/registry.js';
import { tempDir } from '../support/temp-dir.js';

const YAML = `profiles:
  critical-path:
    retryable: true
    idempotent: true
    runbook-url: https://runbooks/profile
    escalation-level: page_oncall
    safe-to-restart: false
operations:
  GET /orders/{id}:
    profile: critical-path
    runbook-url: https://runbooks/config
    expected-latency-p99: 300ms
  GET /plain:
    expected-error-rate: -1
  GET /typo:
    profile: critcal-path
  PUT /carts/:cart:
    idempotent: true
`;

function catalog(decorate?: (r: ReturnType<typeof newRegistry>) => void) {
  const registry = newRegistry();
  decorate?.(registry);
  const problems: ConfigProblem[] = [];
  const { config } = loadConfig({ cwd: tempDir({ 'svc.yml': YAML }), args: [], env: {} });
  return { catalog: new OperationCatalog(config, registry, (p) => problems.push(p)), registry, problems };
}

describe('operation names spelled either way', () => {
  it('find the configuration and declarations of the one operation, shown as {name}', () => {
    const { catalog: ops } = catalog((r) => r.operations.set('POST /users/:id/avatar', { options: { retryable: true }, where: 'Users.avatar' }));
    expect(ops.resolve('PUT /carts/{cart}')).toMatchObject({ name: 'PUT /carts/{cart}', declared: true, idempotent: true });
    expect(ops.resolve('PUT /carts/:cart')).toMatchObject({ name: 'PUT /carts/{cart}', idempotent: true });
    expect(ops.resolve('GET /orders/:id')).toMatchObject({ name: 'GET /orders/{id}', runbookUrl: 'https://runbooks/config' });
    expect(ops.resolve('POST /users/{id}/avatar')).toMatchObject({ declared: true, retryable: true });
    expect(ops.names()).toEqual(expect.arrayContaining(['PUT /carts/{cart}', 'POST /users/{id}/avatar']));
    expect(ops.names()).not.toContain('PUT /carts/:cart');
  });
});

describe('operation metadata precedence', () => {
  it('rule 6: explicit per-operation values override the profile, which overrides defaults', () => {
    const op = catalog().catalog.resolve('GET /orders/{id}');
    expect(op).toMatchObject({ runbookUrl: 'https://runbooks/config', retryable: true, idempotent: true, escalationLevel: 'page_oncall', safeToRestart: false, expectedLatencyP99Ms: 300 });
    expect(op.sources.runbookUrl).toMatchObject({ kind: 'file' });
    expect(op.sources.retryable).toMatchObject({ kind: 'profile', where: expect.stringContaining('critical-path') });
    expect(op.sources.retryAfterMs).toMatchObject({ kind: 'default' });
  });

  it('rule 5: the annotation applies only where configuration has not set the property, and beats the profile', () => {
    const { catalog: ops } = catalog((r) =>
      r.operations.set('GET /orders/{id}', {
        options: { runbookUrl: 'https://runbooks/annotation', idempotent: false, retryAfterMs: 250, expectedLatencyP50: '12ms' },
        where: '@AgentOperation on Orders.get',
      }),
    );
    const op = ops.resolve('GET /orders/{id}');
    expect(op.runbookUrl).toBe('https://runbooks/config');
    expect(op.idempotent).toBe(false);
    expect(op.sources.idempotent).toMatchObject({ kind: 'decorator', where: '@AgentOperation on Orders.get' });
    expect(op.retryAfterMs).toBe(250);
    expect(op.expectedLatencyP50Ms).toBe(12);
    expect(op.retryable).toBe(true);
  });

  it('hardcoded defaults: the annotation table for decorated operations, the configuration table otherwise', () => {
    const { catalog: ops } = catalog((r) => r.operations.set('Jobs.run', { options: {}, where: '@AgentOperation on Jobs.run' }));
    expect(ops.resolve('Jobs.run')).toMatchObject({ declared: true, escalationLevel: 'notify_team', safeToRestart: false, expectedErrorRate: 0 });
    expect(ops.resolve('GET /unknown')).toMatchObject({ declared: false, escalationLevel: 'auto_resolve', safeToRestart: true, expectedErrorRate: undefined });
  });

  it('rule 9: expected-error-rate -1 resolves to unset', () => {
    expect(catalog().catalog.resolve('GET /plain').expectedErrorRate).toBeUndefined();
  });

  it('a decorator value of the wrong form is reported and ignored', () => {
    const { catalog: ops, problems } = catalog((r) => r.operations.set('GET /plain', { options: { expectedLatencyP99: '2 seconds' }, where: '@AgentOperation on Plain.get' }));
    expect(ops.resolve('GET /plain').expectedLatencyP99Ms).toBeUndefined();
    expect(problems[0]).toMatchObject({ key: '@AgentOperation.expectedLatencyP99', where: '@AgentOperation on Plain.get', message: expect.stringContaining('suffix ms, s or m') });
  });

  it('an unknown profile name is reported once and only defaults apply', () => {
    const { catalog: ops, problems } = catalog();
    expect(ops.resolve('GET /typo').retryable).toBe(false);
    ops.resolve('GET /typo');
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toContain('no profile named "critcal-path"');
  });

  it('caches frozen results until a decorator declares something new', () => {
    const { catalog: ops, registry } = catalog();
    const first = ops.resolve('GET /orders/{id}');
    expect(Object.isFrozen(first)).toBe(true);
    expect(ops.resolve('GET /orders/{id}')).toBe(first);
    registry.operations.set('GET /orders/{id}', { options: { retryAfterMs: 5 }, where: 'late' });
    registry.version++;
    expect(ops.resolve('GET /orders/{id}').retryAfterMs).toBe(5);
  });
});
