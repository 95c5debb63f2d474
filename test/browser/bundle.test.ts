/**
 * The built browser SDK (npm run build): the <script> file within its gzip budget with the size the
 * documents state, a global SvcBrowser, and an ESM build whose only imports are OpenTelemetry
 * packages the package depends on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/fixture-app.js';

const script = readFileSync(join(ROOT, 'dist/browser/svc-browser.js'));
const esm = readFileSync(join(ROOT, 'dist/browser/index.js'), 'utf8');
const budgetKb = Number(/GZIP_BUDGET_BYTES = (\d+) \* 1024/.exec(readFileSync(join(ROOT, 'scripts/build-browser.mjs'), 'utf8'))![1]);
const gzippedKb = gzipSync(script, { level: 9 }).length / 1024;

describe('the browser SDK build', () => {
  it(`keeps the <script> file within its budget of ${budgetKb} KB gzipped, as README and docs/browser.md state`, () => {
    expect(gzippedKb).toBeLessThanOrEqual(budgetKb);
    const readme = /is ([\d.]+) KB gzipped/.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    const docs = /\*\*(\d+) KB, ([\d.]+) KB gzipped\*\*/.exec(readFileSync(join(ROOT, 'docs/browser.md'), 'utf8'));
    expect(readFileSync(join(ROOT, 'docs/browser.md'), 'utf8')).toContain(`budget of **${budgetKb} KB gzipped**`);
    // The figures stated are the measured ones, within 5%.
    for (const stated of [Number(readme![1]), Number(docs![2])]) expect(Math.abs(stated - gzippedKb)).toBeLessThanOrEqual(gzippedKb * 0.05);
    expect(Math.abs(Number(docs![1]) - script.length / 1024)).toBeLessThanOrEqual((script.length / 1024) * 0.05);
  });

  it('defines the global SvcBrowser with init, which outside a page warns and returns undefined', () => {
    const warnings: string[] = [];
    const sandbox: Record<string, unknown> = {
      TextEncoder,
      TextDecoder,
      performance,
      setTimeout,
      clearTimeout,
      URL,
      console: { warn: (m: string) => warnings.push(m), error: () => {}, log: () => {} },
    };
    sandbox.globalThis = sandbox;
    runInNewContext(script.toString('utf8'), sandbox);
    const api = sandbox.SvcBrowser as { init: (options: unknown) => unknown; ANOMALY_DEFAULTS: unknown };
    expect(typeof api.init).toBe('function');
    expect(api.ANOMALY_DEFAULTS).toEqual({
      rageClickThreshold: 3,
      rageClickWindowMs: 2000,
      apiFailureCascadeThreshold: 3,
      apiFailureCascadeWindowMs: 10_000,
      slowPageLoadMultiplier: 2,
      errorLoopThreshold: 5,
      errorLoopWindowMs: 30_000,
    });
    expect(api.init({ appName: 'a', collectorEndpoint: 'http://x/v1/traces' })).toBeUndefined();
    expect(warnings).toEqual(['@svc/register/browser: init() needs a browser page; nothing is recorded here']);
  });

  it('leaves only OpenTelemetry packages the package depends on as imports of the ESM build', () => {
    const imports = [...new Set([...esm.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]!))].sort();
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(imports.length).toBeGreaterThanOrEqual(6);
    expect(imports.filter((name) => !name.startsWith('@opentelemetry/') || !(name in manifest.dependencies))).toEqual([]);
  });
});
