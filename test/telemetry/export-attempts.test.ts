/**
 * The real OTLP/HTTP trace exporter against 127.0.0.1: each failed attempt reaches the watcher as
 * it happens, before the retrying exporter gives its result; a 2xx answer, another path and a
 * stopped watcher are not reported.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { type ReadableSpan, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, expect, it } from 'vitest';
import { watchFailedAttempts } from '../../src/telemetry/export-attempts.js';
import { freePort } from '../support/fixture-app.js';

let server: Server | undefined;
let stopWatching = (): void => {};

afterEach(async () => {
  stopWatching();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

function oneSpan(): ReadableSpan[] {
  const spans: ReadableSpan[] = [];
  const collect = { onStart() {}, onEnd: (span: ReadableSpan) => spans.push(span), forceFlush: async () => {}, shutdown: async () => {} };
  new TracerProvider({ spanProcessors: [collect] }).getTracer('test').startSpan('GET /orders').end();
  return spans;
}

/** Exports one span to `url`; resolves with the result and the attempt failures seen before it. */
function exportOnce(url: string, watched: string, timeoutMillis: number): Promise<{ result: ExportResult; failuresBefore: string[] }> {
  const failures: string[] = [];
  stopWatching();
  stopWatching = watchFailedAttempts([{ endpoint: watched, attemptFailed: (error) => failures.push(error instanceof Error ? error.message : String(error)) }]);
  return new Promise((resolve) => new OTLPTraceExporter({ url, timeoutMillis }).export(oneSpan(), (result) => resolve({ result, failuresBefore: [...failures] })));
}

async function collector(status: number): Promise<string> {
  server = createServer((req, res) => req.resume().on('end', () => res.writeHead(status).end()));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

it('sees each refused attempt while the exporter retries, before its result', async () => {
  const url = `http://127.0.0.1:${await freePort()}/v1/traces`;
  // 1.5 s leaves room for the first retry (0.8-1.2 s later) and not for the second (1.5 times later)
  const { result, failuresBefore } = await exportOnce(url, url, 1500);
  expect(result.error?.message).toMatch(/ECONNREFUSED/);
  expect(failuresBefore).toHaveLength(2);
  for (const failure of failuresBefore) expect(failure).toMatch(/^connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
});

it('reports a non-2xx answer with its status, matched without the query', async () => {
  const origin = await collector(503);
  const { failuresBefore } = await exportOnce(`${origin}/v1/traces?tenant=a`, `${origin}/v1/traces`, 500);
  expect(failuresBefore).toEqual(['HTTP 503 Service Unavailable']);
});

it('reports nothing for a 2xx answer, for another endpoint, or once stopped', async () => {
  const origin = await collector(200);
  expect((await exportOnce(`${origin}/v1/traces`, `${origin}/v1/traces`, 500)).result.code).toBe(0);
  const refused = `http://127.0.0.1:${await freePort()}/v1/traces`;
  expect((await exportOnce(refused, `${origin}/v1/traces`, 500)).failuresBefore).toEqual([]);
  const failures: unknown[] = [];
  watchFailedAttempts([{ endpoint: refused, attemptFailed: (error) => failures.push(error) }])();
  await new Promise((resolve) => new OTLPTraceExporter({ url: refused, timeoutMillis: 500 }).export(oneSpan(), resolve));
  expect(failures).toEqual([]);
});
