/**
 * The shop of fixtures/browser-app under the preload, its frontend listener on another origin,
 * an OTLP receiver for the backend's spans, an MCP client, and a headless Chromium page whose
 * exports to the listener are decoded as they leave the browser.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'playwright-core';
import { FRONTEND } from '../../src/frontend/attribute-names.js';
import { type DecodedSpan, decodeJsonTraces } from '../../src/frontend/otlp-traces.js';
import { type FixtureApp, freePort, ROOT, startFixture } from '../support/fixture-app.js';
import { OtlpReceiver } from '../support/otlp-receiver.js';
import { type Chromium, launchChromium } from './chromium.js';

export interface OtherOrigin {
  readonly url: string;
  /** Headers of the requests received (preflights left out). */
  readonly received: IncomingHttpHeaders[];
  readonly server: Server;
}

/** A server on another origin that records the headers of what it receives and allows any CORS request. */
export async function otherOrigin(): Promise<OtherOrigin> {
  const received: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': 'GET' };
    if (req.method === 'OPTIONS') return res.writeHead(204, cors).end();
    received.push(req.headers);
    res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}

/** Polls `check` until it returns something truthy (browsers and exporters run on their own time). */
export async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const spanKind = (span: DecodedSpan) => span.attributes[FRONTEND.span];

export async function startShop() {
  const receiver = new OtlpReceiver();
  const otlp = await receiver.start();
  const third = await otherOrigin();
  const partner = await otherOrigin();
  const [appPort, frontendPort] = [await freePort(), await freePort()];
  const origin = `http://127.0.0.1:${appPort}`;
  const collector = `http://127.0.0.1:${frontendPort}/v1/traces`;
  const app: FixtureApp = await startFixture({
    script: 'server.mjs',
    cwd: join(ROOT, 'fixtures', 'browser-app'),
    otlpEndpoint: otlp,
    env: {
      OTEL_SERVICE_NAME: 'shop-backend',
      PORT: String(appPort),
      FRONTEND_URL: collector,
      THIRD_PARTY_URL: `${third.url}/widget`,
      PARTNER_URL: `${partner.url}/quote`,
      SVC_FRONTEND_PORT: String(frontendPort),
      SVC_FRONTEND_ALLOWED_ORIGINS: origin,
    },
  });
  await until(() => app.stderr().includes(`svc: browser telemetry listener at ${collector}`), 'the frontend listener');
  const mcpUrl = await until(() => /MCP tool server listening at (\S+)/.exec(app.stderr())?.[1], 'the MCP tool server');
  const mcp = new Client({ name: 'browser-test-agent', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));

  const chromium: Chromium = await launchChromium();
  const page: Page = await chromium.context.newPage();
  /** Spans the page exported, decoded from the requests Chromium sent to the collector. */
  const exported: DecodedSpan[] = [];
  /** Request headers of the page's calls to /api/*. */
  const apiRequests: { path: string; headers: Record<string, string> }[] = [];
  const consoleMessages: { type: string; text: string }[] = [];
  page.on('console', (message) => consoleMessages.push({ type: message.type(), text: message.text() }));
  page.on('response', async (response) => {
    if (response.url() === collector && response.status() >= 300) consoleMessages.push({ type: 'collector', text: `${response.status()} ${await response.text().catch(() => '')}` });
  });
  page.on('request', (request) => {
    if (request.url() === collector && request.method() === 'POST') exported.push(...decodeJsonTraces(request.postData() ?? '{}', { maxSpans: 10_000 }));
    const url = new URL(request.url());
    if (url.origin === origin && url.pathname.startsWith('/api/')) apiRequests.push({ path: url.pathname + url.search, headers: request.headers() });
  });

  const flush = () => page.evaluate(() => (window as unknown as { svc?: { forceFlush(): Promise<void> } }).svc?.forceFlush());
  return {
    app,
    receiver,
    third,
    partner,
    origin,
    collector,
    mcp,
    chromium,
    page,
    exported,
    apiRequests,
    consoleMessages,
    flush,
    /** Flushes until a span the page exported satisfies `predicate`. */
    exportedSpan: (what: string, predicate: (span: DecodedSpan) => boolean) =>
      until(async () => {
        await flush();
        return exported.find(predicate);
      }, what),
    /** Has the shop serve, at `path`, a page with the SDK's script tag and `script` (and a button #go). */
    async servePage(path: string, script: string): Promise<void> {
      const res = await app.get('/__lab/pages', { method: 'POST', body: JSON.stringify({ path, script }) });
      if (res.status !== 204) throw new Error(`the shop did not take the page ${path}: ${res.status}`);
    },
    async tool(name: string, args: Record<string, string>): Promise<string> {
      const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
      return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    },
    async screenshot(name: string): Promise<void> {
      mkdirSync(join(ROOT, 'test-output', 'browser'), { recursive: true });
      await page.screenshot({ path: join(ROOT, 'test-output', 'browser', name), fullPage: true }).catch(() => undefined);
    },
    async close(): Promise<void> {
      await mcp.close().catch(() => undefined);
      await chromium.close();
      await app.stop();
      await receiver.stop();
      third.server.close();
      partner.server.close();
    },
  };
}

export type Shop = Awaited<ReturnType<typeof startShop>>;
