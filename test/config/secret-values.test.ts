/** Nothing given under mcp.tokens is printed back, whatever its source: a raw token may be pasted there. */
import { describe, expect, it } from 'vitest';
import { check } from '../../src/cli/check.js';
import { formatProblem } from '../../src/config/config-source.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { ResolvedConfig } from '../../src/config/resolved-config.js';
import { seededRandom } from '../support/random.js';
import { tempDir } from '../support/temp-dir.js';

function load(files: Record<string, string>, args: string[] = [], env: Record<string, string> = {}) {
  return loadConfig({ cwd: tempDir(files), args, env }).config;
}

function lines(config: ResolvedConfig): string[] {
  return config.problems.map(formatProblem);
}

describe('values under mcp.tokens', () => {
  it('a token pasted as a -D value is never printed back, by the preload or by svc check', () => {
    const secret = 'ghp_s3cr3tT0kenPastedByMistake';
    const args = [`-Dsvc.mcp.tokens.bot.sha256=${secret}`, `-Dsvc.mcp.tokens.bot.role=${secret}`, `-Dsvc.mcp.tokens.bot.sha256:${secret}`, `-Dsvc.mcp.tokens.bot.sha256x=${secret}`];
    const config = load({ 'svc.yml': `mcp:\n  tokens:\n    other:\n      sha256: ${secret}\n      role: [${secret}]\n` }, args);
    const printed = lines(config);
    expect(printed.join('\n')).not.toContain(secret);
    expect(printed).toContain(
      'svc config error: svc.mcp.tokens.bot.sha256 (-Dsvc.mcp.tokens.bot.sha256): the value (not shown: values under svc.mcp.tokens are never printed) is not a SHA-256 hex digest; accepted: a SHA-256 hex digest (64 hex characters); ignored, as if not configured',
    );
    const out: string[] = [];
    expect(check(args, {}, tempDir(), (line) => out.push(line))).toBe(1);
    expect(out.join('\n')).not.toContain(secret);
  });

  it('svc check hides the values under mcp.tokens, even valid ones', () => {
    const digest = 'c5a2bd3b0e2dfe6a5d15e10f2c4f3b1ad7b0a7e6f3d9b1c2e8f4a6d0b3c5e7f9';
    const out: string[] = [];
    expect(check([`-Dsvc.mcp.tokens.ci.sha256=${digest}`, '-Dsvc.mcp.tokens.ci.role=operator'], {}, tempDir(), (line) => out.push(line))).toBe(0);
    expect(out).toContainEqual(expect.stringMatching(/^ {2}svc\.mcp\.tokens\.ci\.sha256 +\(hidden\) {2}\(-Dsvc\.mcp\.tokens\.ci\.sha256\)$/));
    expect(out).toContainEqual(expect.stringMatching(/^ {2}svc\.mcp\.tokens\.ci\.role +\(hidden\) {2}\(-Dsvc\.mcp\.tokens\.ci\.role\)$/));
    expect(out.join('\n')).not.toContain(digest);
  });

  it('a YAML syntax error never shows a line with or under a token, however the file is broken (2,000 seeded cases)', () => {
    const random = seededRandom(20_261_306);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const damage = ['{', '[', '"', "'", '\t', ': ', ' #', '@', '\n', '\n  ', '\n      ', '}', ']', ', ', '- ', '&', '*', '|', '>'];
    let invalid = 0;
    for (let i = 0; i < 2000; i++) {
      const secrets = [`SECRET${i}a${Math.floor(random() * 1e9)}tok`, `SECRET${i}b${Math.floor(random() * 1e9)}tok`];
      const tokens = pick([
        `  tokens:\n    bot:\n      sha256: ${secrets[0]}\n      role: ${secrets[1]}\n`,
        `  tokens: { bot: { sha256: ${secrets[0]}, role: ${secrets[1]} } }\n`,
        `  tokens:\n    bot: { sha256: "${secrets[0]}", role: '${secrets[1]}' }\n`,
      ]);
      let text = `svc:\n  topology:\n    team: payments\n  mcp:\n    port: 0\n  ${tokens.replace(/\n(?!$)/g, '\n  ')}  slos:\n    x:\n      operation-name: GET /a\n      target: 0.99\n`;
      for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
        const at = Math.floor(random() * (text.length + 1));
        text = text.slice(0, at) + pick(damage) + text.slice(at);
      }
      const config = load({ 'svc.yml': text });
      const syntax = config.problems.filter((p) => p.message.startsWith('invalid YAML'));
      if (syntax.length === 0) continue;
      invalid++;
      const printed = syntax.map(formatProblem).join('\n');
      for (const secret of secrets) expect(printed, `case ${i}:\n${text}`).not.toContain(secret);
    }
    // Most damage breaks the YAML, and the excerpt is shown for the lines outside the tokens.
    expect(invalid).toBeGreaterThan(1000);
  });
});
