/**
 * The MCP SDK v2 (`@modelcontextprotocol/server`), loaded when the first agent request arrives
 * instead of at start: most processes never see an agent, and the first request waits for the
 * load once. Everything svc uses from the SDK goes through here; node:http meets the SDK's
 * web-standard handlers in src/mcp/web-exchange.ts.
 */
import type * as ServerSdk from '@modelcontextprotocol/server';

export interface McpSdk {
  readonly Server: typeof ServerSdk.Server;
  readonly ProtocolError: typeof ServerSdk.ProtocolError;
  readonly createMcpHandler: typeof ServerSdk.createMcpHandler;
  readonly isLegacyRequest: typeof ServerSdk.isLegacyRequest;
  readonly isInitializeRequest: typeof ServerSdk.isInitializeRequest;
  readonly specTypeSchemas: typeof ServerSdk.specTypeSchemas;
  readonly WebStandardStreamableHTTPServerTransport: typeof ServerSdk.WebStandardStreamableHTTPServerTransport;
}

let loading: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= import('@modelcontextprotocol/server').then((server) => ({
    Server: server.Server,
    ProtocolError: server.ProtocolError,
    createMcpHandler: server.createMcpHandler,
    isLegacyRequest: server.isLegacyRequest,
    isInitializeRequest: server.isInitializeRequest,
    specTypeSchemas: server.specTypeSchemas,
    WebStandardStreamableHTTPServerTransport: server.WebStandardStreamableHTTPServerTransport,
  }));
  return loading;
}
