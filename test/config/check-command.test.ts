/** `svc check`: prints effective values with sources and exits non-zero on errors. */
import { describe, expect, it } from 'vitest';
import { check } from '../../src/cli/check.js';
import { tempDir } from '../support/temp-dir.js';

function run(args: string[], files: Record<string, string> = {}, env: Record<string, string> = {}) {
  const lines: string[] = [];
  const code = check(args, env, tempDir(files), (line) => lines.push(line));
  return { code, output: lines.join('\n') };
}

describe('svc check', () => {
  it('prints each effective value with its source and exits 0 when valid', () => {
    const { code, output } = run(['-Dsvc.enabled=false'], { 'svc.yml': 'topology:\n  team: payments\n' }, { SVC_TOPOLOGY_TIER: 'critical' });
    expect(code).toBe(0);
    expect(output).toMatch(/svc\.topology\.team\s+"payments"\s+\(svc\.yml:2\)/);
    expect(output).toMatch(/svc\.topology\.tier\s+"critical"\s+\(SVC_TOPOLOGY_TIER\)/);
    expect(output).toMatch(/svc\.enabled\s+false\s+\(-Dsvc\.enabled\)$/m);
    expect(output).toMatch(/svc\.baselines\.source\s+"static"\s+\(default\)/);
    expect(output).toContain('configuration is valid');
  });

  it('exits 1 and names the problem when the configuration has errors', () => {
    const { code, output } = run(['--config', 'custom.yml'], { 'custom.yml': 'anomaly-detection:\n  z-score-threshold: -2\n' });
    expect(code).toBe(1);
    expect(output).toContain('svc config error: svc.anomaly-detection.z-score-threshold (custom.yml:2): -2 is out of range; accepted: a number above 0 and at most 100; using the default 3');
    expect(output).toContain('1 error(s)');
  });

  it('warnings alone do not fail the check', () => {
    const { code, output } = run([], { 'svc.yml': 'topolgy:\n  team: x\n' });
    expect(code).toBe(0);
    expect(output).toContain('unknown key "topolgy"; did you mean "topology"?');
  });

  it('prints the most memory agents can make svc hold, following the limits', () => {
    const total = (output: string) => {
      const match = /memory agents can make svc hold, at most: ([\d.]+) MiB/.exec(output);
      expect(match, output).not.toBeNull();
      return Number(match![1]);
    };
    const defaults = run([]).output;
    expect(defaults).toMatch(/shared sessions +16\.0 MiB {2}limits\.max-session-bytes; the oldest sessions are evicted/);
    expect(defaults).toMatch(/audit trail +[\d.]+ MiB {2}500 entries \(limits\.max-audit-entries\)/);
    const smaller = run(['-Dsvc.limits.max-session-bytes=1048576']).output;
    expect(smaller).toMatch(/shared sessions +1\.0 MiB/);
    expect(total(defaults) - total(smaller)).toBeCloseTo(15, 0);
  });

  it('exits 2 on a usage error', () => {
    expect(run(['--frobnicate']).code).toBe(2);
    expect(run(['--config']).code).toBe(2);
  });
});
