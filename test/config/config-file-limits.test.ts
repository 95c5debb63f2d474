/** The config file: bounded in size, read only when it is a regular file, parsed without harm whatever it holds. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/config/config-source.js';
import { SVC_OFF } from '../../src/config/file-source.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { ResolvedConfig } from '../../src/config/resolved-config.js';
import { tempDir } from '../support/temp-dir.js';

function load(files: Record<string, string>, args: string[] = [], env: Record<string, string> = {}) {
  return loadConfig({ cwd: tempDir(files), args, env }).config;
}

function lines(config: ResolvedConfig): string[] {
  return config.problems.map(formatProblem);
}

describe('the config file', () => {
  it('larger than 256 KiB is refused without being parsed', () => {
    const config = load({ 'svc.yml': `topology:\n  team: "${'x'.repeat(256 * 1024)}"\n` });
    expect(lines(config)).toEqual([`svc config error: svc.config.file (svc.yml): larger than 256 KiB; ${SVC_OFF}`]);
    expect(config.get('enabled')).toBe(false);
  });

  it('that is not a regular file (a FIFO, /dev/zero) is refused without being read', () => {
    const config = load({}, [], { SVC_CONFIG_FILE: '/dev/zero' });
    expect(lines(config)).toEqual([`svc config error: svc.config.file (/dev/zero): not a regular file; ${SVC_OFF}`]);
    // Opening a FIFO without a writer would block start-up forever.
    const fifo = join(tempDir({}), 'svc.yml');
    execFileSync('mkfifo', [fifo]);
    const fromFifo = load({}, [], { SVC_CONFIG_FILE: fifo });
    expect(lines(fromFifo)).toEqual([`svc config error: svc.config.file (${fifo}): not a regular file; ${SVC_OFF}`]);
  });

  it('of 256 KiB of "{" (an OOM abort when errors were pretty-printed) is reported as invalid YAML, in bounded lines', () => {
    const config = load({ 'svc.yml': '{'.repeat(256 * 1024) });
    const [first, excerpt, caret, fix] = lines(config)[0]!.split('\n');
    expect(first).toMatch(/^svc config error: svc\.config\.file \(svc\.yml:1:\d+\): invalid YAML: /);
    // The line is cut around the column, the caret under it; the fix does not quote a value that long.
    expect(excerpt).toMatch(/^ {2}1 \| …?\{{50,100}…$/);
    expect(caret).toMatch(/^ {4}\| +\^$/);
    expect(caret!.indexOf('^')).toBeLessThan(excerpt!.length);
    expect(fix).toMatch(/^ {2}fix: /);
    expect(fix).not.toContain('{{{');
  });

  it('a YAML syntax error that would quote a token prints only its code, and not the line', () => {
    const config = load({ 'svc.yml': 'mcp:\n  tokens:\n    bot:\n      sha256: |ghp_s3cr3tT0ken\n        x\n' });
    expect(lines(config)[0]!.split('\n').slice(0, 2)).toEqual([
      `svc config error: svc.config.file (svc.yml:4:16): invalid YAML: unexpected token; ${SVC_OFF}`,
      '  4 | (not shown: it is under svc.mcp.tokens, which is never printed)',
    ]);
    expect(lines(config).join('\n')).not.toContain('s3cr3t');
  });

  it('nested mapping keys are ignored unprinted (printing `? ` x 30, 60 bytes, took 9 s, doubling per level)', () => {
    const config = load({ 'svc.yml': '? '.repeat(30) });
    expect(lines(config)).toEqual(['svc config error: svc.config.file (svc.yml:1): a key that is a mapping or a list; ignored']);
  });

  it('an alias bomb is not expanded; an alias to a scalar reads as the scalar; top-level x- keys hold anchors unreported', () => {
    let text = 'x-a0: &a0 [x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 9; i++)
      text += `x-a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(', ')}]\n`;
    const config = load({ 'svc.yml': `${text}topology:\n  team: &t payments\n  domain: *t\nmcp:\n  approvers: *a8\n` });
    expect(config.get('topology.domain')).toBe('payments');
    expect(config.errors().map((p) => p.key)).toEqual(['svc.mcp.approvers']);
  });
});
