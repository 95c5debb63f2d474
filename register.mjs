// The preload: `node --import @svc/register app.js`. It registers the ESM loader hook (without it
// ESM apps get no spans and no http.route), then starts svc. It never throws: if anything fails
// the application runs on without svc.
import { register } from 'node:module';

try {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const { start } = await import('./dist/start.js');
  start();
} catch (error) {
  process.stderr.write(`svc: the preload failed, the application runs without svc: ${error?.message ?? error}\n`);
}
