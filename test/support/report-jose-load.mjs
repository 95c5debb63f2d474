// Preloaded in a fixture (NODE_OPTIONS=--import) to report on stderr each specifier of `jose`
// that loads, once each, so a test can tell whether and when svc loads it.
import { registerHooks } from 'node:module';

const reported = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    if ((specifier === 'jose' || specifier.startsWith('jose/')) && !reported.has(specifier)) {
      reported.add(specifier);
      process.stderr.write(`jose resolved: ${specifier}\n`);
    }
    return nextResolve(specifier, context);
  },
});
