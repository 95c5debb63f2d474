/**
 * The MCP SDK v2 (`@modelcontextprotocol/server`), loaded when the first agent request arrives
 * instead of at start: most processes never see an agent, and the first request waits for the
 * load once. Everything svc uses from the SDK goes through here, from one bundled file
 * (src/mcp/mcp-sdk-bundle.ts); node:http meets the SDK's web-standard handlers in
 * src/mcp/web-exchange.ts.
 */
export type McpSdk = typeof import('./mcp-sdk-bundle.js');

let loading: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= import('./mcp-sdk-bundle.js');
  return loading;
}
