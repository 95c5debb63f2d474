// Preloaded in a fixture (NODE_OPTIONS=--import) to report on stderr when anything in the
// process resolves the MCP SDK, so a test can tell when svc loads it.
import { registerHooks } from 'node:module';

let reported = false;
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (!reported && specifier.startsWith('@modelcontextprotocol/')) {
      reported = true;
      process.stderr.write(`MCP SDK resolved: ${specifier}\n`);
    }
    return nextResolve(specifier, context);
  },
});
