/**
 * OAuth agents against a real service under the preload (fixtures/http-plain/app.mjs, tool
 * server in the child process) and a real authorization server (oidc-provider on 127.0.0.1):
 * configured only by SVC_MCP_OAUTH_* variables, the service serves the official SDK client,
 * which is given the tool server's URL and a registered client, on both protocol revisions.
 * `jose` loads only in a service with svc.mcp.oauth.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { type FixtureApp, freePort, ROOT, startFixture } from '../support/fixture-app.js';
import { newClient, PROTOCOLS } from '../support/mcp-harness.js';
import { type Issuer, type IssuerClient, startIssuer } from '../support/oidc-issuer.js';

const AGENT: IssuerClient = { id: 'night-agent', secret: 'night-agent-secret', scope: 'svc:read svc:diagnose' };
const reporter = pathToFileURL(join(ROOT, 'test/support/report-jose-load.mjs')).href;
const listening = /MCP tool server listening at (\S+)/;

let issuer: Issuer;
let app: FixtureApp | undefined;
beforeAll(async () => {
  issuer = await startIssuer({ clients: [AGENT] });
});
afterEach(async () => {
  await app?.stop();
  app = undefined;
});
afterAll(() => issuer.stop());

it('serves the official SDK client signing in with the issuer on both protocols', async () => {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  app = await startFixture({
    script: 'fixtures/http-plain/app.mjs',
    env: { NODE_OPTIONS: `--import ${reporter}`, SVC_MCP_PORT: String(port), SVC_MCP_OAUTH_ISSUER: issuer.url, SVC_MCP_OAUTH_RESOURCE: resource },
  });
  await expect.poll(() => listening.test(app!.stderr())).toBe(true);
  expect((await fetch(resource, { method: 'POST' })).status).toBe(401);
  for (const protocol of PROTOCOLS) {
    const client = newClient(protocol);
    const authProvider = new ClientCredentialsProvider({ clientId: AGENT.id, clientSecret: AGENT.secret, expectedIssuer: issuer.url });
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider }));
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools, protocol).toContain('get_service_health');
    expect(tools, protocol).not.toContain('execute_remediation');
    const result = await client.callTool({ name: 'get_service_health', arguments: {} });
    expect(result.isError, protocol).toBeFalsy();
    await client.close();
  }
  expect(app.stderr()).toContain('jose resolved: jose/jwt/verify');
  expect(app.stderr()).not.toContain(AGENT.secret);
});

it('never loads jose without svc.mcp.oauth', async () => {
  app = await startFixture({ script: 'fixtures/http-plain/app.mjs', env: { NODE_OPTIONS: `--import ${reporter}` } });
  await expect.poll(() => listening.test(app!.stderr())).toBe(true);
  const client = newClient('2026-07-28');
  await client.connect(new StreamableHTTPClientTransport(new URL(listening.exec(app.stderr())![1]!)));
  expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  await client.close();
  expect(app.stderr()).not.toContain('jose resolved');
});
