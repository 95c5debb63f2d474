/**
 * Bad configuration never stops the app: each problem is one line naming the key, the source and
 * what is accepted, and the key falls back to its default.
 */
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/config/config-source.js';
import { SVC_OFF } from '../../src/config/file-source.js';
import { loadConfig } from '../../src/config/load-config.js';
import { tempDir } from '../support/temp-dir.js';

function load(files: Record<string, string>, args: string[] = [], env: Record<string, string> = {}) {
  return loadConfig({ cwd: tempDir(files), args, env }).config;
}

describe('bad configuration', () => {
  it('an empty svc.mcp.host (which would bind every interface) is refused for the loopback default', () => {
    const config = load({}, [], { SVC_MCP_HOST: ' ' });
    expect(config.get('mcp.host')).toBe('127.0.0.1');
    expect(config.problems.map(formatProblem)).toEqual([
      'svc config error: svc.mcp.host (SVC_MCP_HOST): " " is empty; accepted: a non-empty string of at most 253 characters; using the default "127.0.0.1"',
    ]);
  });

  it('invalid YAML: names file:line:column, shows the line with a caret and the fix; svc is off, not on defaults', () => {
    const config = load({ 'svc.yml': 'svc:\n  topology:\n    team: ok\n   tier: [critical\n' });
    const [problem] = config.errors();
    expect(formatProblem(problem!).split('\n')).toEqual([
      `svc config error: svc.config.file (svc.yml:4:1): invalid YAML: All mapping items must start at the same column; ${SVC_OFF}`,
      '  4 |    tier: [critical',
      '    | ^',
      '  fix: indent this key with the same number of spaces as the keys beside it',
      '  (1 more YAML error(s) after this one; they often go once this one is fixed)',
    ]);
    expect(config.resolved('topology.team')).toMatchObject({ value: '', source: { kind: 'default' } });
    // Whatever else sets it: -D and env beat the file, but not a file that could not be read.
    expect(config.resolved('enabled')).toMatchObject({ value: false, source: { kind: 'file', where: 'svc.yml not read: svc is off' } });
    expect(loadConfig({ cwd: tempDir({ 'svc.yml': 'svc: [' }), args: ['-Dsvc.enabled=true'], env: {} }).config.get('enabled')).toBe(false);
  });

  it('a wrong type from env: names the variable and what is accepted, uses the default', () => {
    const config = load({}, [], { SVC_BASELINES_ROLLING_WINDOW_SIZE: 'lots' });
    expect(config.errors().map(formatProblem)).toEqual([
      'svc config error: svc.baselines.rolling-window-size (SVC_BASELINES_ROLLING_WINDOW_SIZE): "lots" is not an integer; accepted: an integer from 1 to 10000; using the default 1000',
    ]);
    expect(config.get('baselines.rolling-window-size')).toBe(1000);
  });

  it('an unknown enum value from the file: lists the accepted values with file:line', () => {
    const config = load({ 'svc.yml': 'topology:\n  tier: gold\n' });
    expect(formatProblem(config.errors()[0]!)).toBe(
      'svc config error: svc.topology.tier (svc.yml:2): "gold" is not an accepted value; accepted: one of critical, standard, internal, experimental; using the default "standard"',
    );
    expect(config.get('topology.tier')).toBe('standard');
  });

  it('an out-of-range rate from a -D argument: names the argument; the value counts as not configured', () => {
    const config = load({}, ['-Dsvc.operations.[GET /a].expected-error-rate=1.5']);
    expect(formatProblem(config.errors()[0]!)).toBe(
      `svc config error: svc.operations.[GET /a].expected-error-rate (-Dsvc.operations.[GET /a].expected-error-rate): 1.5 is out of range; accepted: a fraction from 0.0 to 1.0, or -1 for unset; ignored, as if not configured`,
    );
    expect(config.member('operations', 'GET /a', 'expected-error-rate')).toBeUndefined();
  });

  it('a zero latency or window is refused where 0 means nothing; 0 stays accepted where it switches something off', () => {
    const config = load({ 'svc.yml': 'operations:\n  GET /a:\n    expected-latency-p50: 0ms\nanomaly-detection:\n  min-latency-deviation: 0ms\n' }, [], { SVC_DEPENDENCY_HEALTH_WINDOW: '0s' });
    expect(config.errors().map(formatProblem).sort()).toEqual([
      'svc config error: svc.dependency-health.window (SVC_DEPENDENCY_HEALTH_WINDOW): "0s" is out of range; accepted: a duration from 1s to 60m with suffix ms, s or m (for example 250ms, 1.5s, 2m); using the default "60s"',
      'svc config error: svc.operations.[GET /a].expected-latency-p50 (svc.yml:3): "0ms" is not above 0; accepted: a duration above 0 and at most 10m with suffix ms, s or m (for example 250ms, 1.5s, 2m); ignored, as if not configured',
    ]);
    expect(config.get('dependency-health.window')).toBe(60_000);
    expect(config.member('operations', 'GET /a', 'expected-latency-p50')).toBeUndefined();
    expect(config.get('anomaly-detection.min-latency-deviation')).toBe(0);
  });

  it('a bad value in a higher source does not revive a lower one', () => {
    const config = load({ 'svc.yml': 'anomaly-detection:\n  z-score-threshold: 2.5\n' }, [], { SVC_ANOMALY_DETECTION_Z_SCORE_THRESHOLD: 'high' });
    expect(config.get('anomaly-detection.z-score-threshold')).toBe(3);
  });

  it('unknown keys are errors with a suggestion in the file and in -D; an unknown SVC_* variable (the environment is shared) is a warning', () => {
    const config = load({ 'svc.yml': 'topology:\n  teem: x\nbaselines:\n  sorce: rolling\n' }, ['-Dsvc.anomaly-detection.enabeld=true'], { SVC_TOPOLGY_TEAM: 'x' });
    expect(config.problems.map(formatProblem)).toEqual(
      expect.arrayContaining([
        'svc config error: svc.topology.teem (svc.yml:2): unknown key "teem"; did you mean "team"?; ignored',
        'svc config error: svc.baselines.sorce (svc.yml:4): unknown key "sorce"; did you mean "source"?; ignored',
        'svc config warning: SVC_TOPOLGY_TEAM (environment): unknown svc variable, ignored; did you mean SVC_TOPOLOGY_TEAM?',
        'svc config error: svc.anomaly-detection.enabeld (-Dsvc.anomaly-detection.enabeld): unknown key "enabeld"; did you mean "enabled"?; ignored',
      ]),
    );
    expect(config.problems).toHaveLength(4);
  });

  it('a dependency without a required field is reported and dropped whole', () => {
    const config = load({ 'svc.yml': 'dependencies:\n  - name: ok\n    type: cache\n    criticality: optional\n  - name: broken\n    type: cache\n' });
    expect(formatProblem(config.errors()[0]!)).toBe('svc config error: svc.dependencies[1] (svc.yml:5): missing required criticality; this entry is ignored');
    expect(config.member('dependencies', 1, 'name')).toBeUndefined();
    expect(config.member('dependencies', 0, 'name')?.value).toBe('ok');
  });

  it('a file that is not a mapping is ignored with an error, and svc is off', () => {
    const config = load({ 'svc.yml': '- just\n- a list\n' });
    expect(config.errors()[0]?.message).toContain('must hold a mapping');
    expect(config.get('enabled')).toBe(false);
  });
});

describe('invalid topology values and decorators', () => {
  it('a rejected configured value takes the default; the decorator does not step in', async () => {
    const { buildTopology } = await import('../../src/metadata/build-topology.js');
    const { newRegistry } = await import('../support/registry.js');
    const config = load({}, [], { SVC_TOPOLOGY_TIER: 'gold' });
    const decorators = newRegistry();
    decorators.observable = { options: { team: 'payments', tier: 'CRITICAL' }, where: '@AgentObservable on App' };
    const { registry } = buildTopology(config, decorators);
    expect(registry.topology).toMatchObject({ tier: 'standard', team: 'payments' });
  });
});
