/**
 * The OTLP decoder against bytes made by OpenTelemetry's own serializers: JSON and protobuf give
 * the same spans, and every cap and malformed input is handled as documented.
 */
import { SpanKind } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { FRONTEND, FRONTEND_EVENT } from '../../src/frontend/attribute-names.js';
import { decodeJsonTraces, decodeProtobufTraces, OTLP_LIMITS, OtlpDecodeError, TooManySpansError } from '../../src/frontend/otlp-traces.js';
import { anomaly, apiCall, browserSpans, json, pageLoad, protobuf } from './browser-spans.js';

const LIMITS = { maxSpans: 1000 };
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('decoding OTLP traces', () => {
  const spans = browserSpans([pageLoad('s1', 900), apiCall('s1', 150, { error: true }), anomaly('s1', 'rage_click')]);

  it('reads ids, names, kinds, times, status, attributes, events and the resource from JSON and protobuf alike', () => {
    const fromJson = decodeJsonTraces(text(json(spans)), LIMITS);
    const fromProto = decodeProtobufTraces(protobuf(spans), LIMITS);
    expect(fromProto).toEqual(fromJson);
    expect(fromJson).toHaveLength(3);
    const [load, call, click] = fromJson;
    expect(load!.traceId).toBe(spans[0]!.spanContext().traceId);
    expect(load!.spanId).toBe(spans[0]!.spanContext().spanId);
    expect(load!.parentSpanId).toBe('');
    expect(load!.attributes[FRONTEND.pageLoadMs]).toBe(900);
    expect(load!.resource['service.name']).toBe('shop-web');
    expect(load!.endMs - load!.startMs).toBeCloseTo(900, 3);
    expect(call!.kind).toBe(SpanKind.CLIENT + 1);
    expect(call!.statusCode).toBe(2);
    expect(call!.attributes['http.request.method']).toBe('GET');
    expect(click!.events).toEqual([{ name: FRONTEND_EVENT.anomaly, attributes: { 'svc.anomaly.pattern': 'rage_click', 'svc.frontend.anomaly.count': 3 } }]);
  });

  it('caps attributes, string lengths, arrays and events per span', () => {
    const attributes: Record<string, string | string[]> = { long: 'x'.repeat(5000), list: Array.from({ length: 40 }, (_, i) => `i${i}`) };
    for (let i = 0; i < 200; i++) attributes[`a${i}`] = 'v';
    const events = Array.from({ length: 100 }, (_, i) => ({ name: `e${i}`, attributes: {} }));
    const big = browserSpans([{ name: 'big', attributes, events }]);
    for (const decoded of [decodeJsonTraces(text(json(big)), LIMITS)[0]!, decodeProtobufTraces(protobuf(big), LIMITS)[0]!]) {
      expect(Object.keys(decoded.attributes)).toHaveLength(OTLP_LIMITS.attributes);
      expect(decoded.attributes.long).toHaveLength(OTLP_LIMITS.stringChars);
      expect(decoded.attributes.list).toHaveLength(OTLP_LIMITS.arrayItems);
      // The SDK itself keeps 128 events per span; the decoder keeps 32.
      expect(decoded.events).toHaveLength(OTLP_LIMITS.events);
    }
  });

  it('refuses a request with more spans than the limit, whole', () => {
    const many = browserSpans(Array.from({ length: 11 }, (_, i) => ({ name: `s${i}` })));
    expect(() => decodeJsonTraces(text(json(many)), { maxSpans: 10 })).toThrow(TooManySpansError);
    expect(() => decodeProtobufTraces(protobuf(many), { maxSpans: 10 })).toThrow(TooManySpansError);
    expect(decodeProtobufTraces(protobuf(many), { maxSpans: 11 })).toHaveLength(11);
  });

  it('says what is wrong with malformed JSON', () => {
    const cases: [string, RegExp][] = [
      ['{', /^body is not valid JSON/],
      ['[]', /^body must be a JSON object with resourceSpans/],
      ['{"resourceSpans":{}}', /^resourceSpans must be an array/],
      ['{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"xyz","spanId":"0102030405060708"}]}]}]}', /spans\[0\]\.traceId must be 32 hex characters/],
      ['{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"01"}]}]}]}', /spans\[0\]\.spanId must be 16 hex characters/],
      ['{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","startTimeUnixNano":"-5"}]}]}]}', /startTimeUnixNano must be/],
      [
        '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","attributes":[{"value":{}}]}]}]}]}',
        /each attribute must be an object with a string key/,
      ],
    ];
    for (const [body, message] of cases) expect(() => decodeJsonTraces(body, LIMITS), body).toThrow(message);
    expect(decodeJsonTraces('{}', LIMITS)).toEqual([]);
  });

  it('says where protobuf bytes are malformed, truncated at every length', () => {
    const bytes = protobuf(browserSpans([apiCall('s1', 10)]));
    let failures = 0;
    for (let length = 1; length < bytes.length; length++) {
      try {
        decodeProtobufTraces(bytes.subarray(0, length), LIMITS);
      } catch (error) {
        expect(error).toBeInstanceOf(OtlpDecodeError);
        expect((error as Error).message).toMatch(/^(protobuf body is malformed: .* at byte \d+|.*(trace_id|span_id) must be \d+ bytes)/);
        failures++;
      }
    }
    // Every cut inside the one ResourceSpans message breaks it.
    expect(failures).toBe(bytes.length - 1);
    expect(() => decodeProtobufTraces(Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), LIMITS)).toThrow(/length-delimited field runs past its message at byte 6/);
    expect(() => decodeProtobufTraces(Uint8Array.from([0x0b]), LIMITS)).toThrow(/unsupported wire type 3/);
  });

  it('survives random bytes: an OtlpDecodeError or spans, never anything else', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const valid = protobuf(browserSpans([pageLoad('s', 1), apiCall('s', 2)]));
    for (let i = 0; i < 2000; i++) {
      const bytes = Uint8Array.from(valid);
      for (let flips = 0; flips < 3; flips++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
      try {
        decodeProtobufTraces(bytes, LIMITS);
      } catch (error) {
        expect(error).toBeInstanceOf(OtlpDecodeError);
      }
    }
  });
});
