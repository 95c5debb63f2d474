/**
 * What the preload loads before the app's main module runs (register.mjs): one copy of
 * OpenTelemetry (the CommonJS builds the instrumentations require, no ES module copy beside them),
 * svc's own modules unwrapped by the ESM hook, and not the tool server, which loads after.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { ROOT } from '../support/fixture-app.js';
import { tempDir } from '../support/temp-dir.js';

const LIST_MODULES = `import { registerHooks } from 'node:module';
globalThis.loadedModules = [];
registerHooks({ load(url, context, nextLoad) { globalThis.loadedModules.push(url); return nextLoad(url, context); } });
`;

const APP = `
const atMain = [...globalThis.loadedModules];
const started = Date.now();
(function wait() {
  const listening = globalThis.loadedModules.some((url) => url.includes('/dist/mcp/start-tool-server.js'));
  if (!listening && Date.now() - started < 10000) return setTimeout(wait, 20);
  console.log(JSON.stringify({ atMain, later: globalThis.loadedModules }));
  process.exit(0);
})();
`;

it('loads OpenTelemetry once, leaves svc unwrapped by the ESM hook, and loads the tool server after the app', () => {
  const dir = tempDir({ 'list-modules.mjs': LIST_MODULES, 'app.cjs': APP });
  const printed = execFileSync(process.execPath, ['--import', './list-modules.mjs', '--import', join(ROOT, 'register.mjs'), 'app.cjs'], {
    cwd: dir,
    env: { PATH: process.env.PATH, SVC_MCP_PORT: '0', SVC_STORE_URL: 'memory:', OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none' },
    encoding: 'utf8',
  });
  const { atMain, later } = JSON.parse(printed.trim().split('\n').at(-1)!) as { atMain: string[]; later: string[] };
  const openTelemetry = atMain.filter((url) => url.includes('/node_modules/@opentelemetry/'));
  expect(openTelemetry.filter((url) => url.includes('/@opentelemetry/api/')).length).toBeGreaterThan(0);
  expect(openTelemetry.filter((url) => url.endsWith('.mjs'))).toEqual([]);
  const svcModules = later.filter((url) => url.startsWith(`${pathToFileURL(join(ROOT, 'dist')).href}/`));
  expect(svcModules.length).toBeGreaterThan(100);
  expect(svcModules.filter((url) => url.includes('iitm='))).toEqual([]);
  expect(atMain.filter((url) => url.includes('/dist/mcp/start-tool-server.js'))).toEqual([]);
  expect(later.filter((url) => url.includes('/dist/mcp/start-tool-server.js'))).toHaveLength(1);
});
