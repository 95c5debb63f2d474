/**
 * The browser telemetry listener over real HTTP on 127.0.0.1: OTLP JSON, protobuf and gzip as
 * real exporters send them, CORS for allowed origins only, and every limit answered with a clear
 * 4xx while the listener keeps serving.
 */
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { FrontendListener } from '../../src/frontend/frontend-listener.js';
import { FrontendTelemetry } from '../../src/frontend/frontend-telemetry.js';
import { apiCall, browserSpans, json, pageLoad, protobuf } from './browser-spans.js';

const SHOP = 'http://shop.example.com:8080';
let listener: FrontendListener | undefined;
const ownPorts = new Set<number>();
afterEach(async () => {
  await listener?.stop();
  listener = undefined;
});

async function start(options: Partial<ConstructorParameters<typeof FrontendListener>[0]> = {}) {
  const clock = new FakeClock();
  const telemetry = new FrontendTelemetry({ clock, maxRecords: 1000, maxRoutes: 100, maxSessions: 100 });
  listener = new FrontendListener({
    host: '127.0.0.1',
    port: 0,
    allowedOrigins: [SHOP],
    maxBodyBytes: 64 * 1024,
    maxSpansPerRequest: 100,
    rateLimitPerMinute: 1000,
    telemetry,
    ownPorts,
    now: () => clock.now(),
    ...options,
  });
  const url = await listener.start();
  return { url, telemetry, clock };
}

function post(url: string, body: Uint8Array | string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', body: typeof body === 'string' ? body : Buffer.from(body), headers: { 'content-type': 'application/json', ...headers } });
}

const spans = browserSpans([pageLoad('s1', 900), apiCall('s1', 150)]);

describe('accepting OTLP/HTTP traces', () => {
  it('takes JSON, protobuf and gzip-compressed protobuf (a Collector otlphttp exporter) at /v1/traces', async () => {
    const { url, telemetry } = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/traces$/);
    const fromJson = await post(url, json(spans), { origin: SHOP });
    expect(fromJson.status).toBe(200);
    expect(await fromJson.text()).toBe('{}');
    expect(fromJson.headers.get('access-control-allow-origin')).toBe(SHOP);
    const fromProto = await post(url, protobuf(spans), { 'content-type': 'application/x-protobuf' });
    expect(fromProto.status).toBe(200);
    expect(fromProto.headers.get('content-type')).toBe('application/x-protobuf');
    const gzipped = await post(url, gzipSync(protobuf(spans)), { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
    expect(gzipped.status).toBe(200);
    expect(telemetry.spansReceived).toBe(6);
    expect(telemetry.summary().apps.map((a) => a.name)).toEqual(['shop-web']);
    expect(ownPorts.has(listener!.port)).toBe(true);
  });

  it('answers a CORS preflight from an allowed origin and refuses any other origin with 403', async () => {
    const { url, telemetry } = await start();
    const preflight = await fetch(url, { method: 'OPTIONS', headers: { origin: SHOP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('content-type');

    for (const method of ['OPTIONS', 'POST']) {
      const evil = await fetch(url, { method, body: method === 'POST' ? Buffer.from(json(spans)) : undefined, headers: { origin: 'http://evil.example.com', 'content-type': 'application/json' } });
      expect(evil.status).toBe(403);
      expect(evil.headers.get('access-control-allow-origin')).toBeNull();
      expect(((await evil.json()) as { error: string }).error).toBe('origin "http://evil.example.com" is not in svc.frontend.allowed-origins; add it there to accept telemetry from its pages');
    }
    expect(telemetry.spansReceived).toBe(0);
  });

  it('answers what is wrong with a clear 4xx, takes nothing from it, and keeps serving', async () => {
    const { url, telemetry } = await start({ maxSpansPerRequest: 1 });
    const base = url.replace('/v1/traces', '');
    const cases: [Promise<Response>, number, RegExp][] = [
      [post(`${base}/v1/logs`, '{}'), 404, /browser telemetry is received at POST \/v1\/traces/],
      [fetch(url), 405, /method GET not allowed/],
      [post(url, '{"resourceSpans": [', {}), 400, /^body is not valid JSON/],
      [post(url, Uint8Array.from([0x0a, 0x05, 0x01]), { 'content-type': 'application/x-protobuf' }), 400, /^protobuf body is malformed: length-delimited field runs past its message at byte 2/],
      [post(url, 'x', { 'content-type': 'text/plain' }), 415, /content-type "text\/plain" is not accepted/],
      [post(url, json(spans), { 'content-encoding': 'br' }), 415, /content-encoding "br" is not accepted/],
      [post(url, 'not gzip', { 'content-encoding': 'gzip' }), 400, /body is not valid gzip/],
      [post(url, json(spans)), 413, /more than 1 spans in one request \(svc.frontend.max-spans-per-request\)/],
      [post(url, 'x'.repeat(70 * 1024)), 413, /body larger than 65536 bytes \(svc.frontend.max-body-bytes\)/],
    ];
    for (const [response, status, message] of cases) {
      const res = await response;
      expect(res.status).toBe(status);
      expect(((await res.json()) as { error: string }).error).toMatch(message);
    }
    expect(telemetry.spansReceived).toBe(0);
    expect((await post(url, json(browserSpans([pageLoad('s1', 1)])))).status).toBe(200);
    expect(telemetry.spansReceived).toBe(1);
  });

  it('refuses a body whose gzip expands beyond the limit (a zip bomb) with 413', async () => {
    const { url, telemetry } = await start();
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const res = await post(url, bomb, { 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toBe('decompressed body larger than 65536 bytes (svc.frontend.max-body-bytes)');
    expect(telemetry.spansReceived).toBe(0);
  });

  it('refuses a chunked body that grows past the limit without reading it whole', async () => {
    const { url } = await start();
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      let sent = 0;
      const write = (): void => {
        // Keeps sending well past the limit; the listener answers and closes.
        while (sent < 100 && req.write(chunk)) sent++;
        if (sent < 100) req.once('drain', write);
        else req.end();
      };
      write();
    }).catch((error: NodeJS.ErrnoException) => ({ status: error.code === 'ECONNRESET' || error.code === 'EPIPE' ? 413 : 0, body: '{"error":"body larger than 65536 bytes"}' }));
    expect(status).toBe(413);
    expect(body).toContain('body larger than 65536 bytes');
  });

  it('limits requests per origin per minute with 429 and Retry-After; other origins are not affected', async () => {
    const other = 'https://admin.example.com';
    const { url, clock } = await start({ rateLimitPerMinute: 3, allowedOrigins: [SHOP, other] });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(url, json(spans), { origin: SHOP })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await post(url, json(spans), { origin: SHOP });
    expect(limited.headers.get('retry-after')).toBe('20');
    expect(((await limited.json()) as { error: string }).error).toMatch(/rate limit of 3 requests per minute for this origin exceeded/);
    expect((await post(url, json(spans), { origin: other })).status).toBe(200);
    clock.advance(20_000);
    expect((await post(url, json(spans), { origin: SHOP })).status).toBe(200);
  });

  it('says why it cannot listen when the port is taken', async () => {
    const { url } = await start();
    const port = Number(new URL(url).port);
    const second = new FrontendListener({ ...(listener as unknown as { options: ConstructorParameters<typeof FrontendListener>[0] }).options, port });
    await expect(second.start()).rejects.toThrow(`svc.frontend.port ${port} on 127.0.0.1 is taken by another process; browser telemetry is not received`);
  });
});
