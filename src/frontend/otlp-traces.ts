/**
 * Decodes an OTLP/HTTP traces request (`ExportTraceServiceRequest`, as JSON or protobuf) into
 * plain, bounded spans. Everything here comes from outside, so every count and length is capped
 * while decoding, and anything malformed throws an OtlpDecodeError whose message says what and
 * where (it becomes the body of a 400).
 *
 * Kept per span: ids, name, kind, times, status code, scalar attributes (arrays of scalars kept,
 * maps dropped), events with their scalar attributes. Links, trace state and dropped counts are
 * not read.
 */

export type AttributeValue = string | number | boolean | readonly (string | number | boolean)[];
export type SpanAttributes = Readonly<Record<string, AttributeValue>>;

export interface DecodedEvent {
  readonly name: string;
  readonly attributes: SpanAttributes;
}

export interface DecodedSpan {
  /** 32 lower-case hex characters. */
  readonly traceId: string;
  /** 16 lower-case hex characters. */
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP span kind: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly startMs: number;
  readonly endMs: number;
  /** 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly attributes: SpanAttributes;
  readonly events: readonly DecodedEvent[];
  /** The attributes of the span's Resource (one object shared by its spans). */
  readonly resource: SpanAttributes;
}

export interface DecodeLimits {
  /** Spans in one request; more is an error (the request is refused whole). */
  readonly maxSpans: number;
}

/** Per-item caps: what one span can make svc hold. */
export const OTLP_LIMITS = {
  /** Attributes kept per span, resource or event; the rest are dropped. */
  attributes: 64,
  /** Characters kept of a string attribute, a name or a key. */
  stringChars: 1024,
  /** Items kept of an array attribute. */
  arrayItems: 16,
  /** Events kept per span. */
  events: 32,
} as const;

export class OtlpDecodeError extends Error {}

const HEX_TRACE_ID = /^[0-9a-f]{32}$/i;
const HEX_SPAN_ID = /^[0-9a-f]{16}$/i;

/**
 * `text` cut to OTLP_LIMITS.stringChars. A cut string is copied: V8's `slice` of a long string
 * points into it, so keeping 1024 characters of a megabyte string would keep the megabyte.
 */
export function cut(text: string, max: number = OTLP_LIMITS.stringChars): string {
  return text.length > max ? Buffer.from(text.slice(0, max), 'utf8').toString('utf8') : text;
}

// ---------------------------------------------------------------------------------------------
// JSON (OTLP/JSON: ids as hex strings, 64-bit integers as strings or numbers, enums as integers)

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function jsonArray(value: Json, where: string): Json[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpDecodeError(`${where} must be an array`);
  return value;
}

function jsonNanosToMs(value: Json, where: string): number {
  if (value === undefined || value === null) return 0;
  const n = typeof value === 'string' && /^\d{1,20}$/.test(value) ? Number(value) : typeof value === 'number' && value >= 0 ? value : Number.NaN;
  if (!Number.isFinite(n)) throw new OtlpDecodeError(`${where} must be a non-negative integer of nanoseconds (a string or a number)`);
  return n / 1e6;
}

function jsonId(value: Json, pattern: RegExp, where: string, optional: boolean): string {
  if ((value === undefined || value === null || value === '') && optional) return '';
  if (typeof value !== 'string' || !pattern.test(value)) throw new OtlpDecodeError(`${where} must be ${pattern === HEX_TRACE_ID ? 32 : 16} hex characters`);
  return value.toLowerCase();
}

function jsonInt(value: Json, where: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  throw new OtlpDecodeError(`${where} must be an integer`);
}

function jsonScalar(value: Json): string | number | boolean | undefined {
  if (!isRecord(value)) return undefined;
  if (typeof value.stringValue === 'string') return cut(value.stringValue);
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  if (value.intValue !== undefined) {
    const n = Number(value.intValue);
    return Number.isFinite(n) ? n : undefined;
  }
  if (typeof value.doubleValue === 'number') return value.doubleValue;
  if (typeof value.doubleValue === 'string' && ['NaN', 'Infinity', '-Infinity'].includes(value.doubleValue)) return Number(value.doubleValue);
  return undefined;
}

function jsonAttributes(list: Json, where: string): SpanAttributes {
  const out: Record<string, AttributeValue> = {};
  let count = 0;
  for (const kv of jsonArray(list, where)) {
    if (count >= OTLP_LIMITS.attributes) break;
    if (!isRecord(kv) || typeof kv.key !== 'string') throw new OtlpDecodeError(`${where}: each attribute must be an object with a string key`);
    const value = kv.value;
    let decoded: AttributeValue | undefined = jsonScalar(value);
    if (decoded === undefined && isRecord(value) && isRecord(value.arrayValue)) {
      const items = jsonArray(value.arrayValue.values, `${where}.${cut(kv.key)}.arrayValue.values`)
        .slice(0, OTLP_LIMITS.arrayItems)
        .map(jsonScalar)
        .filter((v) => v !== undefined);
      decoded = items;
    }
    if (decoded === undefined) continue;
    out[cut(kv.key)] = decoded;
    count++;
  }
  return out;
}

/** Decodes an OTLP/JSON traces request body. */
export function decodeJsonTraces(text: string, limits: DecodeLimits): DecodedSpan[] {
  let body: Json;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new OtlpDecodeError(`body is not valid JSON: ${error instanceof Error ? error.message.slice(0, 200) : 'parse error'}`);
  }
  if (!isRecord(body)) throw new OtlpDecodeError('body must be a JSON object with resourceSpans (an OTLP ExportTraceServiceRequest)');
  const spans: DecodedSpan[] = [];
  const resourceSpans = jsonArray(body.resourceSpans, 'resourceSpans');
  for (const [r, rs] of resourceSpans.entries()) {
    if (!isRecord(rs)) throw new OtlpDecodeError(`resourceSpans[${r}] must be an object`);
    const resource = jsonAttributes(isRecord(rs.resource) ? rs.resource.attributes : undefined, `resourceSpans[${r}].resource.attributes`);
    for (const [s, ss] of jsonArray(rs.scopeSpans, `resourceSpans[${r}].scopeSpans`).entries()) {
      if (!isRecord(ss)) throw new OtlpDecodeError(`resourceSpans[${r}].scopeSpans[${s}] must be an object`);
      for (const [i, span] of jsonArray(ss.spans, `resourceSpans[${r}].scopeSpans[${s}].spans`).entries()) {
        const where = `resourceSpans[${r}].scopeSpans[${s}].spans[${i}]`;
        if (spans.length >= limits.maxSpans) throw new TooManySpansError(limits.maxSpans);
        if (!isRecord(span)) throw new OtlpDecodeError(`${where} must be an object`);
        const events: DecodedEvent[] = [];
        for (const [e, event] of jsonArray(span.events, `${where}.events`).entries()) {
          if (events.length >= OTLP_LIMITS.events) break;
          if (!isRecord(event)) throw new OtlpDecodeError(`${where}.events[${e}] must be an object`);
          events.push({ name: typeof event.name === 'string' ? cut(event.name) : '', attributes: jsonAttributes(event.attributes, `${where}.events[${e}].attributes`) });
        }
        spans.push({
          traceId: jsonId(span.traceId, HEX_TRACE_ID, `${where}.traceId`, false),
          spanId: jsonId(span.spanId, HEX_SPAN_ID, `${where}.spanId`, false),
          parentSpanId: jsonId(span.parentSpanId, HEX_SPAN_ID, `${where}.parentSpanId`, true),
          name: typeof span.name === 'string' ? cut(span.name) : '',
          kind: jsonInt(span.kind, `${where}.kind`),
          startMs: jsonNanosToMs(span.startTimeUnixNano, `${where}.startTimeUnixNano`),
          endMs: jsonNanosToMs(span.endTimeUnixNano, `${where}.endTimeUnixNano`),
          statusCode: isRecord(span.status) ? jsonInt(span.status.code, `${where}.status.code`) : 0,
          attributes: jsonAttributes(span.attributes, `${where}.attributes`),
          events,
          resource,
        });
      }
    }
  }
  return spans;
}

export class TooManySpansError extends OtlpDecodeError {
  constructor(readonly limit: number) {
    super(`more than ${limit} spans in one request (svc.frontend.max-spans-per-request); send smaller batches`);
  }
}

// ---------------------------------------------------------------------------------------------
// Protobuf (opentelemetry/proto/collector/trace/v1/trace_service.proto)

const WIRE = { VARINT: 0, I64: 1, LEN: 2, I32: 5 } as const;
const utf8 = new TextDecoder('utf-8', { fatal: false });

/** A reader over one message's bytes; `end` bounds nested messages. */
class ProtoReader {
  pos: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    readonly end = bytes.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  private fail(what: string): never {
    throw new OtlpDecodeError(`protobuf body is malformed: ${what} at byte ${this.pos}`);
  }

  varint(): number {
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const byte = this.bytes[this.pos++]!;
      // Beyond 2^53 precision is lost; only lengths, tags, enums and int attributes are varints here.
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
    }
    return this.fail('varint longer than 10 bytes');
  }

  tag(): { field: number; wire: number } {
    const key = this.varint();
    return { field: Math.floor(key / 8), wire: key % 8 };
  }

  fixed64(): number {
    if (this.pos + 8 > this.end) this.fail('truncated fixed64');
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 8);
    this.pos += 8;
    return view.getUint32(4, true) * 2 ** 32 + view.getUint32(0, true);
  }

  double(): number {
    if (this.pos + 8 > this.end) this.fail('truncated double');
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 8);
    this.pos += 8;
    return view.getFloat64(0, true);
  }

  /** The bounds of a length-delimited field. */
  sub(): ProtoReader {
    const length = this.varint();
    if (this.pos + length > this.end) this.fail('length-delimited field runs past its message');
    const reader = new ProtoReader(this.bytes, this.pos, this.pos + length);
    this.pos += length;
    return reader;
  }

  string(): string {
    const sub = this.sub();
    // Decode at most what is kept (4 bytes per character at worst).
    return cut(utf8.decode(this.bytes.subarray(sub.pos, Math.min(sub.end, sub.pos + OTLP_LIMITS.stringChars * 4))));
  }

  hex(): string {
    const sub = this.sub();
    if (sub.end - sub.pos > 16) this.fail('id longer than 16 bytes');
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + sub.pos, sub.end - sub.pos).toString('hex');
  }

  skip(wire: number): void {
    switch (wire) {
      case WIRE.VARINT:
        this.varint();
        return;
      case WIRE.I64:
        if (this.pos + 8 > this.end) this.fail('truncated fixed64');
        this.pos += 8;
        return;
      case WIRE.LEN:
        this.sub();
        return;
      case WIRE.I32:
        if (this.pos + 4 > this.end) this.fail('truncated fixed32');
        this.pos += 4;
        return;
      default:
        this.fail(`unsupported wire type ${wire}`);
    }
  }

  expect(wire: number, actual: number, field: string): void {
    if (wire !== actual) this.fail(`${field} has wire type ${actual}, expected ${wire}`);
  }
}

/** An AnyValue; `item` for an array's item, whose own arrays (and maps) are skipped, not descended into. */
function protoScalar(reader: ProtoReader, item = false): AttributeValue | undefined {
  let value: AttributeValue | undefined;
  while (!reader.done) {
    const { field, wire } = reader.tag();
    if (field === 1 && wire === WIRE.LEN) value = reader.string();
    else if (field === 5 && item) reader.skip(wire);
    else if (field === 2 && wire === WIRE.VARINT) value = reader.varint() !== 0;
    else if (field === 3 && wire === WIRE.VARINT) {
      // int64 two's complement: a negative number is a 10-byte varint >= 2^63.
      const n = reader.varint();
      value = n >= 2 ** 63 ? n - 2 ** 64 : n;
    } else if (field === 4 && wire === WIRE.I64) value = reader.double();
    else if (field === 5 && wire === WIRE.LEN) {
      const items: (string | number | boolean)[] = [];
      const array = reader.sub();
      while (!array.done) {
        const item = array.tag();
        if (item.field === 1 && item.wire === WIRE.LEN) {
          const scalar = protoScalar(array.sub(), true);
          if (scalar !== undefined && !Array.isArray(scalar) && items.length < OTLP_LIMITS.arrayItems) items.push(scalar as string | number | boolean);
        } else array.skip(item.wire);
      }
      value = items;
    } else reader.skip(wire);
  }
  return value;
}

function protoKeyValue(reader: ProtoReader, into: Record<string, AttributeValue>): void {
  let key: string | undefined;
  let value: AttributeValue | undefined;
  while (!reader.done) {
    const { field, wire } = reader.tag();
    if (field === 1 && wire === WIRE.LEN) key = reader.string();
    else if (field === 2 && wire === WIRE.LEN) value = protoScalar(reader.sub());
    else reader.skip(wire);
  }
  if (key !== undefined && value !== undefined && Object.keys(into).length < OTLP_LIMITS.attributes) into[key] = value;
}

function protoAttributesOf(reader: ProtoReader, attributesField: number): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  while (!reader.done) {
    const { field, wire } = reader.tag();
    if (field === attributesField && wire === WIRE.LEN) protoKeyValue(reader.sub(), attributes);
    else reader.skip(wire);
  }
  return attributes;
}

function protoEvent(reader: ProtoReader): DecodedEvent {
  let name = '';
  const attributes: Record<string, AttributeValue> = {};
  while (!reader.done) {
    const { field, wire } = reader.tag();
    if (field === 2 && wire === WIRE.LEN) name = reader.string();
    else if (field === 3 && wire === WIRE.LEN) protoKeyValue(reader.sub(), attributes);
    else reader.skip(wire);
  }
  return { name, attributes };
}

function protoSpan(reader: ProtoReader, resource: SpanAttributes, where: string): DecodedSpan {
  let traceId = '';
  let spanId = '';
  let parentSpanId = '';
  let name = '';
  let kind = 0;
  let startMs = 0;
  let endMs = 0;
  let statusCode = 0;
  const attributes: Record<string, AttributeValue> = {};
  const events: DecodedEvent[] = [];
  while (!reader.done) {
    const { field, wire } = reader.tag();
    switch (field) {
      case 1:
        reader.expect(WIRE.LEN, wire, `${where}.trace_id`);
        traceId = reader.hex();
        break;
      case 2:
        reader.expect(WIRE.LEN, wire, `${where}.span_id`);
        spanId = reader.hex();
        break;
      case 4:
        reader.expect(WIRE.LEN, wire, `${where}.parent_span_id`);
        parentSpanId = reader.hex();
        break;
      case 5:
        reader.expect(WIRE.LEN, wire, `${where}.name`);
        name = reader.string();
        break;
      case 6:
        reader.expect(WIRE.VARINT, wire, `${where}.kind`);
        kind = reader.varint();
        break;
      case 7:
        reader.expect(WIRE.I64, wire, `${where}.start_time_unix_nano`);
        startMs = reader.fixed64() / 1e6;
        break;
      case 8:
        reader.expect(WIRE.I64, wire, `${where}.end_time_unix_nano`);
        endMs = reader.fixed64() / 1e6;
        break;
      case 9:
        reader.expect(WIRE.LEN, wire, `${where}.attributes`);
        protoKeyValue(reader.sub(), attributes);
        break;
      case 11:
        reader.expect(WIRE.LEN, wire, `${where}.events`);
        if (events.length < OTLP_LIMITS.events) events.push(protoEvent(reader.sub()));
        else reader.sub();
        break;
      case 15: {
        reader.expect(WIRE.LEN, wire, `${where}.status`);
        const status = reader.sub();
        while (!status.done) {
          const t = status.tag();
          if (t.field === 3 && t.wire === WIRE.VARINT) statusCode = status.varint();
          else status.skip(t.wire);
        }
        break;
      }
      default:
        reader.skip(wire);
    }
  }
  if (traceId.length !== 32) throw new OtlpDecodeError(`${where}.trace_id must be 16 bytes`);
  if (spanId.length !== 16) throw new OtlpDecodeError(`${where}.span_id must be 8 bytes`);
  if (parentSpanId !== '' && parentSpanId.length !== 16) throw new OtlpDecodeError(`${where}.parent_span_id must be 8 bytes or empty`);
  return { traceId, spanId, parentSpanId, name, kind, startMs, endMs, statusCode, attributes, events, resource };
}

/** Decodes an OTLP/protobuf traces request body. */
export function decodeProtobufTraces(bytes: Uint8Array, limits: DecodeLimits): DecodedSpan[] {
  const spans: DecodedSpan[] = [];
  const request = new ProtoReader(bytes);
  let r = 0;
  while (!request.done) {
    const { field, wire } = request.tag();
    if (field !== 1 || wire !== WIRE.LEN) {
      request.skip(wire);
      continue;
    }
    // ResourceSpans: the resource first (its attributes), then the scope spans.
    const resourceSpans = request.sub();
    let resource: SpanAttributes = {};
    const scopes: ProtoReader[] = [];
    while (!resourceSpans.done) {
      const t = resourceSpans.tag();
      if (t.field === 1 && t.wire === WIRE.LEN) resource = protoAttributesOf(resourceSpans.sub(), 1);
      else if (t.field === 2 && t.wire === WIRE.LEN) scopes.push(resourceSpans.sub());
      else resourceSpans.skip(t.wire);
    }
    for (const [s, scope] of scopes.entries()) {
      let i = 0;
      while (!scope.done) {
        const t = scope.tag();
        if (t.field === 2 && t.wire === WIRE.LEN) {
          if (spans.length >= limits.maxSpans) throw new TooManySpansError(limits.maxSpans);
          spans.push(protoSpan(scope.sub(), resource, `resource_spans[${r}].scope_spans[${s}].spans[${i++}]`));
        } else scope.skip(t.wire);
      }
    }
    r++;
  }
  return spans;
}
