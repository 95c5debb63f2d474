/**
 * What a health read leaves in the old generation. A read makes a record per operation and keeps
 * them all until the tool has answered, so young collections find them alive; V8 then allocates
 * an object literal's later objects straight in the old generation (allocation-site pretenuring),
 * where only a full collection reclaims them. The records are classes, which have no allocation
 * site (src/analysis/health-aggregator.ts, minute-history.ts, rolling-baseline-provider.ts).
 *
 * Measured in a fresh process with the built engine (dist/), 500 operations, past the warm-up,
 * and a young generation of 1 MB: V8 pretenures only once its young generation is at its maximum
 * size, which a serving app's reaches after some minutes of traffic and this one at once. With
 * the records as literals (the build before 2026-11-27) an idle read left 148 KB there and a busy
 * one 256 KB; the bench app under an agent polling get_service_health, 141 and 240 KB a call.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { ROOT } from '../support/fixture-app.js';

type Mode = 'idle' | 'busy';

/** The old generation's growth per health read (median over reads without a full collection) after 3,000 reads. */
function oldGenerationPerRead(mode: Mode): number {
  const script = `
    import v8 from 'node:v8';
    import { PerformanceObserver } from 'node:perf_hooks';
    const { AnalysisEngine } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/analysis/analysis-engine.js')).href)});
    let now = 1_800_000_000_000;
    const engine = new AnalysisEngine({ clock: { now: () => now } });
    const names = Array.from({ length: 500 }, (_, i) => 'GET /items-' + i + '/{id}');
    for (const name of names) for (let r = 0; r < 40; r++) engine.observe(name, 5 + ((r * 7) % 30), r % 20 === 0);
    now += 31_000;
    const full = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.detail.kind !== 1) full.push(e); }).observe({ entryTypes: ['gc'] });
    const oldSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size;
    let shown = 0;
    const read = () => {
      // A second between reads, as an agent polls: learned baselines and cold starts are read afresh.
      now += 1000;
      if (${mode === 'busy'}) for (const name of names) engine.observe(name, 5 + Math.random() * 30, Math.random() < 0.05);
      for (const op of [...engine.healthSummary().operations].sort((a, b) => b.p99 - a.p99)) shown += (op.operation + ' ' + op.p50.toFixed(1) + ' ' + op.errorRate).length;
    };
    for (let i = 0; i < 3000; i++) read();
    const growth = [];
    for (let i = 0; i < 300; i++) {
      const collections = full.length;
      const before = oldSpace();
      read();
      const grown = oldSpace() - before;
      // The observer hears of a collection on a later task: a read with a full collection inside is left out.
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (full.length === collections && grown >= 0) growth.push(grown);
    }
    growth.sort((a, b) => a - b);
    console.log(JSON.stringify({ perRead: growth[growth.length >> 1], reads: growth.length, shown: shown > 0 }));
  `;
  const out = execFileSync(process.execPath, ['--max-semi-space-size=1', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  const { perRead, reads, shown } = JSON.parse(out.trim().split('\n').at(-1)!) as { perRead: number; reads: number; shown: boolean };
  expect(shown).toBe(true);
  expect(reads).toBeGreaterThan(100);
  return perRead;
}

it('leaves nothing of an idle read and under 16 KB of a busy one in the old generation, a second between reads', () => {
  expect(oldGenerationPerRead('idle')).toBeLessThan(1024);
  // A busy read keeps each operation's new summary until the next one: promoted when it outlives two young collections
  // (about 17 bytes an operation); a record pretenured per operation and second would be 80 KB and more.
  expect(oldGenerationPerRead('busy')).toBeLessThan(16 * 1024);
}, 120_000);
