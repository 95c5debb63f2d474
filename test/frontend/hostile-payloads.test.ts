/**
 * Payloads no exporter sends, over real HTTP on 127.0.0.1: nesting that would overflow the stack,
 * absurd protobuf lengths and varints, invalid UTF-8, and spans whose times or values would poison
 * the P50s, baselines and counts get_cross_stack_context shows. Each is refused with a 400 saying
 * what is wrong, or taken without what is implausible in it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FRONTEND } from '../../src/frontend/attribute-names.js';
import { errorOf, hex, otlpJson, post, type RawSpan, SHOP, startListener, stopListeners } from './hostile-support.js';

afterEach(stopListeners);

const varint = (n: number): number[] => {
  const out: number[] = [];
  while (n > 127) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
};
const field = (number: number, bytes: Uint8Array | number[]): Buffer => Buffer.concat([Buffer.from([(number << 3) | 2, ...varint(bytes.length)]), Buffer.from(bytes)]);

/** An ExportTraceServiceRequest of one span with one attribute whose value is `anyValue`. */
function protoRequest(anyValue: Buffer): Buffer {
  const span = Buffer.concat([field(1, Buffer.alloc(16, 1)), field(2, Buffer.alloc(8, 2)), field(5, Buffer.from('GET')), field(9, Buffer.concat([field(1, Buffer.from('deep')), anyValue]))]);
  return field(1, field(2, field(2, span)));
}

/** An AnyValue `levels` arrays deep (built from the inside out, without copying per level). */
function nestedArrays(levels: number): Buffer {
  const inner = [0x0a, 1, 0x78];
  const prefixes: number[][] = [];
  let length = inner.length;
  for (let i = 0; i < levels; i++) {
    const arrayValue = [0x0a, ...varint(length)];
    length += arrayValue.length;
    const anyValue = [0x2a, ...varint(length)];
    length += anyValue.length;
    prefixes.push(arrayValue, anyValue);
  }
  return field(2, Buffer.from([...prefixes.reverse().flat(), ...inner]));
}

const proto = { 'content-type': 'application/x-protobuf' };

describe('hostile bytes', () => {
  it('takes a value nested 100,000 arrays deep without descending into it (was: stack overflow, 500)', async () => {
    const { url, telemetry } = await startListener({ maxBodyBytes: 2 * 1024 * 1024 });
    const body = protoRequest(nestedArrays(100_000));
    const started = Date.now();
    const res = await post(url, body, proto);
    console.log(`hostile payloads: ${body.length} bytes of nested arrays answered ${res.status} in ${Date.now() - started} ms`);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(telemetry.spansReceived).toBe(1);
  });

  it('refuses absurd protobuf lengths and varints with 400 saying where', async () => {
    const { url, telemetry } = await startListener();
    const cases: [number[], RegExp][] = [
      // resource_spans with a length of 2^63.
      [[0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], /length-delimited field runs past its message at byte 10/],
      // An 11-byte varint.
      [[0x0a, ...Array(10).fill(0xff), 0x01], /varint longer than 10 bytes/],
      // A varint cut off.
      [[0x0a, 0xff], /truncated varint at byte 2/],
      // Wire type 7 does not exist.
      [[0x0f], /unsupported wire type 7/],
      // A trace id of 17 bytes.
      [[...protoRequest(field(2, [0x0a, 1, 0x78]))].map((b, i, all) => (i === all.indexOf(0x0a, 6) + 1 ? 17 : b)), /malformed|trace_id/],
    ];
    for (const [bytes, message] of cases) {
      const res = await post(url, Uint8Array.from(bytes), proto);
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toMatch(message);
    }
    expect(telemetry.spansReceived).toBe(0);
  });

  it('refuses JSON nested a million deep with 400, fast', async () => {
    const { url } = await startListener({ maxBodyBytes: 4 * 1024 * 1024 });
    const started = Date.now();
    const res = await post(url, `{"resourceSpans":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`);
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe('resourceSpans[0] must be an object');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('takes invalid UTF-8 as replacement characters, not as an error of the host', async () => {
    const { url, telemetry } = await startListener();
    const text = otlpJson([{ attributes: { [FRONTEND.span]: 'page_load', [FRONTEND.session]: 'SESSION', [FRONTEND.route]: '/ROUTE', [FRONTEND.pageLoadMs]: 5 } }]);
    const bytes = Buffer.from(text);
    for (const marker of ['SESSION', '/ROUTE']) bytes.set([0xff, 0xc3, 0x28], bytes.indexOf(marker) + 2);
    const res = await post(url, bytes, { origin: SHOP });
    expect(res.status).toBe(200);
    expect(telemetry.spansReceived).toBe(1);
  });
});

/** A backend server span continuing the browser call `spanId` of `traceId` in `operation`. */
function link(telemetry: Awaited<ReturnType<typeof startListener>>['telemetry'], traceId: string, spanId: string, operation = 'GET /api/orders'): void {
  telemetry.spanProcessor.onEnd({
    kind: 1,
    name: operation,
    attributes: { 'svc.operation.name': operation },
    parentSpanContext: { isRemote: true, spanId, traceId, traceFlags: 1 },
    spanContext: () => ({ traceId, spanId: 'f'.repeat(16), traceFlags: 1 }),
  } as never);
}

const NOW_NS = 1767225600000000000n;
const ns = (ms: number) => String(NOW_NS + BigInt(Math.round(ms * 1e6)));
const route = { [FRONTEND.route]: '/checkout' };

describe('values that would poison what the tools show', () => {
  it('records no API call or page load whose duration is missing, negative or beyond 10 minutes', async () => {
    const { url, telemetry } = await startListener();
    const calls: RawSpan[] = [
      { startTimeUnixNano: ns(0), endTimeUnixNano: ns(150) },
      { startTimeUnixNano: ns(0), endTimeUnixNano: ns(160) },
      { startTimeUnixNano: ns(0), endTimeUnixNano: ns(140) },
      // No start time: the duration would be 56 years.
      { startTimeUnixNano: undefined as never, endTimeUnixNano: ns(150) },
      { startTimeUnixNano: '0', endTimeUnixNano: ns(150) },
      // End before start, and a year-long call.
      { startTimeUnixNano: ns(150), endTimeUnixNano: ns(0) },
      { startTimeUnixNano: ns(0), endTimeUnixNano: ns(365 * 24 * 3600e3) },
      { startTimeUnixNano: '1', endTimeUnixNano: '18446744073709551615' },
    ].map((times, i) => ({
      ...times,
      traceId: hex(i + 1, 32),
      spanId: hex(i + 1, 16),
      attributes: { ...route, [FRONTEND.span]: 'api_call', 'http.request.method': 'GET', [FRONTEND.session]: `s${i}` },
    }));
    const body = JSON.parse(otlpJson(calls)) as { resourceSpans: { scopeSpans: { spans: { startTimeUnixNano?: string }[] }[] }[] };
    delete body.resourceSpans[0]!.scopeSpans[0]!.spans[3]!.startTimeUnixNano;
    const loads: RawSpan[] = [900, -5, 1e300, 2e9, 800].map((ms, i) => ({
      name: 'documentLoad',
      kind: 1,
      attributes: { ...route, [FRONTEND.span]: 'page_load', [FRONTEND.pageLoadMs]: ms, [FRONTEND.session]: `p${i}` },
    }));
    expect((await post(url, JSON.stringify(body))).status).toBe(200);
    expect((await post(url, otlpJson(loads))).status).toBe(200);
    for (let i = 0; i < calls.length; i++) link(telemetry, hex(i + 1, 32), hex(i + 1, 16));
    const view = telemetry.crossStack('GET /api/orders');
    expect(view.apiCallDurationsMs.map(Math.round)).toEqual([150, 160, 140]);
    expect(view.pageLoadDurationsMs).toEqual([900, 800]);
  });

  it('ignores baselines and journey steps no SDK sends: negative, NaN, infinite, rates above 1, step beyond steps', async () => {
    const { url, telemetry } = await startListener();
    const good = {
      [FRONTEND.pageLoadP50Ms]: 800,
      [FRONTEND.apiCallP50Ms]: 120,
      [FRONTEND.interactionErrorRate]: 0.01,
      [FRONTEND.journeyName]: 'purchase',
      [FRONTEND.journeyStep]: 3,
      [FRONTEND.journeySteps]: 3,
    };
    const bad = {
      [FRONTEND.pageLoadP50Ms]: -1,
      [FRONTEND.apiCallP50Ms]: 1e308,
      [FRONTEND.interactionErrorRate]: 7,
      [FRONTEND.journeyName]: 'purchase',
      [FRONTEND.journeyStep]: 1e9,
      [FRONTEND.journeySteps]: 3,
    };
    const call = (attributes: Record<string, number | string>, n: number): RawSpan => ({
      traceId: hex(n, 32),
      spanId: hex(n, 16),
      startTimeUnixNano: ns(0),
      endTimeUnixNano: ns(100),
      attributes: { ...route, ...attributes, [FRONTEND.span]: 'api_call', 'http.request.method': 'GET' },
    });
    expect((await post(url, otlpJson([call(good, 1), call(bad, 2)]))).status).toBe(200);
    // NaN and Infinity as OTLP/JSON spells them.
    const nan = otlpJson([call({}, 3)]).replace(
      '"attributes":[',
      '"attributes":[{"key":"svc.frontend.baseline.page_load_p50_ms","value":{"doubleValue":"NaN"}},{"key":"svc.frontend.baseline.api_call_p50_ms","value":{"doubleValue":"Infinity"}},',
    );
    expect((await post(url, nan)).status).toBe(200);
    for (const n of [1, 2, 3]) link(telemetry, hex(n, 32), hex(n, 16));
    const { route: info } = telemetry.crossStack('GET /api/orders');
    expect(info).toMatchObject({ pageLoadP50Ms: 800, apiCallP50Ms: 120, interactionErrorRate: 0.01, journey: { name: 'purchase', step: 3, steps: 3 } });
  });

  it('counts a span sent again (an exporter retry, a replay) once', async () => {
    const { url, telemetry } = await startListener();
    const failing: RawSpan = {
      traceId: hex(7, 32),
      spanId: hex(7, 16),
      status: { code: 2 },
      attributes: { ...route, [FRONTEND.span]: 'api_call', 'http.request.method': 'GET', [FRONTEND.session]: 's1' },
    };
    for (let i = 0; i < 5; i++) expect((await post(url, otlpJson([failing]))).status).toBe(200);
    link(telemetry, hex(7, 32), hex(7, 16));
    const view = telemetry.crossStack('GET /api/orders');
    expect(view.calls).toBe(1);
    expect(view.failedCalls).toBe(1);
  });
});
