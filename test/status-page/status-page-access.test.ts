/**
 * The status page's access rules over real HTTP, on an in-process tool server with a fake clock:
 * what an anonymous visitor sees, the session cookie's life, sign-in failures counted with the
 * tool server's bearer token failures, Host checks, escaping, a person's approval of an action
 * kind only a person may approve (svc.mcp.human-approval), and the page's weight with 500
 * operations.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { PER_ADDRESS_PER_MINUTE } from '../../src/mcp/auth-failure-limiter.js';
import { oauthOptions } from '../../src/mcp/oauth/oauth-options.js';
import { ResourceServer } from '../../src/mcp/oauth/resource-server.js';
import { Roles } from '../../src/mcp/roles.js';
import { MAX_OPERATION_ROWS } from '../../src/mcp/status-page/render-page.js';
import { MAX_FORM_BYTES } from '../../src/mcp/status-page/status-page.js';
import { freePort } from '../support/fixture-app.js';
import { driveIncident, mcpHarness, TOKENS } from '../support/mcp-harness.js';
import { startIssuer } from '../support/oidc-issuer.js';
import { tempDir } from '../support/temp-dir.js';

let harness: Awaited<ReturnType<typeof mcpHarness>> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A browser's requests to the page of `harness`, with its cookies. */
function visitor(h: NonNullable<typeof harness>) {
  const origin = new URL(h.url).origin;
  const cookies = new Map<string, string>();
  const remember = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      if (value) cookies.set(name!, value);
      else cookies.delete(name!);
    }
    return res;
  };
  const cookie = () => [...cookies].map(([n, v]) => `${n}=${v}`).join('; ');
  const get = async (path: string, headers: Record<string, string> = {}) => remember(await fetch(`${origin}${path}`, { redirect: 'manual', headers: { cookie: cookie(), ...headers } }));
  const post = async (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    remember(
      await fetch(`${origin}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: cookie(), origin, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form),
      }),
    );
  const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  return {
    origin,
    cookies,
    get,
    post,
    csrfOf,
    async signIn(token: string): Promise<Response> {
      const form = await get('/sign-in');
      return post('/sign-in', { csrf: csrfOf(await form.text()), token });
    },
  };
}

describe('the status page', () => {
  it('shows an anonymous visitor, without tokens configured, what the anonymous role reads, with no forms', async () => {
    harness = await mcpHarness('', { tokens: false, statusPage: true });
    driveIncident(harness);
    const page = await visitor(harness).get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    const html = await page.text();
    expect(html).toContain('anonymous (diagnostician)');
    expect(html).toMatch(/data-status="(DEGRADED|CRITICAL)"/);
    expect(html).toContain('data-operation="GET /orders/{id}"');
    expect(html).not.toContain('<form');
    expect(html).not.toMatch(/<script>|style="/);
  });

  it('shows nothing to an anonymous visitor when tokens are configured: the sign-in form, as an agent without a token gets 401', async () => {
    harness = await mcpHarness('', { statusPage: true });
    driveIncident(harness);
    const v = visitor(harness);
    const page = await v.get('/');
    expect(page.status).toBe(401);
    const html = await page.text();
    expect(html).toContain('Sign in');
    expect(html).not.toContain('GET /orders');
    expect((await v.get('/?fragment=main')).status).toBe(401);
    expect((await fetch(harness.url, { method: 'POST', body: '{}' })).status).toBe(401);
  });

  it('with OAuth access tokens only (svc.mcp.oauth, no static token), shows an anonymous visitor nothing, and signs a person in with an access token', async () => {
    const reader = { id: 'on-call', secret: 'on-call-secret', scope: 'svc:read' };
    const issuer = await startIssuer({ clients: [reader] });
    try {
      const port = await freePort();
      const resource = `http://127.0.0.1:${port}/mcp`;
      const { config } = loadConfig({ cwd: tempDir({ 'svc.yml': `mcp:\n  oauth:\n    issuer: ${issuer.url}\n    resource: ${resource}\n` }), args: [], env: {} });
      const oauth = new ResourceServer(oauthOptions(config)!, Roles.fromConfig(config));
      harness = await mcpHarness('', { port, tokens: false, oauth, statusPage: true });
      driveIncident(harness);
      const v = visitor(harness);
      const anonymous = await v.get('/');
      expect(anonymous.status).toBe(401);
      expect(await anonymous.text()).not.toContain('GET /orders');
      const { access_token: token } = await issuer.token(reader, resource);
      expect((await v.signIn(token)).status).toBe(303);
      const html = await (await v.get('/')).text();
      expect(html).toContain('data-operation="GET /orders/{id}"');
      expect(html).not.toContain('Approval requests');
    } finally {
      await issuer.stop();
    }
  });

  it('gives a session cookie that ends after 15 minutes, and sees what the token’s role may read', async () => {
    harness = await mcpHarness('', { statusPage: true, approverTokens: true });
    driveIncident(harness);
    const v = visitor(harness);
    const signedIn = await v.signIn(TOKENS.watch);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.getSetCookie().find((c) => c.startsWith('svc_page='))).toMatch(/^svc_page=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=900$/);
    const html = await (await v.get('/')).text();
    expect(html).toContain('watch (observer)');
    expect(html).toContain('data-operation="GET /orders/{id}"');
    // An observer may not approve: no approval section, as list_remediation_actions shows it no approve: actions.
    expect(html).not.toContain('Approval requests');
    expect((await v.post('/approvals', { csrf: v.csrfOf(html), id: 'APR-x-0001', decision: 'approve' })).status).toBe(403);
    harness.clock.advance(15 * 60_000);
    expect((await v.get('/')).status).toBe(401);
  });

  it('counts failed sign-ins with the tool server’s failed bearer tokens', async () => {
    harness = await mcpHarness('', { statusPage: true });
    const v = visitor(harness);
    for (let i = 0; i < PER_ADDRESS_PER_MINUTE; i++) expect((await v.signIn(`wrong-${i}`)).status).toBe(401);
    expect((await v.signIn(TOKENS.lead)).status).toBe(429);
    const agent = await fetch(harness.url, { method: 'POST', headers: { authorization: 'Bearer wrong', 'content-type': 'application/json' }, body: '{}' });
    expect(agent.status).toBe(429);
  });

  it('refuses a foreign Host, a form from another origin, a form without the CSRF token or the sign-in form’s cookie', async () => {
    harness = await mcpHarness('', { statusPage: true });
    const v = visitor(harness);
    // fetch sets Host itself: node:http sends the forged one.
    const forged = await new Promise<number>((resolve, reject) =>
      request(`${v.origin}/`, { headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      })
        .on('error', reject)
        .end(),
    );
    expect(forged).toBe(403);
    const form = await v.get('/sign-in');
    const csrf = v.csrfOf(await form.text());
    expect((await v.post('/sign-in', { csrf, token: TOKENS.lead }, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await v.post('/sign-in', { token: TOKENS.lead })).status).toBe(403);
    v.cookies.clear();
    expect((await v.post('/sign-in', { csrf, token: TOKENS.lead })).status).toBe(403);
    expect((await v.post('/sign-in', { csrf, token: TOKENS.lead }, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await v.post('/sign-in', { csrf, token: 'x'.repeat(MAX_FORM_BYTES) })).status).toBe(413);
  });

  it('escapes what agents and the app name: an operation, a reason', async () => {
    harness = await mcpHarness('', { statusPage: true });
    harness.request('/a<img src=x onerror=alert(1)>', 5);
    const v = visitor(harness);
    await v.signIn(TOKENS.lead);
    const html = await (await v.get('/')).text();
    expect(html).toContain('GET /a&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img');
  });

  it('lets only a person approve the kinds of svc.mcp.human-approval: not an admin agent’s own credential, not approve: by an agent', async () => {
    harness = await mcpHarness('  human-approval: [enable_fallback]', { statusPage: true, approverTokens: true });
    driveIncident(harness);
    const ops = await harness.connect(TOKENS.ops);
    const lead = await harness.connect(TOKENS.lead);
    const action = 'enable_fallback:GET /orders/{id}';
    const asked = await harness.call(ops, 'execute_remediation', { action_name: action, reason: 'error spike' });
    expect(asked.isError).toBe(true);
    expect(asked.text).toContain('needs approval by a person');
    const id = /Approval request (APR-\S+) is open/.exec(asked.text)![1]!;
    const own = await harness.call(lead, 'execute_remediation', { action_name: action, reason: 'admin, by itself' });
    expect(own.isError).toBe(true);
    expect(own.text).toContain('a person approves it on the status page');
    const byAgent = await harness.call(lead, 'execute_remediation', { action_name: `approve:${id}`, reason: 'as an agent' });
    expect(byAgent.text).toContain('only a person approves or declines');
    expect(harness.services.remediation.isFallbackEnabled('GET /orders/{id}')).toBe(false);

    const v = visitor(harness);
    await v.signIn(TOKENS.alice);
    const page = await (await v.get('/')).text();
    expect(page).toContain(`data-approval="${id}"`);
    expect(page).toContain('by a person only (svc.mcp.human-approval)');
    expect(page).toMatch(/error_rate_spike_response step \d+: /);
    const decided = await v.post('/approvals', { csrf: v.csrfOf(page), id, decision: 'approve', reason: 'looked at the graphs' });
    expect(decided.status).toBe(303);
    expect(decided.headers.get('location')).toBe(`/?notice=approved&id=${id}`);
    const done = await harness.call(ops, 'execute_remediation', { action_name: action, reason: 'error spike', approved_by: id });
    expect(done.isError).toBeFalsy();
    expect(harness.services.remediation.isFallbackEnabled('GET /orders/{id}')).toBe(true);
    const trail = await harness.call(lead, 'get_recent_agent_actions');
    expect(trail.text).toMatch(new RegExp(`SUCCESS approve:${id} by alice \\(operator\\); reason: looked at the graphs`));
  });

  it('weighs under 100 KB with 500 operations, showing the worst first', async () => {
    harness = await mcpHarness('', { statusPage: true });
    for (let i = 0; i < 500; i++) harness.request(`/route-${i}/{id}`, 5 + (i % 50), i % 97 === 0);
    const v = visitor(harness);
    await v.signIn(TOKENS.lead);
    const html = await (await v.get('/')).text();
    expect(Buffer.byteLength(html)).toBeLessThan(100 * 1024);
    expect(html.match(/<tr data-operation=/g)).toHaveLength(MAX_OPERATION_ROWS);
    expect(html).toMatch(new RegExp(`… ${500 - MAX_OPERATION_ROWS} more operations \\(\\d+ [a-z ]+(, \\d+ [a-z ]+)*\\) left out`));
  });
});
