/**
 * Floods the listener, over real HTTP on 127.0.0.1, with what makes svc hold the most: every id,
 * session, route, app and journey distinct and every string at its longest (two-byte characters),
 * and strings far longer than the decoder keeps. What stays after garbage collection must be
 * under the bound docs/browser.md states (FRONTEND_MEMORY), scaled to the limits of the test.
 */
import { afterEach, expect, it } from 'vitest';
import { FRONTEND, FRONTEND_ANOMALY, FRONTEND_EVENT } from '../../src/frontend/attribute-names.js';
import { FRONTEND_MEMORY, frontendMemoryBound } from '../../src/frontend/frontend-telemetry.js';
import { formatBytes } from '../../src/shared/memory-size.js';
import { otlpJson, post, type RawSpan, retainedBytes, SHOP, startListener, stopListeners } from './hostile-support.js';

afterEach(stopListeners);

/** `n` characters of two-byte text, distinct per seed. */
const longest = (n: number, seed: string) => `${seed}:`.padEnd(n, '€');

it('keeps strings of a flood at what it caps them to, not the megabyte strings they were cut from', async () => {
  const { url, telemetry } = await startListener({ maxBodyBytes: 2 * 1024 * 1024 }, { maxRecords: 1000, maxRoutes: 100, maxSessions: 1000 });
  const huge = (what: string, i: number) => `${what}-${i}-`.padEnd(500_000, 'x');
  const send = async (i: number) => {
    // One span whose session, route and app name are each half a megabyte long.
    const body = otlpJson([{ attributes: { [FRONTEND.span]: 'api_call', [FRONTEND.session]: huge('s', i), [FRONTEND.route]: huge('r', i), 'http.request.method': 'GET' } }], {
      'service.name': huge('app', i),
    });
    const res = await post(url, body, { origin: SHOP });
    expect(res.status).toBe(200);
  };
  // Warms up the client and the listener (their buffers and code are not what svc keeps).
  for (let i = 0; i < 5; i++) await send(-i);
  const before = retainedBytes();
  const requests = 100;
  for (let i = 0; i < requests; i++) await send(i);
  const grown = retainedBytes() - before;
  console.log(`hostile memory: ${requests} requests with 500,000-character strings retained ${formatBytes(grown)}`);
  expect(telemetry.spansReceived).toBe(requests + 5);
  // Without copying what is kept, each record held its 500 KB session and route: 100 MB.
  expect(grown).toBeLessThan(8 * 1024 * 1024);
}, 60_000);

it('stays under the documented bound when every record, session and route is distinct and at its longest', async () => {
  const limits = { maxRecords: 2000, maxRoutes: 100, maxSessions: 10_000 };
  const { url, telemetry } = await startListener({ maxBodyBytes: 16 * 1024 * 1024, maxSpansPerRequest: 1000 }, limits);
  const bound = frontendMemoryBound(limits);
  // Warms up the client and the listener (their buffers and code are not what svc keeps).
  for (let i = 0; i < 3; i++) expect((await post(url, otlpJson([{}]), { origin: SHOP })).status).toBe(200);
  const before = retainedBytes();
  const text = FRONTEND_MEMORY.textChars;
  let n = 0;
  let sent = 0;
  const span = (kind: 'api_call' | 'page_load' | undefined): RawSpan => {
    n++;
    const route = longest(4096, `route${n}`);
    return {
      name: kind === 'page_load' ? 'documentLoad' : 'GET',
      kind: kind === 'api_call' ? 3 : 1,
      status: { code: 2 },
      attributes: {
        ...(kind && { [FRONTEND.span]: kind }),
        [FRONTEND.session]: longest(4096, `session${n}`),
        [FRONTEND.route]: route,
        'http.request.method': 'GET',
        [FRONTEND.businessCriticality]: longest(text * 2, `c${n}`),
        [FRONTEND.runbookUrl]: longest(text * 2, `u${n}`),
        [FRONTEND.escalationLevel]: longest(text * 2, `e${n}`),
        [FRONTEND.fallbackPage]: longest(text * 2, `f${n}`),
        [FRONTEND.journeyName]: longest(text * 2, `j${n}`),
        [FRONTEND.journeyStep]: 1,
        [FRONTEND.journeySteps]: 3,
        [FRONTEND.pageLoadMs]: 900,
      },
      events: kind
        ? [
            { name: FRONTEND_EVENT.anomaly, attributes: { [FRONTEND_ANOMALY.pattern]: 'rage_click', [FRONTEND.route]: longest(4096, `a${n}`) } },
            {
              name: FRONTEND_EVENT.journey,
              attributes: { [FRONTEND.journeyName]: longest(4096, `j${n}`), [FRONTEND.journeyStatus]: 'abandoned', [FRONTEND.journeyStep]: 2, [FRONTEND.journeyBaselineCompletionRate]: 0.5 },
            },
          ]
        : [],
    };
  };
  const send = async (kind: 'api_call' | 'page_load' | undefined, count: number) => {
    for (let done = 0; done < count; done += 100) {
      const spans = Array.from({ length: Math.min(100, count - done) }, () => span(kind));
      const res = await post(url, otlpJson(spans, { 'service.name': longest(4096, `app${n}`), 'service.version': longest(4096, `v${n}`) }), { origin: SHOP });
      expect(res.status).toBe(200);
      sent += spans.length;
    }
  };
  // Twice the capacity of each kind, then sessions beyond their cap.
  await send('api_call', 2 * limits.maxRecords);
  await send('page_load', 2 * limits.maxRecords);
  await send(undefined, limits.maxSessions);
  // Backend server spans continuing browser traces, twice as many as are kept. Operation names
  // are the backend's own (bounded by svc.limits.max-operations), not the browsers'.
  for (let i = 0; i < 2 * limits.maxRecords; i++)
    telemetry.spanProcessor.onEnd({
      kind: 1,
      name: 'GET /api/orders',
      attributes: { 'svc.operation.name': 'GET /api/orders' },
      parentSpanContext: { isRemote: true, spanId: `${i}`.padStart(16, '0'), traceId: `${i}`.padStart(32, '0'), traceFlags: 1 },
      spanContext: () => ({ traceId: `${i}`.padStart(32, '0'), spanId: `${i}`.padStart(16, 'f'), traceFlags: 1 }),
    } as never);
  const grown = retainedBytes() - before;
  console.log(`hostile memory: ${sent} spans, every string distinct and longest, retained ${formatBytes(grown)}; bound for ${JSON.stringify(limits)}: ${formatBytes(bound)}`);
  expect(telemetry.summary().sessionsCapped).toBe(true);
  expect(grown).toBeLessThan(bound);
}, 120_000);
