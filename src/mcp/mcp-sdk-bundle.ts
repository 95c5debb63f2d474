/**
 * What svc uses of the MCP SDK v2. `npm run build` replaces this module's compiled output,
 * dist/mcp/mcp-sdk-bundle.js, with one minified file holding these exports and only what they
 * reach of the SDK and zod (scripts/build-mcp-sdk.mjs): a fraction of the memory that loading the
 * SDK's own modules costs (docs/mcp.md, "Cost"). Run from source, as in vitest, it re-exports
 * the installed SDK.
 */
export { createMcpHandler, isInitializeRequest, isLegacyRequest, ProtocolError, Server, specTypeSchemas, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
