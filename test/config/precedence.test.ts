/** Configuration rules 2-10: sources, precedence with provenance, names, durations, unset rates. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { envName, isScalarKey, SCHEMA } from '../../src/config/schema.js';
import { tempDir } from '../support/temp-dir.js';

const FILE = `svc:
  enabled: true
  topology:
    team: from-file
    domain: from-file
    tier: internal
  deployment:
    version: 1.0.0-file
`;

describe('rule 2: properties > env > file > default, each value with its source', () => {
  const cwd = tempDir({ 'svc.yml': FILE });
  const { config } = loadConfig({
    cwd,
    args: ['-Dsvc.topology.team=from-property'],
    env: { SVC_TOPOLOGY_TEAM: 'from-env', SVC_TOPOLOGY_DOMAIN: 'from-env' },
  });

  it('a property beats env and file', () => {
    expect(config.resolved('topology.team')).toMatchObject({ value: 'from-property', source: { kind: 'property', where: '-Dsvc.topology.team' } });
  });
  it('env beats the file', () => {
    expect(config.resolved('topology.domain')).toMatchObject({ value: 'from-env', source: { kind: 'env', where: 'SVC_TOPOLOGY_DOMAIN' } });
  });
  it('the file beats the default, with file:line', () => {
    expect(config.resolved('topology.tier')).toMatchObject({ value: 'internal', source: { kind: 'file', where: 'svc.yml:6' } });
  });
  it('the default applies when no source gives the key', () => {
    expect(config.resolved('baselines.rolling-window-size')).toMatchObject({ value: 1000, source: { kind: 'default' } });
  });
  it('programmatic properties sit at the -D level', () => {
    const loaded = loadConfig({ cwd, args: [], env: { SVC_TOPOLOGY_TEAM: 'from-env' }, properties: { 'svc.topology.team': 'from-code' } });
    expect(loaded.config.resolved('topology.team')).toMatchObject({ value: 'from-code', source: { kind: 'property' } });
  });
  it('reports which -D tokens it consumed, leaving the others', () => {
    const loaded = loadConfig({ cwd, args: ['--port', '-Dsvc.enabled=false', '-Dother=1'], env: {} });
    expect(loaded.consumedArgs).toEqual([1]);
    expect(loaded.config.get('enabled')).toBe(false);
  });
});

describe('rule 3: the config file path', () => {
  const cwd = tempDir({ 'svc.yml': 'topology:\n  team: default-file\n', 'other.yml': 'topology:\n  team: other-file\n', 'third.yml': 'topology:\n  team: third-file\n' });

  it('is ./svc.yml by default', () => {
    expect(loadConfig({ cwd, args: [], env: {} }).config.get('topology.team')).toBe('default-file');
  });
  it('SVC_CONFIG_FILE names another file', () => {
    expect(loadConfig({ cwd, args: [], env: { SVC_CONFIG_FILE: 'other.yml' } }).config.get('topology.team')).toBe('other-file');
  });
  it('-Dsvc.config.file beats SVC_CONFIG_FILE', () => {
    const loaded = loadConfig({ cwd, args: ['-Dsvc.config.file=third.yml'], env: { SVC_CONFIG_FILE: 'other.yml' } });
    expect(loaded.config.get('topology.team')).toBe('third-file');
  });
  it('a missing default file is fine, a missing named file is an error', () => {
    expect(loadConfig({ cwd: tempDir(), args: [], env: {} }).config.problems).toEqual([]);
    const named = loadConfig({ cwd, args: [], env: { SVC_CONFIG_FILE: 'nope.yml' } });
    expect(named.config.errors()[0]).toMatchObject({ key: 'svc.config.file', message: expect.stringContaining('ENOENT') });
  });
  it('accepts a file without the top-level svc: key', () => {
    expect(loadConfig({ cwd, args: [], env: {} }).config.resolved('topology.team').source.where).toBe('svc.yml:2');
  });
});

describe('rule 4: environment names', () => {
  it('are upper case with dots and hyphens as underscores', () => {
    expect(envName('topology.on-call-channel')).toBe('SVC_TOPOLOGY_ON_CALL_CHANNEL');
    const { config } = loadConfig({ cwd: tempDir(), args: [], env: { SVC_TOPOLOGY_ON_CALL_CHANNEL: '#ops' } });
    expect(config.resolved('topology.on-call-channel')).toMatchObject({ value: '#ops', source: { where: 'SVC_TOPOLOGY_ON_CALL_CHANNEL' } });
  });
  it('exist for every scalar key of the schema', () => {
    const scalars = SCHEMA.filter(isScalarKey).filter((s) => s.default !== undefined);
    const env = Object.fromEntries(scalars.map((s) => [envName(s.path), String(s.default === '' ? 'x' : s.default)]));
    const { config } = loadConfig({ cwd: tempDir(), args: [], env });
    for (const spec of scalars) expect(config.resolved(spec.path).source, spec.path).toMatchObject({ kind: 'env', where: envName(spec.path) });
    expect(config.problems).toEqual([]);
  });
});

describe('rule 8: operation names with spaces and slashes', () => {
  it('are plain YAML keys, and bracketed in -D properties', () => {
    const cwd = tempDir({ 'svc.yml': 'operations:\n  GET /api/v1.2/orders/{id}:\n    retryable: true\n  POST /carts/:cart/items:\n    idempotent: true\n' });
    const { config } = loadConfig({
      cwd,
      args: ['-Dsvc.operations.[GET /api/v1.2/orders/{id}].runbook-url=https://rb', '-Dsvc.operations."[POST /carts/:cart/items]".retryable=true'],
      env: {},
    });
    expect(config.problems).toEqual([]);
    expect(config.names('operations').sort()).toEqual(['GET /api/v1.2/orders/{id}', 'POST /carts/:cart/items']);
    expect(config.member('operations', 'GET /api/v1.2/orders/{id}', 'retryable')?.value).toBe(true);
    expect(config.member('operations', 'GET /api/v1.2/orders/{id}', 'runbook-url')?.value).toBe('https://rb');
    expect(config.member('operations', 'POST /carts/:cart/items', 'retryable')?.source.kind).toBe('property');
  });
});

describe('rules 9 and 10, and value forms', () => {
  const cwd = tempDir({
    'svc.yml': `operations:
  A /a:
    expected-latency-p50: 250ms
    expected-latency-p99: 1.5s
    expected-error-rate: -1
  B /b:
    expected-latency-p99: 2m
    expected-error-rate: 0.02
dependencies:
${['database', 'rest_api', 'grpc', 'message_broker', 'cache', 'object_store', 'identity_provider', 'internal_service', 'external_api'].map((t, i) => `  - { name: d${i}, type: ${t}, criticality: optional }`).join('\n')}
consumers:
  - { name: c1, pattern: sync }
  - { name: c2, pattern: async }
  - { name: c3, pattern: BATCH }
`,
  });
  const { config } = loadConfig({ cwd, args: [], env: {} });

  it('durations take ms, s and m', () => {
    expect(config.member('operations', 'A /a', 'expected-latency-p50')?.value).toBe(250);
    expect(config.member('operations', 'A /a', 'expected-latency-p99')?.value).toBe(1500);
    expect(config.member('operations', 'B /b', 'expected-latency-p99')?.value).toBe(120_000);
  });
  it('expected-error-rate -1 is accepted as unset', () => {
    expect(config.member('operations', 'A /a', 'expected-error-rate')?.value).toBe(-1);
    expect(config.member('operations', 'B /b', 'expected-error-rate')?.value).toBe(0.02);
  });
  it('dependency type accepts all nine configuration values; pattern the short forms', () => {
    expect(config.problems).toEqual([]);
    expect(config.listLength('dependencies')).toBe(9);
    expect(config.member('dependencies', 2, 'type')?.value).toBe('grpc');
    expect([0, 1, 2].map((i) => config.member('consumers', i, 'pattern')?.value)).toEqual(['synchronous', 'asynchronous', 'batch']);
  });
});
