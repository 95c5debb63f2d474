/**
 * svc.yml.example is generated from the schema, stays in sync, and is itself a valid config; it
 * and the README's example pass `svc check`, and survive being pasted into a flow mapping.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { check } from '../../src/cli/check.js';
import { specOf } from '../../src/config/config-key.js';
import { renderExampleConfig } from '../../src/config/example-file.js';
import { parseConfigText } from '../../src/config/file-source.js';
import { ResolvedConfig } from '../../src/config/resolved-config.js';
import { SCHEMA } from '../../src/config/schema.js';
import { ROOT } from '../support/fixture-app.js';
import { tempDir } from '../support/temp-dir.js';

const committed = readFileSync(join(ROOT, 'svc.yml.example'), 'utf8');

/** The svc.yml block of the README's "Add it to your service", unindented. */
function readmeExample(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const lines = readme.slice(readme.indexOf('2.  Describe the service')).split('\n');
  const start = lines.findIndex((l) => l.trim() === 'svc:');
  const end = lines.findIndex((l, i) => i > start && l.trim() !== '' && !l.startsWith(' '.repeat(9)));
  const indent = lines[start]!.indexOf('svc:');
  return `${lines
    .slice(start, end)
    .map((l) => l.slice(indent))
    .join('\n')
    .trim()}\n`;
}

function svcCheck(text: string): { code: number; output: string } {
  const out: string[] = [];
  const code = check([], {}, tempDir({ 'svc.yml': text }), (line) => out.push(line));
  return { code, output: out.join('\n') };
}

/**
 * Lines with a `{` or `}` outside quotes and comments: a flow mapping, or a name that breaks when
 * pasted into one (the README's old `slos: { x: { operation-name: GET /users/{id}/orders } }`).
 */
function unquotedBraces(text: string): string[] {
  return text.split('\n').filter((line) => /[{}]/.test(line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'/g, '').replace(/(^|\s)#.*$/, '')));
}

describe('svc.yml.example', () => {
  it('equals what the schema renders (regenerate: node dist/config/example-file.js > svc.yml.example)', () => {
    expect(committed).toBe(renderExampleConfig());
  });

  it('parses without a problem and sets every key a file can hold', () => {
    const read = parseConfigText(committed, 'svc.yml.example');
    const config = new ResolvedConfig([read.entries]);
    expect([...read.problems, ...config.problems]).toEqual([]);
    const covered = new Set(read.entries.map((e) => specOf(e.segments).path));
    expect(SCHEMA.map((s) => s.path).filter((path) => !covered.has(path))).toEqual(['config.file']);
  });

  it('passes svc check, and has no brace outside quotes (block style, quoted names)', () => {
    expect(svcCheck(committed)).toMatchObject({ code: 0, output: expect.stringMatching(/configuration is valid$/) });
    expect(committed).toContain('    "GET /orders/{id}":\n');
    expect(unquotedBraces(committed)).toEqual([]);
  });
});

describe("the README's svc.yml", () => {
  it('is block style with quoted names, and passes svc check once the token digest is filled in', () => {
    const example = readmeExample();
    expect(example).toMatch(/^svc:\n {2}topology:\n/);
    expect(unquotedBraces(example)).toEqual([]);
    expect(example).toContain('"GET /orders/{id}":');
    const result = svcCheck(example.replace('<sha256 of the token>', 'c5a2bd3b0e2dfe6a5d15e10f2c4f3b1ad7b0a7e6f3d9b1c2e8f4a6d0b3c5e7f9'));
    expect(result.output).toMatch(/configuration is valid$/);
    expect(result.code).toBe(0);
    // As written, the placeholder is caught: the tool server would not start.
    expect(svcCheck(example).code).toBe(1);
  });

  it('the check catches the old flow style and unquoted names with braces, not quoted ones', () => {
    expect(unquotedBraces('slos: { x: { operation-name: GET /users/{id}/orders, target: 0.99 } }')).toHaveLength(1);
    expect(unquotedBraces('  GET /orders/{id}:')).toHaveLength(1);
    expect(unquotedBraces('  "GET /orders/{id}":  # a {comment}')).toEqual([]);
  });
});
