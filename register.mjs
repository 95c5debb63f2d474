// The preload: `node --import @svc/register app.js`. It loads svc and the OpenTelemetry SDK, then
// registers the ESM loader hook (without it ESM apps get no spans and no http.route) before the
// SDK starts and the app's modules load. svc's own modules load before the hook on purpose, so
// they are not wrapped by it (bench/http.mjs: that costs startup time and throughput); the MCP SDK
// bundle, which svc loads with the first agent request, is excluded from it (wrapped, it would
// keep a second copy of the bundle's source alive, 0.35 MB: docs/mcp.md "Cost").
// Where Node can run it (>= 22.22.3, >= 24.11.1), the hook runs in the application's thread
// (`module.registerHooks`); otherwise on a loader thread of its own (`module.register`), which
// costs about 17 MB of RSS (measured with bench/performance.mjs).
// Worker threads inherit `--import`; svc runs once per process, in the main thread.
// It never throws: if anything fails the application runs on without svc.
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  try {
    const { start } = await import('./dist/wiring/start.js');
    const inThread = await import('import-in-the-middle/register-hooks.mjs');
    const options = { exclude: [new URL('./dist/mcp/mcp-sdk-bundle.js', import.meta.url).href] };
    if (inThread.supportsSyncHooks()) inThread.register(options);
    else register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: options });
    start();
  } catch (error) {
    process.stderr.write(`svc: the preload failed, the application runs without svc: ${error?.message ?? error}\n`);
  }
}
