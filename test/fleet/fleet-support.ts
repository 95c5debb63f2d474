/**
 * A fleet for the tests: a real `redis-server` on 127.0.0.1 (ephemeral port) and replicas of the
 * orders fixture (fixtures/orders-service) in child processes, each with its own instance id and
 * the same service name and store, driven through the MCP tools by the official SDK v2 client.
 */
import { join } from 'node:path';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type FixtureApp, freePort, ROOT, startFixture } from '../support/fixture-app.js';
import { newClient } from '../support/mcp-harness.js';

export const OPERATION = 'GET /orders/{id}';

export type Call = (tool: string, args?: Record<string, string>) => Promise<CallToolResult & { text: string }>;

export interface Replica {
  readonly id: string;
  readonly app: FixtureApp;
  /** Calls a tool as the given agent (its demo token). */
  readonly call: (agent: 'ops' | 'alice') => Promise<Call>;
  /** Fires one request at the app: its status and body. */
  order(id: number): Promise<string>;
  stop(): Promise<void>;
}

const TOKENS = { ops: 'ops-demo-token', alice: 'approver-demo-token' } as const;

export async function startReplica(id: string, redisUrl: string, env: Record<string, string> = {}): Promise<Replica> {
  const inventoryPort = await freePort();
  const app = await startFixture({
    script: 'app.mjs',
    cwd: join(ROOT, 'fixtures', 'orders-service'),
    env: {
      OTEL_SERVICE_NAME: 'orders-service',
      SVC_STORE_URL: redisUrl,
      SVC_FLEET_INSTANCE_ID: id,
      SVC_PATTERNS_WINDOW: '6s',
      SVC_MCP_VERIFICATION_DELAY: '10m',
      INVENTORY_PORT: String(inventoryPort),
      ...env,
    },
    args: [`-Dsvc.dependencies[0].health-endpoint=http://127.0.0.1:${inventoryPort}/health`],
  });
  const url = await toolServerUrl(app);
  const clients: Client[] = [];
  const agents = new Map<string, Call>();
  const call = async (agent: 'ops' | 'alice'): Promise<Call> => {
    const known = agents.get(agent);
    if (known) return known;
    const client = newClient('2025-11-25', { name: `${agent}-on-${id}` });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKENS[agent]}` } } }));
    clients.push(client);
    const fn: Call = async (tool, args = {}) => {
      const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
      return { ...result, text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') };
    };
    agents.set(agent, fn);
    return fn;
  };
  return {
    id,
    app,
    call,
    order: async (n) => {
      const response = await app.get(`/orders/${n}`);
      return `${response.status} ${await response.text()}`;
    },
    stop: async () => {
      for (const client of clients.splice(0)) await client.close().catch(() => undefined);
      await app.stop();
    },
  };
}

/** The tool server's URL from the app's stderr (its port is ephemeral); hooks cannot use expect.poll. */
async function toolServerUrl(app: FixtureApp): Promise<string> {
  for (const until = Date.now() + 15_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const url = /MCP tool server listening at (\S+)/.exec(app.stderr())?.[1];
    if (url) return url;
  }
  throw new Error(`no tool server within 15 s:\n${app.stderr()}`);
}

/** The incident id get_incident_context shows for the operation, if any. */
export function incidentIdIn(text: string): string | undefined {
  return /INCIDENT (INC-\d{8}-[0-9a-z]{5}-\d{4})/.exec(text)?.[1];
}

export function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
