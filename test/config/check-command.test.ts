/**
 * `svc check`: runs start-up's checks, prints the configured values (every value with --all) in
 * the syntax the file accepts, with their sources, and exits 1 on what start-up would ignore or
 * refuse.
 */

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { check } from '../../src/cli/check.js';
import { parsePropertyKey, specOf } from '../../src/config/config-key.js';
import { loadConfig } from '../../src/config/load-config.js';
import { tempDir } from '../support/temp-dir.js';

function run(args: string[], files: Record<string, string> = {}, env: Record<string, string> = {}) {
  const lines: string[] = [];
  const cwd = tempDir(files);
  const code = check(args, env, cwd, (line) => lines.push(line));
  return { code, output: lines.join('\n'), lines, cwd };
}

const last = (output: string): string => output.split('\n').at(-1)!;

describe('svc check', () => {
  it('prints the configured values with their sources, in the syntax the file accepts, and exits 0 when valid', () => {
    const { code, output } = run(
      ['-Dsvc.enabled=false'],
      {
        'svc.yml':
          'topology:\n  team: payments\nanomaly-detection:\n  persistence-window: 1500ms\nincidents:\n  resolve-after: 900s\nslos:\n  x:\n    operation-name: GET /a\n    target: 0.99\n    window: 168h\n',
      },
      { SVC_TOPOLOGY_TIER: 'critical' },
    );
    expect(code).toBe(0);
    expect(output).toMatch(/^ {2}svc\.topology\.team +payments {2}\(svc\.yml:2\)$/m);
    expect(output).toMatch(/^ {2}svc\.topology\.tier +critical {2}\(SVC_TOPOLOGY_TIER\)$/m);
    expect(output).toMatch(/^ {2}svc\.enabled +false {2}\(-Dsvc\.enabled\)$/m);
    // Durations and windows as the file writes them, never bare milliseconds.
    expect(output).toMatch(/^ {2}svc\.anomaly-detection\.persistence-window +1500ms {2}\(svc\.yml:4\)$/m);
    expect(output).toMatch(/^ {2}svc\.incidents\.resolve-after +15m {2}\(svc\.yml:6\)$/m);
    expect(output).toMatch(/^ {2}svc\.slos\.x\.window +7d {2}\(svc\.yml:11\)$/m);
    // Defaults are not listed, only counted.
    expect(output).not.toContain('(default)');
    expect(output).toMatch(/^configured values \(\d+ other keys have their defaults; svc check --all lists them\):$/m);
    expect(last(output)).toBe('configuration is valid');
  });

  it('says how each configured operation is judged, figure by figure, and that -1 leaves its errors unjudged', () => {
    const { code, lines } = run([], {
      'svc.yml': 'operations:\n  GET /a:\n    expected-latency-p50: 3ms\n    expected-error-rate: 0.01\n  GET /b:\n    expected-error-rate: -1\n  GET /c:\n    retryable: true\n',
    });
    expect(code).toBe(0);
    expect(lines).toContain('baselines: what is not configured is learned over 6h (svc.baselines.horizon); every other operation learns all three');
    expect(lines).toContain('  GET /a: p50 configured (3ms), p99 learned, error rate configured (0.01)');
    expect(lines).toContain('  GET /b: p50 learned, p99 learned, error rate not judged (expected-error-rate: -1; an outage still is)');
    expect(lines).toContain('  GET /c: p50 learned, p99 learned, error rate learned');
  });

  it('--all lists every value, defaults in their own units, and the memory breakdown', () => {
    const { code, output } = run(['--all']);
    expect(code).toBe(0);
    expect(output).toMatch(/^ {2}svc\.patterns\.window +96s {2}\(default\)$/m);
    expect(output).toMatch(/^ {2}svc\.baselines\.horizon +6h {2}\(default\)$/m);
    expect(output).toMatch(/^ {2}svc\.mcp\.approval-ttl +15m {2}\(default\)$/m);
    expect(output).toMatch(/^ {2}svc\.anomaly-detection\.min-latency-deviation +1ms {2}\(default\)$/m);
    expect(output).toMatch(/^ {2}svc\.topology\.team +"" {2}\(default\)$/m);
    expect(output).toMatch(/^ {2}svc\.mcp\.host +127\.0\.0\.1 {2}\(default\)$/m);
    expect(output).toMatch(/^ {2}svc\.mcp\.approvers +\[\] {2}\(default\)$/m);
    expect(output).not.toMatch(/ (30000|900000|2000) {2}\(default\)/);
    expect(output).toMatch(/audit trail +[\d.]+ MiB {2}500 entries/);
  });

  it('without --all, a configuration of defaults prints a handful of lines', () => {
    const { lines, cwd } = run([]);
    expect(lines).toEqual([
      `config file: none at ${join(cwd, 'svc.yml')} (the default path; --config, -Dsvc.config.file or SVC_CONFIG_FILE names another)`,
      'configured values: none, every key has its default (svc check --all lists them)',
      expect.stringMatching(/^instrumentations, each set up when the app loads what it instruments: http, undici, express, .*, pino, winston, bunyan$/),
      'agent authentication: none, loopback callers get the role diagnostician',
      expect.stringMatching(/^memory agents can make svc hold, at most: [\d.]+ MiB \(svc check --all breaks it down\)$/),
      'configuration is valid',
    ]);
  });

  it('prints the instrumentations in effect, with the OTEL_NODE_* variables applied', () => {
    const line = (files: Record<string, string>, env: Record<string, string>) => run([], files, env).lines.find((l) => l.startsWith('instrumentations'));
    expect(line({}, { OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'pg,http', OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg' })).toBe('instrumentations, each set up when the app loads what it instruments: http');
    expect(line({ 'svc.yml': 'telemetry: { instrumentations: [default, dns], middleware-spans: true }\n' }, {})).toMatch(/with middleware spans: http, .*, bunyan, dns$/);
  });

  it('every value printed by --all parses back, as a YAML value in the file, to the same value', () => {
    const file = [
      'topology: { team: "checkout: web", tier: critical, on-call-channel: "#checkout-oncall", repo-url: "https://git.example/a?b=1&c" }',
      'deployment:',
      '  version: "2.10"',
      '  commit-sha: "0123"',
      '  strategy: "true"',
      'dependencies:',
      '  - { name: payments-api, type: rest_api, criticality: required, timeout-ms: 2500, circuit-breaker: true, health-endpoint: "http://payments:8080/health" }',
      'operations:',
      '  "GET /orders/{id}":',
      '    expected-latency-p50: 0.25ms',
      '    expected-latency-p99: 1.5s',
      '    expected-error-rate: 0.0000001',
      '    escalation-level: PAGE_ONCALL',
      'slos:',
      '  orders: { operation-name: "GET /orders/{id}", target: 0.999, type: latency_p99, window: 90m, min-events: 50 }',
      'agent-roles:',
      '  triager: [READ, DIAGNOSE]',
      'anomaly-detection: { persistence-window: 2.5s, event-interval: 120s, z-score-threshold: 2.75 }',
      'patterns: { reference-window: 1440m, memory-leak-slope-mb-per-minute: 0.5 }',
      'mcp: { approvers: [alice, "bob, jr"], approval-ttl: 1h30m }',
    ].join('\n');
    // 1h30m is not a duration: the one error; every other value is valid.
    const { code, output, cwd } = run(['--all'], { 'svc.yml': file });
    expect(code).toBe(1);
    const { config } = loadConfig({ cwd, args: [], env: {} });
    const printed = output
      .split('\n')
      .map((line) => /^ {2}svc\.(\S+(?: \S+)*?) {2,}(.*?) {2}\(([^()]*)\)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null);
    expect(printed.length).toBeGreaterThan(80);
    for (const [, key, text] of printed) {
      const spec = specOf(parsePropertyKey(key!));
      expect(spec.type.parse(parseYaml(text!)), `${key} printed as ${text}`).toEqual(config.resolved(key!).value);
    }
    // Non-trivial ones, spelled as a user would.
    expect(output).toMatch(/svc\.operations\.\[GET \/orders\/\{id\}\]\.expected-latency-p50 +0\.25ms /);
    expect(output).toMatch(/svc\.operations\.\[GET \/orders\/\{id\}\]\.expected-error-rate +0\.0000001 /);
    expect(output).toMatch(/svc\.deployment\.version +"2\.10" /);
    expect(output).toMatch(/svc\.mcp\.approvers +\[alice, "bob, jr"\] /);
  });

  it('exits 1 and names the problem when the configuration has errors', () => {
    const { code, output } = run(['--config', 'custom.yml'], { 'custom.yml': 'anomaly-detection:\n  z-score-threshold: -2\n' });
    expect(code).toBe(1);
    expect(output).toContain('svc config error: svc.anomaly-detection.z-score-threshold (custom.yml:2): -2 is out of range; accepted: a number above 0 and at most 100; using the default 3');
    expect(last(output)).toBe('1 error(s): start-up would ignore or refuse what they name');
  });

  it('an unknown key in the file fails the check (start-up ignores it)', () => {
    const { code, output } = run([], { 'svc.yml': 'topolgy:\n  team: x\n' });
    expect(code).toBe(1);
    expect(output).toContain('svc config error: svc.topolgy (svc.yml:1): unknown key "topolgy"; did you mean "topology"?; ignored');
    expect(output).not.toContain('configuration is valid');
  });

  it('warnings alone exit 0, and the last line counts them instead of calling the configuration valid', () => {
    const { code, output } = run([], { 'svc.yml': 'slos:\n  x:\n    operation-name: GET /users/{id}/orders\n    target: 0.99\n' });
    expect(code).toBe(0);
    expect(output).toContain(
      'svc config warning: svc.slos.x.operation-name (svc.yml:3): no operation "GET /users/{id}/orders" under svc.operations; fine if a route or an @AgentOperation has exactly this name, otherwise the SLO never sees a request and reports INSUFFICIENT_DATA forever',
    );
    expect(last(output)).toBe('no errors, 1 warning(s): read them above');
  });

  it('an SLO on a configured operation: either parameter spelling is the operation; other parameter names or a typo get a suggestion', () => {
    const operations = 'operations:\n  GET /orders/{id}:\n    retryable: true\n';
    const slo = (operation: string) => run([], { 'svc.yml': `${operations}slos:\n  x:\n    operation-name: ${operation}\n    target: 0.99\n` }).output;
    expect(slo('GET /orders/:id')).toMatch(/configuration is valid$/);
    expect(slo('GET /orders/{orderId}')).toContain('no operation "GET /orders/{orderId}" under svc.operations; did you mean "GET /orders/{id}"?');
    expect(slo('GET /order/{id}')).toContain('no operation "GET /order/{id}" under svc.operations; did you mean "GET /orders/{id}"?');
  });

  it('an SLO start-up would ignore is an error: LATENCY_P99 without a threshold, a target of 1', () => {
    const noThreshold = run([], { 'svc.yml': 'operations:\n  GET /a:\n    retryable: true\nslos:\n  x:\n    operation-name: GET /a\n    target: 0.99\n    type: LATENCY_P99\n' });
    expect(noThreshold.code).toBe(1);
    expect(noThreshold.output).toContain(
      'svc config error: svc.slos.x (svc.yml:8): LATENCY_P99 needs svc.slos.x.latency-threshold or an expected-latency-p99 under svc.operations for "GET /a"; this SLO is ignored',
    );
    const fromOperation = run([], { 'svc.yml': 'operations:\n  GET /a:\n    expected-latency-p99: 200ms\nslos:\n  x:\n    operation-name: GET /a\n    target: 0.99\n    type: LATENCY_P99\n' });
    expect(fromOperation.code).toBe(0);
    const everyRequest = run([], { 'svc.yml': 'operations:\n  GET /a:\n    retryable: true\nslos:\n  x:\n    operation-name: GET /a\n    target: 1\n' });
    expect(everyRequest.code).toBe(1);
    expect(everyRequest.output).toContain('svc config error: svc.slos.x.target (svc.yml:7): 1 is out of range; accepted: a fraction above 0.0 and below 1.0; ignored, as if not configured');
  });

  it('what keeps the tool server from starting fails the check: an unknown role, a non-loopback host without tokens', () => {
    const roles = run([], {
      'svc.yml': 'mcp:\n  anonymous-role: observr\n  tokens:\n    bot:\n      sha256: c5a2bd3b0e2dfe6a5d15e10f2c4f3b1ad7b0a7e6f3d9b1c2e8f4a6d0b3c5e7f9\n      role: operater\n',
    });
    expect(roles.code).toBe(1);
    expect(roles.output).toContain(
      'svc config error: svc.mcp.tokens.bot.role (svc.yml:6): the role (not shown: values under svc.mcp.tokens are never printed) is not a known role; known roles: observer, diagnostician, operator, admin; did you mean "operator"?; the MCP tool server is not started',
    );
    expect(roles.output).toContain(
      'svc config error: svc.mcp.anonymous-role (svc.yml:2): "observr" is not a known role; known roles: observer, diagnostician, operator, admin; did you mean "observer"?',
    );
    expect(roles.output).not.toContain('operater');

    const custom = run([], { 'svc.yml': 'agent-roles:\n  triager: [READ]\nmcp:\n  anonymous-role: triager\n' });
    expect(custom.code).toBe(0);

    const open = run([], {}, { SVC_MCP_HOST: '0.0.0.0' });
    expect(open.code).toBe(1);
    expect(open.output).toContain(
      'svc config error: svc.mcp.host (SVC_MCP_HOST): 0.0.0.0, not loopback, and no tokens are configured: refusing to serve tools without authentication; configure svc.mcp.tokens.<agent>.sha256/.role or svc.mcp.oauth, or bind 127.0.0.1; the MCP tool server is not started',
    );
  });

  it('like start-up, skips the tool server checks when the tool server is off, and says so', () => {
    const { code, output } = run(['-Dsvc.mcp.enabled=false'], {}, { SVC_MCP_HOST: '0.0.0.0' });
    expect(code).toBe(0);
    expect(output).toContain('note: svc.mcp.enabled is false: the tool server checks are skipped, as start-up skips them');
  });

  it('an approver that is no token agent is a warning', () => {
    const { code, output } = run([], { 'svc.yml': 'mcp:\n  approvers: [alice]\n' });
    expect(code).toBe(0);
    expect(output).toContain('svc config warning: svc.mcp.approvers (svc.yml:2): "alice" is not a token agent under svc.mcp.tokens, so no credential approves as it');
  });

  it('prints the most memory agents can make svc hold, following the limits', () => {
    const total = (output: string) => {
      const match = /memory agents can make svc hold, at most: ([\d.]+) MiB/.exec(output);
      expect(match, output).not.toBeNull();
      return Number(match![1]);
    };
    const defaults = run(['--all']).output;
    expect(defaults).toMatch(/shared sessions +16\.0 MiB {2}limits\.max-session-bytes; the oldest sessions are evicted/);
    expect(defaults).toMatch(/audit trail +[\d.]+ MiB {2}500 entries \(limits\.max-audit-entries\)/);
    const smaller = run(['--all', '-Dsvc.limits.max-session-bytes=1048576']).output;
    expect(smaller).toMatch(/shared sessions +1\.0 MiB/);
    expect(total(defaults) - total(smaller)).toBeCloseTo(15, 0);
  });

  it('names the config file it read, and no file when the default path has none', () => {
    const found = run([], { 'svc.yml': 'topology:\n  team: payments\n' });
    expect(found.lines[0]).toBe(`config file: ${join(found.cwd, 'svc.yml')}`);
    const named = run(['--config', 'custom.yml'], { 'custom.yml': 'topology:\n  team: payments\n' });
    expect(named.lines[0]).toBe(`config file: ${join(named.cwd, 'custom.yml')}`);
    const none = run([]);
    expect(none.lines[0]).toMatch(/^config file: none at .*svc\.yml \(the default path; /);
  });

  it('with svc off, prints nothing about the memory agents can make svc hold (there is no tool server)', () => {
    for (const args of [['-Dsvc.enabled=false'], ['--all', '-Dsvc.enabled=false']]) {
      const { code, output } = run(args);
      expect(code).toBe(0);
      expect(output).toMatch(/^ {2}svc\.enabled +false {2}\(-Dsvc\.enabled\)$/m);
      expect(output).not.toContain('memory agents');
      expect(output).not.toContain('shared sessions');
    }
    const off = run([], { 'svc.yml': 'enabled: false\n' });
    expect(off.output).not.toContain('memory agents');
    expect(run([]).output).toContain('memory agents can make svc hold, at most: ');
  });

  it('with the tool server off, prints nothing about the memory agents can make svc hold (no agent reaches svc)', () => {
    for (const args of [['-Dsvc.mcp.enabled=false'], ['--all', '-Dsvc.mcp.enabled=false']]) {
      const { code, output } = run(args);
      expect(code).toBe(0);
      expect(output).not.toContain('memory agents');
    }
    expect(run([], { 'svc.yml': 'mcp: { enabled: false }\n' }).output).not.toContain('memory agents');
  });

  it('exits 2 on a usage error, 0 with usage on --help', () => {
    expect(run(['--frobnicate']).code).toBe(2);
    expect(run(['--config']).code).toBe(2);
    const help = run(['--help']);
    expect(help.code).toBe(0);
    expect(help.output).toContain('usage: svc check [--all] [--config FILE]');
  });
});
