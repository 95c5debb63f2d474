/**
 * An in-process tool server on 127.0.0.1 (ephemeral port) over an engine with a fake clock, and
 * official MCP SDK v2 clients connected to it over real HTTP, speaking either protocol: 2025-11-25
 * (initialize and a session) or 2026-07-28 (stateless, `_meta` on every request).
 */

import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { expect } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { incidentResponseFromConfig } from '../../src/incidents/incident-response.js';
import { Authenticator, sha256Hex } from '../../src/mcp/authenticator.js';
import { BUILT_IN_TOOLS } from '../../src/mcp/built-in-tools.js';
import type { ResourceServer } from '../../src/mcp/oauth/resource-server.js';
import { Roles } from '../../src/mcp/roles.js';
import { toolServices } from '../../src/mcp/start-tool-server.js';
import { ToolRegistry } from '../../src/mcp/tool-registry.js';
import { ToolServer } from '../../src/mcp/tool-server.js';
import { ServiceMetadata } from '../../src/metadata/service-metadata.js';
import { MCP_INSTRUMENTATION_SCOPE } from '../../src/shared/attribute-names.js';
import { engineHarness } from './engine-harness.js';
import { newRegistry } from './registry.js';
import { tempDir } from './temp-dir.js';

/** The protocol revisions the server serves. */
export const PROTOCOLS = ['2025-11-25', '2026-07-28'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/**
 * A v2 client speaking `protocol`: the 2025 handshake (the v2 default), or pinned to 2026-07-28.
 * `onToolsChanged` hears that the tool list changed: a 2025 session's notification, or on
 * 2026-07-28 the subscriptions/listen stream the client opens for it.
 */
export function newClient(protocol: Protocol, options: { name?: string; onToolsChanged?: () => void } = {}): Client {
  const info = { name: options.name ?? 'test-agent', version: '1.0.0' };
  const { onToolsChanged } = options;
  if (protocol === '2025-11-25') {
    const client = new Client(info);
    if (onToolsChanged) client.setNotificationHandler('notifications/tools/list_changed', () => onToolsChanged());
    return client;
  }
  return new Client(info, {
    versionNegotiation: { mode: { pin: '2026-07-28' } },
    ...(onToolsChanged && { listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => onToolsChanged() } } }),
  });
}

export const TOKENS = { ops: 'ops-secret-token', triage: 'triage-secret-token', lead: 'lead-secret-token', alice: 'alice-secret-token', watch: 'watch-secret-token' } as const;

export async function mcpHarness(
  extraYaml = '',
  serverOptions: {
    rateLimitPerMinute?: number;
    maxConcurrentCalls?: number;
    maxBodyBytes?: number;
    port?: number;
    host?: string;
    tokens?: boolean;
    approverTokens?: boolean;
    protocol?: Protocol;
    traced?: boolean;
    oauth?: ResourceServer;
    statusPage?: boolean;
  } = {},
) {
  const tokens = `  tokens:
    ops-bot: { sha256: ${sha256Hex(TOKENS.ops)}, role: operator }
    triage-bot: { sha256: ${sha256Hex(TOKENS.triage)}, role: diagnostician }
    lead: { sha256: ${sha256Hex(TOKENS.lead)}, role: admin }${
      serverOptions.approverTokens
        ? `
    alice: { sha256: ${sha256Hex(TOKENS.alice)}, role: operator }
    watch: { sha256: ${sha256Hex(TOKENS.watch)}, role: observer }`
        : ''
    }`;
  const yaml = `topology:
  team: checkout
  tier: critical
  on-call-channel: "#checkout-oncall"
mcp:
  approvers: [alice]
  verification-delay: 30s
${serverOptions.tokens === false ? '' : tokens}
${extraYaml}`;
  const { config } = loadConfig({ cwd: tempDir({ 'svc.yml': yaml }), args: [], env: {} });
  expect(config.problems).toEqual([]);
  const h = engineHarness();
  const metadata = new ServiceMetadata(config, newRegistry());
  const services = toolServices(config, h.engine, metadata, incidentResponseFromConfig(config, h.engine, metadata));
  // Tool call spans, as the preload makes them: svc's scope, behind the engine's span processor.
  const spans = new InMemorySpanExporter();
  const tracer = serverOptions.traced
    ? new TracerProvider({ spanProcessors: [h.engine.createSpanProcessor(metadata), new SimpleSpanProcessor({ exporter: spans })] }).getTracer(MCP_INSTRUMENTATION_SCOPE)
    : undefined;
  const registry = new ToolRegistry();
  for (const tool of BUILT_IN_TOOLS) registry.register(tool);
  const server = new ToolServer({
    host: serverOptions.host ?? '127.0.0.1',
    port: serverOptions.port ?? 0,
    maxBodyBytes: serverOptions.maxBodyBytes ?? 1_048_576,
    rateLimitPerMinute: serverOptions.rateLimitPerMinute ?? 10_000,
    maxConcurrentCalls: serverOptions.maxConcurrentCalls ?? config.get('mcp.max-concurrent-calls'),
    authenticator: Authenticator.fromConfig(config, Roles.fromConfig(config)),
    ...(serverOptions.oauth && { oauth: serverOptions.oauth }),
    registry,
    services,
    version: 'test',
    now: () => h.clock.now(),
    ...(tracer && { tracer }),
    statusPage: serverOptions.statusPage ?? false,
  });
  const url = await server.start();
  const clients: Client[] = [];

  async function connect(token: string | undefined, headers: Record<string, string> = {}, options: { protocol?: Protocol; onToolsChanged?: () => void } = {}): Promise<Client> {
    const client = newClient(options.protocol ?? serverOptions.protocol ?? '2025-11-25', options);
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { ...(token && { authorization: `Bearer ${token}` }), ...headers } } });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, string> = {}, meta?: Record<string, unknown>): Promise<CallToolResult & { text: string }> {
    const result = (await client.callTool({ name, arguments: args, ...(meta && { _meta: meta }) })) as CallToolResult;
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    return { ...result, text };
  }

  async function close(): Promise<void> {
    for (const client of clients) await client.close().catch(() => undefined);
    await server.stop();
  }

  return { ...h, url, server, services, registry, connect, call, close, spans };
}

/** Steady traffic, then a fault sustained for 40 s: GET /orders/{id} fails half its requests, which opens an incident. */
export function driveIncident(h: Pick<Awaited<ReturnType<typeof mcpHarness>>, 'clock' | 'request'>): void {
  h.clock.advance(120_000);
  for (let i = 0; i < 100; i++) {
    h.request('/orders/:id', 20 + (i % 7));
    h.clock.advance(200);
  }
  for (let i = 0; i < 200; i++) {
    h.request('/orders/:id', 60, i % 2 === 0);
    h.clock.advance(200);
  }
}
