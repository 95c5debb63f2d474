// The preload: `node --import @svc/register app.js`. It loads svc and the OpenTelemetry SDK, then
// registers the ESM loader hook (without it ESM apps get no spans and no http.route) before the
// SDK starts and the app's modules load. svc's own modules are excluded from the hook, those
// loaded later (the tool server's, the MCP SDK bundle) included: wrapped, they cost start-up time
// and throughput (bench/http.mjs) and keep a second copy of their source alive (docs/mcp.md "Cost").
// Where Node can run it (>= 22.22.3, >= 24.11.1), the hook runs in the application's thread
// (`module.registerHooks`); otherwise on a loader thread of its own (`module.register`), which
// costs about 17 MB of RSS (measured with bench/performance.mjs).
// svc's modules load OpenTelemetry's CommonJS builds, the ones the instrumentations require, so
// one copy of each package loads instead of an ES module copy beside it (about 120 modules fewer;
// test/telemetry/preload-modules.test.ts, docs/telemetry.md "Start-up").
// Worker threads inherit `--import`; svc runs once per process, in the main thread.
// It never throws: if anything fails the application runs on without svc.
import nodeModule from 'node:module';
import { isMainThread } from 'node:worker_threads';

const SVC_MODULES = new URL('./dist/', import.meta.url).href;

/** Resolves `@opentelemetry/*` imported by svc's modules as `require` would. */
function openTelemetryAsRequired(specifier, context, nextResolve) {
  if (specifier.startsWith('@opentelemetry/') && context.parentURL?.startsWith(SVC_MODULES)) {
    try {
      return nextResolve(specifier, { ...context, conditions: ['node', 'require'] });
    } catch {
      // a package without a CommonJS build: its ES module build below
    }
  }
  return nextResolve(specifier, context);
}

if (isMainThread) {
  try {
    nodeModule.registerHooks?.({ resolve: openTelemetryAsRequired });
    const { start } = await import('./dist/wiring/start.js');
    const inThread = await import('import-in-the-middle/register-hooks.mjs');
    const options = { exclude: [new RegExp(`^${SVC_MODULES.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)] };
    if (inThread.supportsSyncHooks()) inThread.register(options);
    else nodeModule.register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: options });
    start();
  } catch (error) {
    process.stderr.write(`svc: the preload failed, the application runs without svc: ${error?.message ?? error}\n`);
  }
}
