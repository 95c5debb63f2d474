/**
 * The tool server as an OAuth 2.1 resource server against a real authorization server
 * (oidc-provider on 127.0.0.1, test/support/oidc-issuer.ts): the official MCP SDK client finds
 * the issuer from the Protected Resource Metadata and signs in with client_credentials on both
 * protocol revisions; bad tokens are refused with 401 `invalid_token` and the reason; missing
 * scopes get 403 `insufficient_scope`; key rotation and client revocation are followed. The
 * validator's clock is injected: tokens expire by moving it, not by waiting.
 */
import { ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { PER_ADDRESS_PER_MINUTE } from '../../src/mcp/auth-failure-limiter.js';
import { oauthOptions } from '../../src/mcp/oauth/oauth-options.js';
import { RefusalAudit } from '../../src/mcp/oauth/refusal-audit.js';
import { ResourceServer } from '../../src/mcp/oauth/resource-server.js';
import { REFRESH_COOLDOWN_MS, RETRY_COOLDOWN_MS } from '../../src/mcp/oauth/signing-keys.js';
import { Roles } from '../../src/mcp/roles.js';
import { freePort } from '../support/fixture-app.js';
import { driveIncident, mcpHarness, newClient, PROTOCOLS, TOKENS } from '../support/mcp-harness.js';
import { type Issuer, type IssuerClient, startIssuer } from '../support/oidc-issuer.js';
import { tempDir } from '../support/temp-dir.js';

const OPS: IssuerClient = { id: 'ops-agent', secret: 'ops-agent-secret', scope: 'svc:read svc:diagnose svc:remediate svc:admin' };
const READER: IssuerClient = { id: 'reader-agent', secret: 'reader-agent-secret', scope: 'svc:read' };
const TOKEN_SECONDS = 120;

let issuer: Issuer;
let stranger: Issuer;

beforeAll(async () => {
  issuer = await startIssuer({ clients: [OPS, READER], tokenSeconds: TOKEN_SECONDS });
  stranger = await startIssuer({ clients: [OPS] });
});
afterAll(async () => {
  await issuer.stop();
  await stranger.stop();
});

/** A tool server at a known port whose resource server reads `issuerUrl` and runs on its own clock. */
async function oauthServer(options: { issuerUrl?: string; yaml?: string; tokens?: boolean } = {}) {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const yaml = `mcp:\n  oauth:\n    issuer: ${options.issuerUrl ?? issuer.url}\n    resource: ${resource}\n${options.yaml ?? ''}`;
  const { config } = loadConfig({ cwd: tempDir({ 'svc.yml': yaml }), args: [], env: {} });
  expect(config.problems).toEqual([]);
  const tokenClock = { offsetMs: 0 };
  const refusals: string[] = [];
  let audit: RefusalAudit | undefined;
  const onRefusal = (reason: string): void => {
    refusals.push(reason);
    audit?.refused(reason);
  };
  const oauth = new ResourceServer(oauthOptions(config)!, Roles.fromConfig(config), { now: () => Date.now() + tokenClock.offsetMs, onRefusal });
  const h = await mcpHarness('', { port, tokens: options.tokens ?? false, oauth, traced: true });
  audit = new RefusalAudit(h.services.audit, () => h.clock.now());
  const post = (
    token: string | undefined,
    body: unknown = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    headers: Record<string, string> = {},
  ) =>
    fetch(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token && { authorization: `Bearer ${token}` }), ...headers },
      body: JSON.stringify(body),
    });
  return { ...h, resource, tokenClock, refusals, post };
}

function sdkClient(url: string, client: IssuerClient, protocol: (typeof PROTOCOLS)[number]) {
  const provider = new ClientCredentialsProvider({ clientId: client.id, clientSecret: client.secret, expectedIssuer: issuer.url });
  return { client: newClient(protocol), transport: new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }) };
}

describe('MCP authorization with a real authorization server', { timeout: 30_000 }, () => {
  it.each(PROTOCOLS)('the official SDK client, given the URL and a registered client, discovers the issuer, signs in and calls tools (%s)', async (protocol) => {
    const h = await oauthServer();
    try {
      const { client, transport } = sdkClient(h.url, OPS, protocol);
      await client.connect(transport);
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toContain('execute_remediation');
      const health = await h.call(client, 'get_service_health');
      expect(health.isError).toBeFalsy();
      const span = h.spans.getFinishedSpans().find((s) => s.name === 'tools/call get_service_health');
      expect(span?.attributes).toMatchObject({ 'svc.mcp.agent.name': 'ops-agent', 'svc.mcp.agent.role': 'admin', 'svc.mcp.agent.verified': true });
      await client.close();
    } finally {
      await h.close();
    }
  });

  it.each(PROTOCOLS)("names the token's agent, verified, in shared sessions and the audit trail (%s)", async (protocol) => {
    const h = await oauthServer();
    try {
      h.request('/orders/:id', 20);
      driveIncident(h);
      const incidentId = h.services.incidents.openIncident('GET /orders/{id}')!.id;
      const { client, transport } = sdkClient(h.url, OPS, protocol);
      await client.connect(transport);
      const created = await h.call(client, 'create_session', { incident_id: incidentId });
      expect(created.text).toContain('by ops-agent (admin)');
      const sessionId = (created.structuredContent as { sessionId: string }).sessionId;
      await h.call(client, 'add_session_entry', { session_id: sessionId, type: 'OBSERVATION', content: 'errors on orders' }, { agentName: 'planner' });
      expect((await h.call(client, 'get_session', { session_id: sessionId })).text).toContain('OBSERVATION by ops-agent/planner (admin)');
      const executed = await h.call(client, 'execute_remediation', { action_name: 'enable_fallback:GET /orders/{id}', reason: 'half the requests fail' });
      expect(executed.isError, executed.text).toBeFalsy();
      expect((await h.call(client, 'get_recent_agent_actions')).text).toMatch(/SUCCESS enable_fallback:GET \/orders\/\{id\} by ops-agent \(admin\)/);
      await client.close();
    } finally {
      await h.close();
    }
  });

  it('serves its Protected Resource Metadata and answers a request without a token 401 with the challenge', async () => {
    const h = await oauthServer();
    try {
      const metadata = await (await fetch(`${new URL(h.url).origin}/.well-known/oauth-protected-resource/mcp`)).json();
      expect(metadata).toEqual({
        resource: h.resource,
        authorization_servers: [issuer.url],
        scopes_supported: ['svc:read', 'svc:diagnose', 'svc:remediate', 'svc:admin'],
        bearer_methods_supported: ['header'],
        resource_name: 'svc MCP tool server',
      });
      const response = await h.post(undefined);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${new URL(h.url).origin}/.well-known/oauth-protected-resource/mcp", scope="svc:read svc:diagnose svc:remediate svc:admin"`,
      );
    } finally {
      await h.close();
    }
  });

  it('refuses tokens for another audience, expired, from another issuer, unsigned, HS256, tampered: 401 invalid_token with the reason, audited without the token', async () => {
    const h = await oauthServer();
    try {
      const good = (await issuer.token(OPS, h.resource)).access_token;
      expect((await h.post(good)).status).toBe(200);
      const [header, payload] = good.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${good.split('.')[2]}`;
      const unsigned = new UnsecuredJWT(claims).encode();
      const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' }).sign(new TextEncoder().encode('a shared secret of thirty-two bytes!'));
      const cases: [string, string, RegExp][] = [
        ['another audience', (await issuer.token(OPS, 'https://other.example/mcp')).access_token, /for the audience "https:\/\/other.example\/mcp", not for this tool server/],
        ['another issuer', (await stranger.token(OPS, h.resource)).access_token, /signing key the issuer's key set does not hold/],
        ['alg none', unsigned, /signing algorithm is not accepted/],
        ['HS256', hs256, /signing algorithm is not accepted/],
        ['tampered', tampered, /signature does not verify/],
        ['not a JWT', 'opaque-token-value', /not a JWT/],
      ];
      for (const [name, token, reason] of cases) {
        const response = await h.post(token);
        expect(response.status, name).toBe(401);
        expect(response.headers.get('www-authenticate'), name).toMatch(/^Bearer error="invalid_token", resource_metadata="[^"]+", scope="svc:read/);
        expect(((await response.json()) as { error: { message: string } }).error.message, name).toMatch(reason);
      }
      h.tokenClock.offsetMs = (TOKEN_SECONDS + 61) * 1000;
      const expired = await h.post(good);
      expect(expired.status).toBe(401);
      expect(((await expired.json()) as { error: { message: string } }).error.message).toMatch(/^the token expired at \S+Z/);
      expect(h.refusals).toHaveLength(cases.length + 1);
      const audited = h.services.audit.recent(50).filter((e) => e.action === 'authenticate:oauth');
      expect(audited.length).toBeGreaterThan(0);
      for (const entry of audited) for (const [, token] of cases) expect(entry.detail).not.toContain(token);
    } finally {
      await h.close();
    }
  });

  it('limits guessing and replaying access tokens with the failed-authentication limit, which a missing token does not count against', async () => {
    const h = await oauthServer();
    try {
      for (let i = 0; i < 20; i++) expect((await h.post(undefined)).status).toBe(401);
      const replayed = (await issuer.token(OPS, 'https://other.example/mcp')).access_token;
      for (let i = 0; i < PER_ADDRESS_PER_MINUTE; i++) expect((await h.post(replayed)).status).toBe(401);
      const limited = await h.post(replayed);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBeTruthy();
    } finally {
      await h.close();
    }
  });

  it.each(PROTOCOLS)('a token without the scope a tool needs gets 403 insufficient_scope, and lists only what it may call (%s)', async (protocol) => {
    const h = await oauthServer();
    try {
      const reader = (await issuer.token(READER, h.resource)).access_token;
      const response = await h.post(reader, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'execute_remediation', arguments: {} } });
      expect(response.status).toBe(403);
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer error="insufficient_scope", resource_metadata="${new URL(h.url).origin}/.well-known/oauth-protected-resource/mcp", scope="svc:read svc:remediate", error_description="this call needs the scope svc:remediate"`,
      );
      const { client, transport } = sdkClient(h.url, READER, protocol);
      await client.connect(transport);
      const tools = (await client.listTools()).tools;
      expect(tools.length).toBeGreaterThan(0);
      for (const tool of tools) expect(tool.description).toMatch(/\(needs READ\)$/);
      // The SDK steps up (asks the issuer for svc:remediate), gets svc:read again, and gives up.
      await expect(client.callTool({ name: 'execute_remediation', arguments: { action_name: 'x', reason: 'y' } })).rejects.toThrow(/403|insufficient_scope/);
      await client.close();
    } finally {
      await h.close();
    }
  });

  it("a 2025 session belongs to the token's subject: a new token of the subject keeps it, another subject's gets 404", async () => {
    const h = await oauthServer();
    try {
      const opened = await h.post((await issuer.token(OPS, h.resource)).access_token);
      const session = opened.headers.get('mcp-session-id')!;
      expect(session).toBeTruthy();
      const list = (token: string) => h.post(token, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' });
      expect((await list((await issuer.token(OPS, h.resource)).access_token)).status).toBe(200);
      expect((await list((await issuer.token(READER, h.resource)).access_token)).status).toBe(404);
    } finally {
      await h.close();
    }
  });

  it('follows key rotation at the issuer without a restart, refreshing the keys at most once a minute', async () => {
    const h = await oauthServer();
    try {
      expect((await h.post((await issuer.token(OPS, h.resource)).access_token)).status).toBe(200);
      await issuer.reconfigure({ clients: [OPS, READER], tokenSeconds: TOKEN_SECONDS }, true);
      const rotated = (await issuer.token(OPS, h.resource)).access_token;
      const early = await h.post(rotated);
      expect(early.status).toBe(401);
      h.tokenClock.offsetMs = REFRESH_COOLDOWN_MS;
      expect((await h.post(rotated)).status).toBe(200);
    } finally {
      await h.close();
    }
  });

  it('a revoked client keeps working only within its tokens lifetime, then cannot sign in again', async () => {
    const h = await oauthServer();
    const revoked: IssuerClient = { id: 'revoked-agent', secret: 'revoked-agent-secret', scope: 'svc:read' };
    await issuer.reconfigure({ clients: [OPS, READER, revoked], tokenSeconds: TOKEN_SECONDS });
    try {
      const { client, transport } = sdkClient(h.url, revoked, '2026-07-28');
      await client.connect(transport);
      expect((await h.call(client, 'get_service_health')).isError).toBeFalsy();
      await issuer.reconfigure({ clients: [OPS, READER], tokenSeconds: TOKEN_SECONDS });
      expect((await h.call(client, 'get_service_health')).isError).toBeFalsy();
      h.tokenClock.offsetMs = (TOKEN_SECONDS + 61) * 1000;
      await expect(client.callTool({ name: 'get_service_health', arguments: {} })).rejects.toThrow(/client authentication failed/);
      await client.close().catch(() => undefined);
    } finally {
      await issuer.reconfigure({ clients: [OPS, READER], tokenSeconds: TOKEN_SECONDS });
      await h.close();
    }
  });

  it('with the issuer down at start, OAuth callers get 503 with the reason and static tokens work; once up, tokens are accepted; down later, cached keys keep working', async () => {
    const port = await freePort();
    const h = await oauthServer({ issuerUrl: `http://127.0.0.1:${port}`, tokens: true });
    let late: Issuer | undefined;
    try {
      const down = await h.post('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln');
      expect(down.status).toBe(503);
      expect(((await down.json()) as { error: { message: string } }).error.message).toMatch(/signing keys are not available yet \(no metadata for issuer http:\/\/127\.0\.0\.1:\d+: .* did not answer/);
      expect((await h.post(TOKENS.ops)).status).toBe(200);
      late = await startIssuer({ clients: [OPS], port });
      const token = (await late.token(OPS, h.resource)).access_token;
      h.tokenClock.offsetMs = RETRY_COOLDOWN_MS;
      expect((await h.post(token)).status).toBe(200);
      await late.stop();
      late = undefined;
      h.tokenClock.offsetMs += REFRESH_COOLDOWN_MS;
      expect((await h.post(token)).status).toBe(200);
    } finally {
      await late?.stop();
      await h.close();
    }
  });

  it('checks opaque tokens by introspection when configured, caching active ones', async () => {
    const introspector: IssuerClient = { id: 'svc-introspector', secret: 'svc-introspector-secret', scope: '' };
    const opaque = await startIssuer({ clients: [OPS, introspector], opaque: true });
    const h = await oauthServer({
      issuerUrl: opaque.url,
      yaml: `    introspection:\n      client-id: ${introspector.id}\n      client-secret: ${introspector.secret}\n`,
    });
    try {
      const token = (await opaque.token(OPS, h.resource)).access_token;
      expect(token.split('.')).toHaveLength(1);
      const first = await h.post(token);
      expect(first.status, await first.clone().text()).toBe(200);
      const other = (await opaque.token(OPS, 'https://other.example/mcp')).access_token;
      const refused = await h.post(other);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/not for this tool server/);
      await opaque.stop();
      expect((await h.post(token)).status).toBe(200);
    } finally {
      await h.close();
      await opaque.stop().catch(() => undefined);
    }
  });
});
