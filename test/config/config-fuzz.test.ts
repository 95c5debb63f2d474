/**
 * Config fuzz (issue 11): 2,000 seeded cases over the three sources. For each, loading the
 * configuration and building what start-up builds from it (metadata, topology, the engine, a
 * few observations) never throws and takes under a second; every problem names a key; every
 * printed line, from the preload or `svc check`, is bounded and free of control characters; no
 * value given under mcp.tokens is printed.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { check } from '../../src/cli/check.js';
import { formatProblem } from '../../src/config/config-source.js';
import { loadConfig } from '../../src/config/load-config.js';
import { startupChecks } from '../../src/config/startup-checks.js';
import { toolServerProblems } from '../../src/mcp/tool-server-config.js';
import { ServiceMetadata } from '../../src/metadata/service-metadata.js';
import { Engine } from '../../src/wiring/service-engine.js';
import { seededRandom } from '../support/random.js';
import { type ConfigCase, randomConfigCase } from '../support/random-config.js';
import { newRegistry } from '../support/registry.js';
import { tempDir } from '../support/temp-dir.js';

const CASES = 2000;
const MAX_CASE_MS = 1000;
const MAX_LINE = 2000;
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

interface Outcome {
  readonly ms: number;
  readonly problems: number;
  readonly failures: string[];
}

/** `withCheck`: also run `svc check` (it loads the configuration again, so a quarter of the cases do). */
function run(testCase: ConfigCase, cwd: string, withCheck: boolean): Outcome {
  const failures: string[] = [];
  const file = join(cwd, 'svc.yml');
  if (testCase.file === undefined) rmSync(file, { force: true });
  else writeFileSync(file, testCase.file);
  const started = performance.now();

  const { config } = loadConfig({ cwd, args: testCase.args, env: testCase.env });
  const metadata = new ServiceMetadata(config, newRegistry());
  metadata.topology();
  const clock = new FakeClock();
  const engine = Engine.fromConfig(config, metadata, { clock });
  engine.createSpanProcessor(metadata);
  for (let i = 0; i < 3; i++) {
    engine.observe('GET /orders/{id}', 20 + i, i === 2);
    engine.observeDependency('orders-db', 5, false);
    clock.advance(1000);
  }
  engine.healthSummary();
  const ms = performance.now() - started;
  const printed: string[] = [];
  if (withCheck) {
    const code = check(testCase.args, testCase.env, cwd, (line) => printed.push(...line.split('\n')));
    const startupErrors = startupChecks(config, new ServiceMetadata(config, newRegistry()).operations, toolServerProblems).problems.filter((p) => p.level === 'error');
    if (code !== (config.errors().length || startupErrors.length ? 1 : 0)) failures.push(`svc check exited ${code}`);
  }

  if (ms > MAX_CASE_MS) failures.push(`took ${Math.round(ms)} ms`);
  for (const problem of config.problems) {
    if (!/^(svc\.|SVC_)/.test(problem.key)) failures.push(`problem without a key: ${formatProblem(problem)}`);
    // A YAML syntax error adds lines (the offending line, a caret, the fix): each is checked.
    printed.push(...formatProblem(problem).split('\n'));
  }
  for (const line of printed) {
    if (line.length > MAX_LINE) failures.push(`line of ${line.length} characters: ${line.slice(0, 120)}`);
    if (UNPRINTABLE.test(line)) failures.push(`control character in: ${JSON.stringify(line.slice(0, 120))}`);
    for (const secret of testCase.secrets) if (line.includes(secret)) failures.push(`token value printed: ${line.slice(0, 200)}`);
  }
  return { ms, problems: config.problems.length, failures };
}

it(`${CASES} random configurations: no throw, under ${MAX_CASE_MS} ms each, every problem keyed, every line bounded and printable, no token printed`, () => {
  const random = seededRandom(20_260_111);
  const cwd = tempDir();
  const failed: string[] = [];
  let slowest = 0;
  let problems = 0;
  const seen = { args: 0, env: 0, file: 0, secrets: 0 };
  for (let i = 0; i < CASES; i++) {
    const testCase = randomConfigCase(random);
    seen.args += testCase.args.length ? 1 : 0;
    seen.env += Object.keys(testCase.env).length ? 1 : 0;
    seen.file += testCase.file === undefined ? 0 : 1;
    seen.secrets += testCase.secrets.length ? 1 : 0;
    try {
      const outcome = run(testCase, cwd, i % 4 === 0);
      slowest = Math.max(slowest, outcome.ms);
      problems += outcome.problems;
      for (const failure of outcome.failures) failed.push(`case ${i}: ${failure}`);
    } catch (error) {
      failed.push(`case ${i} threw: ${(error as Error).stack}`);
    }
  }
  expect(failed.slice(0, 20)).toEqual([]);
  // The cases reach every source and most of them find something wrong.
  expect(seen.args).toBeGreaterThan(CASES / 2);
  expect(seen.env).toBeGreaterThan(CASES / 2);
  expect(seen.file).toBeGreaterThan(CASES / 2);
  expect(seen.secrets).toBeGreaterThan(CASES / 10);
  expect(problems).toBeGreaterThan(CASES * 2);
  console.log(`config fuzz: ${CASES} cases, ${problems} problems, slowest case ${Math.round(slowest)} ms`);
}, 60_000);
