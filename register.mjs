// The preload: `node --import @svc/register app.js`. It loads svc and the OpenTelemetry SDK, then
// registers the ESM loader hook (without it ESM apps get no spans and no http.route) before the
// SDK starts and the app's modules load. svc's own modules load before the hook on purpose, so
// they are not wrapped by it (bench/http.mjs: that costs startup time and throughput).
// Worker threads inherit `--import`; svc runs once per process, in the main thread.
// It never throws: if anything fails the application runs on without svc.
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  try {
    const { start } = await import('./dist/start.js');
    register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
    start();
  } catch (error) {
    process.stderr.write(`svc: the preload failed, the application runs without svc: ${error?.message ?? error}\n`);
  }
}
