/** The demo is an end-to-end test: its shortened variant must reach a passing verdict. */
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { ROOT } from './support/fixture-app.js';

it('npm run demo (shortened): incident found, cause named, action taken, effect verified', () => {
  const run = spawnSync(process.execPath, ['demo/run.mjs', '--short'], { cwd: ROOT, encoding: 'utf8', timeout: 175_000 });
  const output = run.stdout + run.stderr;
  expect(output).toContain('PASS  incident found: INC-');
  expect(output).toMatch(/PASS {2}cause named: feature flag new_stock_check enabled/);
  expect(output).toContain('PASS  action taken: rollback_new_stock_check');
  expect(output).toContain('PASS  effect verified: YES');
  expect(output).toContain('4 passed, 0 failed');
  expect(run.status).toBe(0);
}, 180_000);
