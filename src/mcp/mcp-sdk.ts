/**
 * The MCP SDK, loaded when the first agent request arrives instead of at start: its server,
 * transport and schemas hold about 7 MB of heap (svc's start-up modules take 20 MB instead of 27),
 * and most processes never see an agent. The first request waits for the load once.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface McpSdk {
  readonly Server: typeof Server;
  readonly StreamableHTTPServerTransport: typeof StreamableHTTPServerTransport;
  readonly types: typeof import('@modelcontextprotocol/sdk/types.js');
}

let loading: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([import('@modelcontextprotocol/sdk/server/index.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('@modelcontextprotocol/sdk/types.js')]).then(
    ([server, transport, types]) => ({ Server: server.Server, StreamableHTTPServerTransport: transport.StreamableHTTPServerTransport, types }),
  );
  return loading;
}
