/** Every key of the schema is bounded, and a value past a bound is an error naming the key, the range and what is used. */
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/config/config-source.js';
import { loadConfig } from '../../src/config/load-config.js';
import { envName, isScalarKey, isSecretPath, type KeySpec, SCHEMA } from '../../src/config/schema.js';
import { tempDir } from '../support/temp-dir.js';

const NUMERIC = new Set(['integer', 'number', 'duration', 'window']);
/** Largest delay setTimeout/setInterval take; above it Node uses 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A concrete key for a schema path: a name for `*`, index 0 for `[]`. */
function concrete(spec: KeySpec): string {
  return spec.path.replace(/\*/g, '[some name]').replace(/\[\]/g, '[0]');
}

/** A raw value just past the type's maximum, written as a user would. */
function pastMax(spec: KeySpec): string {
  const max = spec.type.max!;
  if (spec.type.kind === 'duration') return `${max + 1}ms`;
  if (spec.type.kind === 'window') return `${max / 60_000 + 1}m`;
  return String(spec.type.kind === 'integer' ? max + 1 : max * 1.5 + 1);
}

describe('schema bounds', () => {
  it('every numeric key has a finite range, every string and list a maximum size', () => {
    const unbounded = SCHEMA.filter((s) => {
      const { kind, min, max } = s.type;
      if (NUMERIC.has(kind)) return !(Number.isFinite(min) && Number.isFinite(max));
      if (kind === 'string' || kind === 'list') return !Number.isFinite(max);
      return false;
    });
    expect(unbounded.map((s) => s.path)).toEqual([]);
  });

  it('no duration key accepts a delay that overflows a Node timer', () => {
    const durations = SCHEMA.filter((s) => s.type.kind === 'duration');
    expect(durations.length).toBeGreaterThan(10);
    expect(durations.filter((s) => s.type.max! > MAX_TIMER_MS).map((s) => s.path)).toEqual([]);
  });

  it('every default is accepted by its own type', () => {
    for (const spec of SCHEMA.filter((s) => s.default !== undefined)) expect(() => spec.type.parse(spec.default), spec.path).not.toThrow();
  });

  it('a value just past the maximum of each numeric key is refused, naming the key, the range and the value used', () => {
    for (const spec of SCHEMA.filter((s) => NUMERIC.has(s.type.kind))) {
      const scalar = isScalarKey(spec);
      const raw = pastMax(spec);
      const { config } = loadConfig({ cwd: tempDir(), args: scalar ? [] : [`-Dsvc.${concrete(spec)}=${raw}`], env: scalar ? { [envName(spec.path)]: raw } : {} });
      const line = config.problems.map(formatProblem).find((l) => l.startsWith(`svc config error: svc.${concrete(spec)} (`));
      const used = spec.path.includes('*') ? 'ignored, as if not configured' : spec.default === undefined ? 'left unset' : `using the default ${JSON.stringify(spec.default)}`;
      expect(line, spec.path).toMatch(/ is out of range; accepted: /);
      expect(line, spec.path).toContain(`; accepted: ${spec.type.accepts}; ${used}`);
    }
  });

  it('a string one character over its maximum is refused, never cut', () => {
    for (const spec of SCHEMA.filter((s) => s.type.kind === 'string')) {
      const scalar = isScalarKey(spec);
      const raw = 'x'.repeat(spec.type.max! + 1);
      const { config } = loadConfig({ cwd: tempDir(), args: scalar ? [] : [`-Dsvc.${concrete(spec)}=${raw}`], env: scalar ? { [envName(spec.path)]: raw } : {} });
      const line = config.problems.map(formatProblem).find((l) => l.startsWith(`svc config error: svc.${concrete(spec)} (`));
      const shown = isSecretPath(spec.path) ? 'the value (not shown: values under svc.mcp.tokens are never printed)' : `(${spec.type.max! + 1} characters, cut)`;
      expect(line, spec.path).toContain(`${shown} is longer than ${spec.type.max} characters; accepted: ${spec.type.accepts}`);
      expect(spec.type.accepts).toMatch(new RegExp(`^a (non-empty )?string of at most ${spec.type.max} characters$`));
    }
  });
});
