/**
 * An agent of a fixture app's tool server: the official MCP SDK client over Streamable HTTP with
 * a bearer token and an agent name, whose calls answer the result with its text joined.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export type AgentCall = (tool: string, args?: Record<string, string>) => Promise<CallToolResult & { text: string }>;

/** Connects an agent; its client goes into `clients`, for the test to close. */
export async function fixtureAgent(url: string, token: string, name: string, clients: Client[]): Promise<AgentCall> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}`, 'x-agent-name': name } } }));
  clients.push(client);
  return async (tool, args = {}) => {
    const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    return { ...result, text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') };
  };
}
