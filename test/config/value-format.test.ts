/**
 * Each value type writes its values back in the syntax the file accepts (`svc check` prints
 * them so): for every key of the schema, random values that parse are formatted, read as a YAML
 * value, and parsed again to the same value; durations are never bare milliseconds.
 */

import { expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { SCHEMA } from '../../src/config/schema.js';
import { formatDuration, plainDecimal, ValueError, yamlString } from '../../src/config/value-types.js';
import { seededRandom } from '../support/random.js';

const random = seededRandom(20_261_305);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const AWKWARD = [
  '',
  'true',
  'False',
  'null',
  '~',
  '1.0',
  '0x1F',
  '1e3',
  '.inf',
  '- x',
  '? x',
  'a: b',
  'a #b',
  '{id}',
  'GET /orders/{id}',
  '[x]',
  'a, b',
  '"q"',
  "it's",
  '@x',
  '`x`',
  ' lead',
  'trail ',
  '*x',
  '&x',
  '!x',
  '%x',
  'naïve',
  'x\\y',
];

/** A raw value a user could write for this kind, valid or not: the type decides. */
function rawFor(kind: string, min = 0, max = 1): unknown {
  const span = max - min;
  const decimals = pick([0, 0, 1, 3, 7]);
  const number = Number((min + random() * span).toFixed(decimals));
  switch (kind) {
    case 'duration': {
      const unit = pick(['ms', 's', 'm']);
      const ms = pick([min, max, number, 1e-7, 0.5, 1500, 90_000]);
      const value = ms / { ms: 1, s: 1000, m: 60_000 }[unit]!;
      return `${plainDecimal(Number(value.toFixed(pick([0, 2, 6]))))}${unit}`;
    }
    case 'window':
      return `${pick([1, 1.5, 36, 90, 365, 8760, 0.25])}${pick(['m', 'h', 'd'])}`;
    case 'integer':
      return pick([min, max, Math.round(number)]);
    case 'number':
      return pick([min, max, number, 1e-7, -1]);
    case 'boolean':
      return pick([true, false, 'TRUE', 'false']);
    case 'string':
      return pick([...AWKWARD, `${pick(AWKWARD)}${pick(AWKWARD)}`]);
    case 'list':
      return Array.from({ length: Math.floor(random() * 4) }, () => pick(['READ', 'DIAGNOSE', 'REMEDIATE', 'ADMIN', 'alice', 'bob, jr', '{x}', 'true']));
    case 'digest':
      return 'C5A2BD3B0E2DFE6A5D15E10F2C4F3B1AD7B0A7E6F3D9B1C2E8F4A6D0B3C5E7F9';
    default:
      return pick(['critical', 'STANDARD', 'rest_api', 'sync', 'AVAILABILITY', 'latency_p99', 'page_oncall', 'rolling', 'single']);
  }
}

it('every value of every key reads back from what format writes', () => {
  let checked = 0;
  const failures: string[] = [];
  for (const spec of SCHEMA) {
    for (let i = 0; i < 60; i++) {
      let value: unknown;
      try {
        value = spec.type.parse(rawFor(spec.type.kind, spec.type.min, spec.type.max));
      } catch (error) {
        if (error instanceof ValueError) continue;
        throw error;
      }
      const text = spec.type.format(value);
      let back: unknown;
      try {
        back = spec.type.parse(parseYaml(text));
      } catch (error) {
        back = `threw ${(error as Error).message}`;
      }
      if (JSON.stringify(back) !== JSON.stringify(value)) failures.push(`${spec.path}: ${JSON.stringify(value)} -> ${text} -> ${JSON.stringify(back)}`);
      checked++;
    }
  }
  expect(failures.slice(0, 10)).toEqual([]);
  expect(checked).toBeGreaterThan(3000);
});

it('durations take the largest unit that divides them, windows likewise; never an exponent', () => {
  expect([30_000, 900_000, 1500, 500, 0, 0.5, 1e-7, 7_200_000].map(formatDuration)).toEqual(['30s', '15m', '1500ms', '500ms', '0ms', '0.5ms', '0.0000001ms', '120m']);
  const window = SCHEMA.find((s) => s.path === 'slos.*.window')!.type;
  expect([30 * 86_400_000, 36 * 3_600_000, 90 * 60_000].map((ms) => window.format(ms))).toEqual(['30d', '36h', '90m']);
  expect(plainDecimal(1.5e-10)).toBe('0.00000000015');
});

it('strings are plain when YAML reads them back as themselves, else quoted', () => {
  expect(['payments', 'GET /orders/{id}', 'true', '1.0', '', 'a: b', '0.0.0.0', 'naïve'].map(yamlString)).toEqual([
    'payments',
    '"GET /orders/{id}"',
    '"true"',
    '"1.0"',
    '""',
    '"a: b"',
    '0.0.0.0',
    'naïve',
  ]);
});
