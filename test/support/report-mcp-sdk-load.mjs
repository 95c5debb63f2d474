// Preloaded in a fixture (NODE_OPTIONS=--import) to report on stderr each specifier that loads the
// MCP SDK (svc's bundle of it, or one of the SDK's packages), once each, so a test can tell when
// and how svc loads it.
import { registerHooks } from 'node:module';

const reported = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    if ((specifier.startsWith('@modelcontextprotocol/') || specifier.includes('mcp-sdk-bundle.js')) && !reported.has(specifier)) {
      reported.add(specifier);
      process.stderr.write(`MCP SDK resolved: ${specifier}\n`);
    }
    return nextResolve(specifier, context);
  },
});
