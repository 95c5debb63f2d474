/**
 * The status page as an on-call engineer uses it, in real headless Chromium (Debian's, driven by
 * playwright-core), on the tool server of a real orders service under the preload
 * (fixtures/orders-service), beside agents using the official MCP client: sign-in, the figures
 * held against the tools' answers, an incident followed through a fault as the page refreshes
 * itself, an approval given on the page that the agent's next call uses, a decline the agent is
 * told of, and the refusals (no cookie, a forged Origin, no CSRF token). Screenshots of the page
 * in the fault go to test-output/status-page/; axe-core checks the page for accessibility.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Chromium, chromiumInstalled, launchChromium } from '../browser/chromium.js';
import { type AgentCall, fixtureAgent } from '../support/fixture-agent.js';
import { type FixtureApp, freePort, ROOT, startFixture } from '../support/fixture-app.js';

const describeInChromium = chromiumInstalled() || process.env.CI ? describe : describe.skip;
const OPERATION = 'GET /orders/{id}';
const SHOTS = join(ROOT, 'test-output', 'status-page');

describeInChromium('the status page in Chromium, on a real service under the preload', () => {
  let app: FixtureApp;
  let chromium: Chromium;
  let page: Page;
  let origin: string;
  let triage: AgentCall;
  let ops: AgentCall;
  const clients: Client[] = [];
  const cspViolations: string[] = [];

  const fire = async (count: number) => {
    for (let i = 0; i < count; i++) await app.get(`/orders/${i}`);
  };

  /** The figures the page shows in `data-value` cells, per row key. */
  const pageFigures = (rowAttribute: string) =>
    page.$$eval(
      `tr[${rowAttribute}]`,
      (rows, attribute) =>
        Object.fromEntries(
          rows.map((row) => [
            row.getAttribute(attribute),
            Object.fromEntries([...row.querySelectorAll('td[data-figure]')].map((td) => [td.getAttribute('data-figure'), Number(td.getAttribute('data-value'))])),
          ]),
        ),
      rowAttribute,
    );

  beforeAll(async () => {
    const inventoryPort = await freePort();
    app = await startFixture({
      script: 'app.mjs',
      cwd: join(ROOT, 'fixtures', 'orders-service'),
      env: { OTEL_SERVICE_NAME: 'orders-service', INVENTORY_PORT: String(inventoryPort), SVC_PATTERNS_WINDOW: '6s' },
      args: [`-Dsvc.dependencies[0].health-endpoint=http://127.0.0.1:${inventoryPort}/health`],
    });
    // The tool server starts beside the app: its line may follow LISTENING.
    for (const until = Date.now() + 10_000; !/MCP tool server listening at/.test(app.stderr()) && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 50));
    const url = /MCP tool server listening at (\S+)/.exec(app.stderr())![1]!;
    origin = new URL(url).origin;
    triage = await fixtureAgent(url, 'triage-demo-token', 'triage-agent', clients);
    ops = await fixtureAgent(url, 'ops-demo-token', 'ops-agent', clients);
    await fire(60);
    chromium = await launchChromium();
    page = await chromium.context.newPage();
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    mkdirSync(SHOTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await chromium?.close();
    await app?.stop();
  });

  it('asks an anonymous visitor to sign in, refuses a wrong token, and signs in with a token for a short-lived HttpOnly SameSite=Strict cookie', async () => {
    const first = await page.goto(`${origin}/`);
    expect(first!.status()).toBe(401);
    expect(await page.textContent('h1')).toBe('Sign in');
    expect(await page.$('#main')).toBeNull();

    await page.fill('#token', 'not-a-token');
    await page.click('button[type=submit]');
    expect(await page.textContent('[role=alert]')).toContain('unknown bearer token');
    expect(await page.$('[data-status]')).toBeNull();

    await page.fill('#token', 'approver-demo-token');
    await Promise.all([page.waitForURL(`${origin}/`), page.click('button[type=submit]')]);
    expect(await page.textContent('header .who span')).toBe('alice (operator)');
    const [cookie] = (await chromium.context.cookies(origin)).filter((c) => c.name === 'svc_page');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false });
    expect(cookie!.expires * 1000 - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    expect(cookie!.expires * 1000 - Date.now()).toBeGreaterThan(14 * 60_000);
  });

  it('shows the figures the tools answer: operations as get_service_health, SLOs as get_slo_report', async () => {
    // Read twice around the tools' answers: no traffic flows meanwhile, so both reads are of the same state.
    await page.reload();
    const operations = await pageFigures('data-operation');
    const slos = await pageFigures('data-slo');
    const health = (await triage('get_service_health', { format: 'json' })).structuredContent as {
      status: string;
      operations: { name: string; throughputPerMinute: number; requestCount: number; errorRate: number; p50Ms: number; p99Ms: number }[];
    };
    const report = (await triage('get_slo_report', { format: 'json' })).structuredContent as { slos: { name: string; budgetRemaining: number; burnRate: number }[] };
    expect(await page.getAttribute('[data-status]', 'data-status')).toBe(health.status);
    expect(Object.keys(operations).sort()).toEqual(health.operations.map((o) => o.name).sort());
    for (const op of health.operations) {
      expect(operations[op.name]).toEqual({ throughputPerMinute: op.throughputPerMinute, requestCount: op.requestCount, errorRate: op.errorRate, p50Ms: op.p50Ms, p99Ms: op.p99Ms });
    }
    expect(report.slos.length).toBeGreaterThan(0);
    for (const slo of report.slos) expect(slos[slo.name]).toEqual({ budgetRemaining: slo.budgetRemaining, burnRate: slo.burnRate });
    expect(operations[OPERATION]!.requestCount).toBe(60);
  });

  it('follows an incident through a fault as it refreshes itself: status, story, timeline; readable on a phone; no serious accessibility violation', async () => {
    await app.get('/__fault', { method: 'POST', body: '{"inventory":"fail"}' });
    for (const until = Date.now() + 7500; Date.now() < until; ) {
      await fire(2);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // No reload: the page's own refresh brings the incident.
    const incident = page.locator(`article.incident[data-operation="${OPERATION}"]`);
    await incident.waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getAttribute('[data-status]', 'data-status'), { timeout: 10_000 }).toBe('CRITICAL');
    const context = await triage('get_incident_context', { operation_name: OPERATION });
    const incidentId = /INCIDENT (INC-\S+)/.exec(context.text)![1]!;
    expect(await incident.getAttribute('data-incident')).toBe(incidentId);
    const story = await incident.textContent();
    expect(story).toContain('error_rate_spike');
    expect(story).toMatch(/Probable cause/);
    expect(story).toContain('inventory-service');
    expect(story).toMatch(/\[HIGH\] enable_fallback:GET \/orders\/\{id\}/);
    expect(story).toContain('#checkout-oncall');
    expect(await incident.locator('.timeline li').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'status-page-fault.png'), fullPage: true });
    // The top of the page, for the README: status, reasons and the incidents.
    await page.screenshot({ path: join(SHOTS, 'status-page-fault-top.png'), clip: { x: 0, y: 0, width: 1000, height: 900 } });

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(SHOTS, 'status-page-fault-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1000, height: 700 });

    await page.evaluate(readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
    const violations = await page.evaluate(async () => {
      const result = await (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> } }).axe.run();
      return result.violations.map((v) => ({ id: v.id, impact: v.impact }));
    });
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    expect(cspViolations).toEqual([]);
  });

  it('lets the approver approve an agent’s request on the page, and the agent’s next call succeeds; a decline is told to the agent', async () => {
    const asked = await ops('execute_remediation', { action_name: 'flush_inventory_cache', reason: 'stale stock after the inventory fault' });
    expect(asked.isError).toBe(true);
    const approvalId = /Approval request (APR-\S+) is open/.exec(asked.text)![1]!;

    const card = page.locator(`article.approval[data-approval="${approvalId}"]`);
    await card.waitFor({ timeout: 15_000 });
    const shown = await card.textContent();
    expect(shown).toContain('ops-bot/ops-agent');
    expect(shown).toContain('stale stock after the inventory fault');
    expect(shown).toMatch(/INC-\S+ on GET \/orders\/\{id\}/);
    await card.locator('input[name=reason]').fill('cache is stale, checked');
    await Promise.all([page.waitForURL(/notice=approved/), card.locator('button[value=approve]').click()]);
    expect(await page.textContent('[role=status]')).toContain(`${approvalId} approved`);

    const done = await ops('execute_remediation', { action_name: 'flush_inventory_cache', reason: 'stale stock after the inventory fault', approved_by: approvalId });
    expect(done.isError).toBeFalsy();
    expect(done.text).toContain('REMEDIATION EXECUTED: flush_inventory_cache');
    const trail = await triage('get_recent_agent_actions');
    expect(trail.text).toMatch(new RegExp(`SUCCESS approve:${approvalId} by an approver; reason: cache is stale, checked`));

    const again = await ops('execute_remediation', { action_name: 'flush_inventory_cache', reason: 'once more' });
    const secondId = /Approval request (APR-\S+) is open/.exec(again.text)![1]!;
    await page.reload();
    const second = page.locator(`article.approval[data-approval="${secondId}"]`);
    await second.locator('input[name=reason]').fill('flushed a minute ago; wait');
    await Promise.all([page.waitForURL(/notice=declined/), second.locator('button[value=decline]').click()]);
    const refused = await ops('execute_remediation', { action_name: 'flush_inventory_cache', reason: 'once more', approved_by: secondId });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain(`approval request ${secondId} was declined by alice: "flushed a minute ago; wait"`);
    const audited = await ops('get_recent_agent_actions');
    expect(audited.text).toMatch(new RegExp(`SUCCESS decline:${secondId} by an approver; reason: flushed a minute ago; wait`));
  });

  it('refuses a form without the session cookie, from a forged Origin, or without the CSRF token, and the request stays open', async () => {
    const asked = await ops('execute_remediation', { action_name: 'flush_inventory_cache', reason: 'third time' });
    const approvalId = /Approval request (APR-\S+) is open/.exec(asked.text)![1]!;
    const session = (await chromium.context.cookies(origin)).find((c) => c.name === 'svc_page')!;
    await page.reload();
    const csrf = await page.getAttribute(`article.approval[data-approval="${approvalId}"] input[name=csrf]`, 'value');
    const post = (headers: Record<string, string>, form: Record<string, string>) =>
      fetch(`${origin}/approvals`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form) });
    const form = { csrf: csrf!, id: approvalId, decision: 'approve' };
    expect((await post({ origin }, form)).status).toBe(401);
    expect((await post({ origin: 'http://evil.example', cookie: `svc_page=${session.value}` }, form)).status).toBe(403);
    expect((await post({ origin: 'http://127.0.0.1:1', cookie: `svc_page=${session.value}` }, form)).status).toBe(403);
    expect((await post({ origin, cookie: `svc_page=${session.value}` }, { id: approvalId, decision: 'approve' })).status).toBe(403);
    expect((await post({ origin, cookie: `svc_page=${session.value}` }, { ...form, csrf: `${csrf}x` })).status).toBe(403);
    await page.reload();
    expect(await page.locator(`article.approval[data-approval="${approvalId}"]`).count()).toBe(1);
    // The same form, as the page sends it, is taken.
    expect((await post({ origin, cookie: `svc_page=${session.value}` }, form)).status).toBe(303);
  });

  it('refreshes itself every 5 s while the tab is visible, not while it is hidden, and at once when it shows again', async () => {
    // The page's own timers on Playwright's clock: time passes without waiting for it. The clock
    // is the whole context's, for every page loaded from now on: this test comes last.
    const watched = await chromium.context.newPage();
    await watched.clock.install();
    const refreshes: string[] = [];
    watched.on('request', (request) => {
      if (request.url().endsWith('/?fragment=main')) refreshes.push(request.url());
    });
    await watched.goto(`${origin}/`);
    await watched.clock.runFor(5_100);
    await expect.poll(() => refreshes.length).toBe(1);
    await watched.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await watched.clock.runFor(60_000);
    expect(refreshes.length).toBe(1);
    await watched.evaluate(() => {
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await expect.poll(() => refreshes.length).toBe(2);
    await watched.close();
  });
});
