/**
 * The MCP SDK v2 (`@modelcontextprotocol/server` and its Node adapter), loaded when the first
 * agent request arrives instead of at start: most processes never see an agent, and the first
 * request waits for the load once. Everything svc uses from the SDK goes through here.
 */
import type * as NodeAdapter from '@modelcontextprotocol/node';
import type * as ServerSdk from '@modelcontextprotocol/server';

export interface McpSdk {
  readonly Server: typeof ServerSdk.Server;
  readonly ProtocolError: typeof ServerSdk.ProtocolError;
  readonly createMcpHandler: typeof ServerSdk.createMcpHandler;
  readonly isLegacyRequest: typeof ServerSdk.isLegacyRequest;
  readonly isInitializeRequest: typeof ServerSdk.isInitializeRequest;
  readonly specTypeSchemas: typeof ServerSdk.specTypeSchemas;
  readonly NodeStreamableHTTPServerTransport: typeof NodeAdapter.NodeStreamableHTTPServerTransport;
  readonly toNodeHandler: typeof NodeAdapter.toNodeHandler;
  readonly toWebRequest: typeof NodeAdapter.toWebRequest;
}

let loading: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([import('@modelcontextprotocol/server'), import('@modelcontextprotocol/node')]).then(([server, node]) => ({
    Server: server.Server,
    ProtocolError: server.ProtocolError,
    createMcpHandler: server.createMcpHandler,
    isLegacyRequest: server.isLegacyRequest,
    isInitializeRequest: server.isInitializeRequest,
    specTypeSchemas: server.specTypeSchemas,
    NodeStreamableHTTPServerTransport: node.NodeStreamableHTTPServerTransport,
    toNodeHandler: node.toNodeHandler,
    toWebRequest: node.toWebRequest,
  }));
  return loading;
}
