/**
 * What a fresh Node process's young-generation collections (scavenges) promote to the old
 * generation, read from V8's `--trace-gc-nvp` lines: bytes that only a full collection reclaims.
 */
import { execFileSync } from 'node:child_process';
import { expect } from 'vitest';
import { ROOT } from './fixture-app.js';

/** Bytes promoted and collections counted in `--trace-gc-nvp` output. */
export function promotedIn(trace: string): { promotedBytes: number; scavenges: number } {
  const scavenges = [...trace.matchAll(/gc=s .*?promoted=(\d+)/g)];
  return { promotedBytes: scavenges.reduce((sum, [, bytes]) => sum + Number(bytes), 0), scavenges: scavenges.length };
}

/**
 * Runs the ES module `script` in a fresh Node process (working directory the repository) and
 * returns what it printed from its `LOOP` line on, with what the young collections promoted from there.
 */
export function promotedAfterLoop(script: string): { loop: string; promotedBytes: number; scavenges: number } {
  const out = execFileSync(process.execPath, ['--trace-gc-nvp', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 50_000 });
  const loop = out.slice(out.indexOf('LOOP'));
  return { loop, ...promotedIn(loop) };
}

/** Bytes promoted per request (or call) and the young collections they were measured over. */
export interface Promoted {
  readonly perRequest: number;
  readonly scavenges: number;
}

/**
 * That `ours` keeps each request's objects young where `theirs`, the code it replaces or works
 * around, does not: both measured over young collections (figures of none would say nothing),
 * theirs promoting more than `theirsAbove` bytes a request (else `premise`: the workaround may go),
 * ours less than `oursBelow` and than a `factor`th of theirs.
 */
export function expectPromotesLess(ours: Promoted, theirs: Promoted, limits: { theirsAbove: number; oursBelow: number; factor: number; premise: string }): void {
  expect(ours.scavenges).toBeGreaterThan(0);
  expect(theirs.scavenges).toBeGreaterThan(0);
  expect(theirs.perRequest, limits.premise).toBeGreaterThan(limits.theirsAbove);
  expect(ours.perRequest).toBeLessThan(limits.oursBelow);
  expect(ours.perRequest).toBeLessThan(theirs.perRequest / limits.factor);
}
