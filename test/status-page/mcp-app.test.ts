/**
 * The MCP Apps view (io.modelcontextprotocol/ui) of get_service_health and get_incident_context,
 * over both protocol revisions with the official MCP client: the tools link the ui:// resource,
 * the resource reads as `text/html;profile=mcp-app`, the tools' answers are the same text as
 * without it. Then in Chromium: the official host side of the extension (AppBridge of
 * @modelcontextprotocol/ext-apps, bundled for the page by esbuild) renders the resource in a
 * sandboxed iframe under a host's strict CSP, and hands it the tools' real results.
 */
import { join } from 'node:path';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/app-bridge';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import { chromiumInstalled, launchChromium } from '../browser/chromium.js';
import { ROOT } from '../support/fixture-app.js';
import { driveIncident, mcpHarness, PROTOCOLS, TOKENS } from '../support/mcp-harness.js';

let harness: Awaited<ReturnType<typeof mcpHarness>> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const describeInChromium = chromiumInstalled() || process.env.CI ? describe : describe.skip;

describe.each(PROTOCOLS)('the MCP App over %s', (protocol) => {
  it('links get_service_health and get_incident_context to a ui:// resource that reads as an MCP App, for READ callers', async () => {
    harness = await mcpHarness('', { protocol, approverTokens: true });
    const client = await harness.connect(TOKENS.watch);
    const { tools } = await client.listTools();
    const linked = tools.filter((t) => (t._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri).map((t) => t.name);
    expect(linked.sort()).toEqual(['get_incident_context', 'get_service_health']);
    const uri = (tools.find((t) => t.name === 'get_service_health')!._meta!.ui as { resourceUri: string }).resourceUri;
    expect(uri).toMatch(/^ui:\/\//);
    expect(RESOURCE_URI_META_KEY).toBe('ui/resourceUri');

    const { resources } = await client.listResources();
    expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([[uri, RESOURCE_MIME_TYPE]]);
    const read = await client.readResource({ uri });
    const [content] = read.contents as { uri: string; mimeType: string; text: string; _meta: { ui: { csp: Record<string, string[]> } } }[];
    expect(content!.mimeType).toBe(RESOURCE_MIME_TYPE);
    expect(content!.text).toMatch(/^<!doctype html>/);
    expect(content!.text).not.toMatch(/\b(src|href)=/);
    expect(content!._meta.ui.csp).toEqual({ connectDomains: [], resourceDomains: [] });
    await expect(client.readResource({ uri: 'ui://svc/other' })).rejects.toThrow(/unknown resource/);
  });

  it('leaves the tools’ answers as they were: text, no structured content for the text format', async () => {
    harness = await mcpHarness('', { protocol });
    driveIncident(harness);
    const result = await harness.call(await harness.connect(TOKENS.triage), 'get_service_health');
    expect(result.structuredContent).toBeUndefined();
    expect(result.text).toMatch(/^SERVICE HEALTH: /);
  });
});

describeInChromium('the MCP App in Chromium', () => {
  it('renders the health and incident views in a sandboxed iframe under a host’s CSP, from the tools’ real results', async () => {
    harness = await mcpHarness('', { approverTokens: true });
    driveIncident(harness);
    const client = await harness.connect(TOKENS.watch);
    const { tools } = await client.listTools();
    const uri = (tools.find((t) => t.name === 'get_service_health')!._meta!.ui as { resourceUri: string }).resourceUri;
    const html = ((await client.readResource({ uri })).contents[0] as { text: string }).text;
    const health = await client.callTool({ name: 'get_service_health', arguments: {} });
    const incident = await client.callTool({ name: 'get_incident_context', arguments: { operation_name: 'GET /orders/{id}' } });

    const bundle = await build({
      stdin: { contents: "export { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';", resolveDir: ROOT, loader: 'js' },
      bundle: true,
      format: 'iife',
      globalName: 'extApps',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    });
    const chromium = await launchChromium();
    try {
      const page = await chromium.context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.setContent('<!doctype html><html><body></body></html>');
      await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
      // A host's CSP for a view that declares no domain: inline code only, no network origin.
      const csp = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'";
      const render = (result: unknown, args: Record<string, string>) =>
        page.evaluate(
          async ({ html, csp, result, args }) => {
            const { AppBridge, PostMessageTransport } = (window as unknown as { extApps: typeof import('@modelcontextprotocol/ext-apps/app-bridge') }).extApps;
            document.body.replaceChildren();
            const iframe = document.createElement('iframe');
            iframe.setAttribute('sandbox', 'allow-scripts');
            iframe.width = '900';
            iframe.height = '640';
            iframe.srcdoc = html.replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="${csp}">`);
            const bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, {});
            const initialized = new Promise<void>((resolve) => {
              bridge.oninitialized = () => resolve();
            });
            // The view starts its handshake once its document loads, after this task: the bridge listens by then.
            document.body.append(iframe);
            await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
            await initialized;
            await bridge.sendToolInput({ arguments: args });
            await bridge.sendToolResult(result as Parameters<typeof bridge.sendToolResult>[0]);
          },
          { html, csp, result, args },
        );
      await render(health, {});
      const view = page.frameLocator('iframe');
      await expect.poll(() => view.locator('h1').textContent()).toMatch(/^SERVICE HEALTH: .* \| STATUS: (DEGRADED|CRITICAL)/);
      expect(await view.locator('h1').getAttribute('class')).toMatch(/DEGRADED|CRITICAL/);
      expect(await view.locator('h2').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/^OPERATIONS/), 'DEPENDENCIES', 'SLOs', 'REASONS']));
      expect(await view.locator('pre').first().textContent()).toContain('GET /orders/{id}');
      await page.screenshot({ path: join(ROOT, 'test-output', 'status-page', 'mcp-app-health.png') });

      await render(incident, { operation_name: 'GET /orders/{id}' });
      await expect.poll(() => view.locator('h1').textContent()).toMatch(/^INCIDENT INC-/);
      expect(await view.locator('h2').allTextContents()).toEqual(expect.arrayContaining(['WHAT IS HAPPENING', 'WHAT CHANGED', 'WHAT IS AFFECTED', 'SUGGESTED ACTIONS']));
      expect(await view.locator('main').getAttribute('data-arguments')).toBe('{"operation_name":"GET /orders/{id}"}');
      expect(errors).toEqual([]);
    } finally {
      await chromium.close();
    }
  });
});
