/**
 * The real `svc` binary and the real preload, in child processes: `svc --version`; the README's
 * flow-style mistake reported with its line, column, caret and fix; and `svc check` printing
 * exactly the problems start-up prints for the same configuration, so the two cannot disagree.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/fixture-app.js';
import { tempDir } from '../support/temp-dir.js';

const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const QUIET_OTEL = { OTEL_TRACES_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' };

function svc(args: string[], cwd = tempDir(), env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs an app that does nothing under the preload; returns its stderr once it has exited. */
function startUp(cwd: string, env: Record<string, string> = {}): string {
  writeFileSync(join(cwd, 'app.mjs'), '');
  const result = spawnSync(process.execPath, ['--import', join(ROOT, 'register.mjs'), 'app.mjs'], {
    cwd,
    env: { PATH: process.env.PATH, ...QUIET_OTEL, SVC_MCP_PORT: '0', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stderr;
}

/** The problem lines and their detail lines (the YAML line, the caret, the fix), as printed. */
const problemLines = (text: string): string[] => text.split('\n').filter((line) => /^(svc config | {2}\d+ \| | +\| +\^$| {2}fix: | {2}\(\d+ more YAML)/.test(line));

describe('svc, the command', () => {
  it('--version, -V and version print the package version; an unknown command is a usage error', () => {
    for (const flag of ['--version', '-V', 'version']) expect(svc([flag])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    const unknown = svc(['chek']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('svc: unknown command "chek"');
    expect(unknown.stderr).toContain('usage: svc check');
    expect(svc(['--help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('svc --version') });
  });

  it('the flow-style SLO with a "{" in its operation: line, column, the line with a caret, the fix; the fix makes it pass', () => {
    const cwd = tempDir({ 'svc.yml': 'svc:\n  slos: { x: { operation-name: GET /users/{id}/orders, target: 0.99 } }\n' });
    const broken = svc(['check'], cwd);
    expect(broken.code).toBe(1);
    const lines = broken.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('svc config error'));
    expect(lines.slice(at, at + 4)).toEqual([
      'svc config error: svc.config.file (svc.yml:2:43): invalid YAML: Unexpected flow-map-start at node end; the file is not read, so svc is off for this process (svc.enabled=false: no analysis, no MCP tool server; the application and its OpenTelemetry export run on)',
      '  2 |   slos: { x: { operation-name: GET /users/{id}/orders, target: 0.99 } }',
      '    |                                           ^',
      '  fix: a "{" inside a name or value in a flow mapping ({ ... }) or list ([ ... ]) is read as YAML syntax: quote it: operation-name: "GET /users/{id}/orders", or write the mapping in block style (one key per line)',
    ]);
    // The caret is under the "{" of "{id}".
    expect(lines[at + 1]!.indexOf('{id}')).toBe(lines[at + 2]!.indexOf('^'));
    expect(broken.stdout).toMatch(/^ {2}svc\.enabled +false {2}\(svc\.yml not read: svc is off\)$/m);

    writeFileSync(join(cwd, 'svc.yml'), 'svc:\n  slos: { x: { operation-name: "GET /users/{id}/orders", target: 0.99 } }\n');
    const fixed = svc(['check'], cwd);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/^ {2}svc\.slos\.x\.operation-name +"GET \/users\/\{id\}\/orders" {2}\(svc\.yml:2\)$/m);
  });

  it('start-up prints exactly the problems svc check prints, for mistakes of every kind', () => {
    const cwd = tempDir({
      'svc.yml': [
        'svc:',
        '  operations:',
        '    GET /orders/{id}:',
        '      expected-latency-p99: 250ms',
        '      retryabel: true',
        '      profile: read-path',
        '  slos:',
        '    orders:',
        '      operation-name: GET /order/:id',
        '      target: 0.99',
        '    latency:',
        '      operation-name: GET /orders/{id}',
        '      target: 1',
        '  mcp:',
        '    host: 0.0.0.0',
        '    anonymous-role: operater',
        '    approvers: [alice]',
        '',
      ].join('\n'),
    });
    const env = { SVC_TOPOLOGY_TIER: 'gold' };
    const checked = svc(['check'], cwd, env);
    expect(checked.code).toBe(1);
    const fromCheck = problemLines(checked.stdout);
    expect(fromCheck.map((l) => /^svc config (\w+): (\S+)/.exec(l)?.slice(1).join(' '))).toEqual([
      'error svc.operations.[GET',
      'error svc.topology.tier',
      'error svc.slos.latency.target',
      'error svc.slos.latency',
      'warning svc.operations.[GET',
      'warning svc.slos.orders.operation-name',
      'error svc.mcp.anonymous-role',
      'error svc.mcp.host',
      'warning svc.mcp.approvers',
    ]);
    const started = startUp(cwd, env);
    expect(problemLines(started)).toEqual(fromCheck);
    expect(started).not.toContain('MCP tool server listening');
  });

  it('an invalid file at start-up: the same complete message, svc off, the app runs', () => {
    const cwd = tempDir({ 'svc.yml': 'svc:\n  topology:\n    team: [unclosed\n' });
    const checked = svc(['check'], cwd);
    const started = startUp(cwd);
    expect(problemLines(started)).toEqual(problemLines(checked.stdout));
    expect(problemLines(started)).toEqual([
      'svc config error: svc.config.file (svc.yml:3:11): invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]; the file is not read, so svc is off for this process (svc.enabled=false: no analysis, no MCP tool server; the application and its OpenTelemetry export run on)',
      '  3 |     team: [unclosed',
      '    |           ^',
      '  fix: the "[" here starts a flow list that is never closed: add the "]", or, if the "[" belongs to the value, quote it: team: "[unclosed"',
    ]);
    expect(started).not.toContain('MCP tool server listening');
    // A valid file starts the tool server: the difference is the file, nothing else.
    writeFileSync(join(cwd, 'svc.yml'), 'svc:\n  topology:\n    team: "[unclosed"\n');
    expect(startUp(cwd)).toContain('svc: MCP tool server listening at http://127.0.0.1:');
  });
});
