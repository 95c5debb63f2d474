/**
 * Builds the browser SDK (src/browser/) into dist/browser/:
 * - index.js: ESM for bundlers, OpenTelemetry packages left as imports (the app's bundler
 *   resolves them once, shared with any other OpenTelemetry code of the app);
 * - svc-browser.js: one minified file for a <script> tag, global `SvcBrowser`, everything inside;
 * - types/: declarations (tsc -p src/browser, run by the build script before this).
 *
 * Fails the build when the script-tag file exceeds its gzipped budget (docs/browser.md says why
 * this budget), or when any OpenTelemetry 2.x package ended up in it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** Gzipped bytes the script-tag file may have. */
export const GZIP_BUDGET_BYTES = 40 * 1024;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'src/browser/index.ts');
const out = join(root, 'dist/browser');
const common = { entryPoints: [entry], bundle: true, platform: 'browser', target: 'es2020', legalComments: 'none', logLevel: 'warning' };

await build({ ...common, format: 'esm', outfile: join(out, 'index.js'), external: ['@opentelemetry/*'] });
const iife = await build({ ...common, format: 'iife', globalName: 'SvcBrowser', outfile: join(out, 'svc-browser.js'), minify: true, metafile: true });

// Every OpenTelemetry package in the file, with its version: none may be of the 2.x line
// (core 2.x, or the 0.2xx experimental packages released with it).
const packages = new Map();
for (const input of Object.keys(iife.metafile.inputs)) {
  const match = /node_modules\/(@opentelemetry\/[^/]+)\//.exec(input);
  if (!match) continue;
  const dir = input.slice(0, input.indexOf(match[1]) + match[1].length);
  packages.set(match[1], JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).version);
}
const twoX = [...packages].filter(([, version]) => /^2\.|^0\.2\d\d\./.test(version));
if (twoX.length) {
  console.error(`browser SDK: OpenTelemetry 2.x packages in the bundle: ${twoX.map(([name, v]) => `${name}@${v}`).join(', ')}`);
  process.exit(1);
}

const bytes = readFileSync(join(out, 'svc-browser.js'));
const gzipped = gzipSync(bytes, { level: 9 }).length;
if (gzipped > GZIP_BUDGET_BYTES) {
  console.error(`browser SDK: dist/browser/svc-browser.js is ${gzipped} bytes gzipped, over its budget of ${GZIP_BUDGET_BYTES} (docs/browser.md)`);
  process.exit(1);
}
const versions = [...packages].map(([name, version]) => `${name.slice('@opentelemetry/'.length)} ${version}`).join(', ');
console.log(
  `browser SDK: dist/browser/svc-browser.js ${(bytes.length / 1024).toFixed(1)} KB, ${(gzipped / 1024).toFixed(1)} KB gzipped (budget ${GZIP_BUDGET_BYTES / 1024} KB); OpenTelemetry: ${versions}`,
);
