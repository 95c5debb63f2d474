/** svc.yml.example is generated from the schema, stays in sync, and is itself a valid config. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { specOf } from '../../src/config/config-key.js';
import { renderExampleConfig } from '../../src/config/example-file.js';
import { parseConfigText } from '../../src/config/file-source.js';
import { ResolvedConfig } from '../../src/config/resolved-config.js';
import { SCHEMA } from '../../src/config/schema.js';
import { ROOT } from '../support/fixture-app.js';

const committed = readFileSync(join(ROOT, 'svc.yml.example'), 'utf8');

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
});
