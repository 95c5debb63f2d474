/**
 * Issue 11: no configuration value can harm the host. One test per value seen to do harm in a
 * real process, each asserting the clear error and the default used, then what start-up builds
 * from that configuration (metadata, the engine) running on the default. A token pasted as a
 * value: secret-values.test.ts; the file itself: config-file-limits.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { formatProblem } from '../../src/config/config-source.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { ResolvedConfig } from '../../src/config/resolved-config.js';
import { ServiceMetadata } from '../../src/metadata/service-metadata.js';
import { Engine } from '../../src/wiring/service-engine.js';
import { newRegistry } from '../support/registry.js';
import { tempDir } from '../support/temp-dir.js';

function load(files: Record<string, string>, args: string[] = [], env: Record<string, string> = {}) {
  return loadConfig({ cwd: tempDir(files), args, env }).config;
}

function lines(config: ResolvedConfig): string[] {
  return config.problems.map(formatProblem);
}

function engineOf(config: ResolvedConfig) {
  const metadata = new ServiceMetadata(config, newRegistry());
  const clock = new FakeClock();
  return { engine: Engine.fromConfig(config, metadata, { clock }), clock, metadata };
}

const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

describe('values seen to harm a real process', () => {
  it('SVC_LIMITS_HISTORY_MINUTES=5000000 (aborted at the 5th operation): refused, 60 minutes per operation', () => {
    const config = load({}, [], { SVC_LIMITS_HISTORY_MINUTES: '5000000' });
    expect(lines(config)).toEqual(['svc config error: svc.limits.history-minutes (SVC_LIMITS_HISTORY_MINUTES): 5000000 is out of range; accepted: an integer from 60 to 1440; using the default 60']);
    const { engine } = engineOf(config);
    for (let i = 0; i < 10; i++) engine.observe(`GET /op/${i}`, 5, false);
    expect(engine.health.historyFor('GET /op/9')?.minutes).toBe(60);
  });

  it('baselines.rolling-window-size: 2147483648 (85 ms per request, analysis off): refused, a 1000-observation window that forms a baseline', () => {
    const config = load({ 'svc.yml': 'svc:\n  baselines:\n    rolling-window-size: 2147483648\n' });
    expect(lines(config)).toEqual(['svc config error: svc.baselines.rolling-window-size (svc.yml:3): 2147483648 is out of range; accepted: an integer from 1 to 10000; using the default 1000']);
    const { engine, clock } = engineOf(config);
    for (let i = 0; i < 20; i++) {
      engine.observe('GET /a', 10 + (i % 3), false);
      clock.advance(1000);
    }
    expect(engine.rollingBaselines.windowFor('GET /a')?.capacity).toBe(1000);
    expect(engine.rollingBaselines.getSnapshot('GET /a')).toMatchObject({ sampleCount: 20, p50: 11 });
  });

  it('patterns.heap-sample-interval: 9999999m (a 1 ms timer loop): refused, 2 s; no duration key accepts a delay a Node timer overflows on', () => {
    const config = load({}, ['-Dsvc.patterns.heap-sample-interval=9999999m']);
    expect(lines(config)).toEqual([
      'svc config error: svc.patterns.heap-sample-interval (-Dsvc.patterns.heap-sample-interval): "9999999m" is out of range; accepted: a duration from 1s to 10m with suffix ms, s or m (for example 250ms, 1.5s, 2m); using the default "2s"',
    ]);
    expect(config.get('patterns.heap-sample-interval')).toBe(2_000);
  });

  it('-Dsvc.dependencies[1000000000].name=x (start-up blocked for minutes): refused against limits.max-dependencies before anything is built', () => {
    const started = performance.now();
    const config = load({}, ['-Dsvc.dependencies[1000000000].name=x', '-Dsvc.dependencies[1000000000].type=cache', '-Dsvc.consumers[5].name=web', '-Dsvc.limits.max-consumers=5']);
    const { metadata } = engineOf(config);
    expect(metadata.topology().registry.dependencies()).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(lines(config)).toEqual([
      'svc config error: svc.dependencies[1000000000].name (-Dsvc.dependencies[1000000000].name): list index 1000000000 is not below svc.limits.max-dependencies (200); accepted: indexes 0 to 199; ignored (and 1 more value(s) at such indexes)',
      'svc config error: svc.consumers[5].name (-Dsvc.consumers[5].name): list index 5 is not below svc.limits.max-consumers (5); accepted: indexes 0 to 4; ignored',
    ]);
    expect(config.listLength('dependencies')).toBe(0);
  });

  it('an index just below the cap is kept; a negative or non-numeric one is not an index', () => {
    const config = load({}, [
      '-Dsvc.limits.max-dependencies=3',
      '-Dsvc.dependencies[2].name=db',
      '-Dsvc.dependencies[2].type=cache',
      '-Dsvc.dependencies[2].criticality=optional',
      '-Dsvc.dependencies[-1].name=x',
      '-Dsvc.dependencies[1e9].name=x',
    ]);
    expect(config.member('dependencies', 2, 'name')?.value).toBe('db');
    expect(lines(config)).toEqual([
      'svc config error: svc.dependencies[-1].name (-Dsvc.dependencies[-1].name): "-1" is not a list index; write a whole number from 0, as in [0]; ignored',
      'svc config error: svc.dependencies[1e9].name (-Dsvc.dependencies[1e9].name): "1e9" is not a list index; write a whole number from 0, as in [0]; ignored',
    ]);
  });

  it('a YAML list longer than its cap keeps the first items, one error for the rest', () => {
    const items = Array.from({ length: 250 }, (_, i) => `  - { name: d${i}, type: cache, criticality: optional }`).join('\n');
    const config = load({ 'svc.yml': `dependencies:\n${items}\n` });
    expect(lines(config)).toEqual([
      'svc config error: svc.dependencies[200].name (svc.yml:202): list index 200 is not below svc.limits.max-dependencies (200); accepted: indexes 0 to 199; ignored (and 149 more value(s) at such indexes)',
    ]);
    expect(engineOf(config).metadata.topology().registry.dependencies()).toHaveLength(200);
  });

  it('a 1 MB value with escape codes: refused as too long, printed cut to 200 characters and escaped', () => {
    const value = `\u001b[2J\r${'a'.repeat(1 << 20)}`;
    const config = load({}, [], { SVC_TOPOLOGY_TEAM: value });
    const [line] = lines(config);
    expect(line).toBe(
      `svc config error: svc.topology.team (SVC_TOPOLOGY_TEAM): "\\x1b[2J\\r${'a'.repeat(191)}…" (${value.length} characters, cut) is longer than 1024 characters; accepted: a string of at most 1024 characters; using the default ""`,
    );
    expect(line).not.toMatch(UNPRINTABLE);
    expect(config.get('topology.team')).toBe('');
  });
});

describe('rules between keys', () => {
  it('rolling-min-samples above the window size would never form a baseline: the smaller of the default and the window is used', () => {
    const config = load({ 'svc.yml': 'baselines:\n  rolling-window-size: 8\n  rolling-min-samples: 50\n' });
    expect(lines(config)).toEqual([
      'svc config error: svc.baselines.rolling-min-samples (svc.yml:3): 50 is more than svc.baselines.rolling-window-size (8), so no rolling baseline would ever form; accepted here: an integer from 1 to 8; using 8',
    ]);
    const { engine } = engineOf(config);
    for (let i = 0; i < 8; i++) engine.observe('GET /a', 10, false);
    expect(engine.rollingBaselines.getSnapshot('GET /a')).toBeDefined();
  });

  it('dependency-health.min-calls is calls within the time window, which holds any number: no cap from a count window', () => {
    const config = load({}, [], { SVC_DEPENDENCY_HEALTH_MIN_CALLS: '30' });
    expect(lines(config)).toEqual([]);
    expect(config.get('dependency-health.min-calls')).toBe(30);
  });

  it('windows and history so large that max-operations of them pass 256 MiB: fewer operations are tracked, and the line says how many', () => {
    const config = load({}, ['-Dsvc.baselines.rolling-window-size=10000', '-Dsvc.limits.history-minutes=1440']);
    expect(lines(config)).toEqual([
      'svc config error: svc.limits.max-operations (default): 1000 operations may hold up to 850.8 MiB of analysis state (871.2 KiB each with svc.baselines.rolling-window-size 10000, svc.limits.history-minutes 1440), more than the 256.0 MiB svc allows itself; accepted with these sizes: an integer from 1 to 300; using 300',
    ]);
    expect(config.get('limits.max-operations')).toBe(300);
    expect(load({}).problems).toEqual([]);
  });
});
