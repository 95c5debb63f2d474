/**
 * A real OTLP/HTTP JSON endpoint on 127.0.0.1 that collects what fixture apps export, decoded
 * to plain objects for assertions.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type OtlpValue = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number; arrayValue?: { values?: OtlpValue[] }; kvlistValue?: { values?: OtlpKeyValue[] } };
type OtlpKeyValue = { key: string; value: OtlpValue };

export type Attributes = Record<string, unknown>;

export interface ReceivedSpan {
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Attributes;
  resource: Attributes;
  /** The instrumentation scope's name. */
  scope: string;
  statusCode: number;
  /** Hex ids as OTLP/JSON writes them; parentSpanId is empty for a root span. */
  traceId: string;
  spanId: string;
  parentSpanId: string;
  events: { name: string; attributes: Attributes }[];
}

export interface ReceivedLog {
  eventName: string | undefined;
  severityNumber: number;
  severityText: string;
  body: unknown;
  attributes: Attributes;
  resource: Attributes;
  /** The trace context the record was emitted in (hex; empty when none). */
  traceId: string;
  spanId: string;
}

export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;

function decode(value: OtlpValue | undefined): unknown {
  if (!value) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('arrayValue' in value) return (value.arrayValue?.values ?? []).map(decode);
  if ('kvlistValue' in value) return decodeAttributes(value.kvlistValue?.values);
  return undefined;
}

function decodeAttributes(list: OtlpKeyValue[] | undefined): Attributes {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, decode(kv.value)]));
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly logs: ReceivedLog[] = [];
  private server: Server | undefined;
  private waiters: (() => void)[] = [];

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        if (req.url === '/v1/traces') this.collectSpans(body);
        else if (req.url === '/v1/logs') this.collectLogs(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Resolves once `predicate` holds for what was received; rejects after `timeoutMs`. */
  async waitFor<T>(predicate: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = predicate();
      if (found) return found;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`timed out waiting for telemetry; received ${this.spans.length} spans, ${this.logs.length} logs`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: OTLP/JSON spans are read field by field below
  private collectSpans(body: { resourceSpans?: { resource?: { attributes?: OtlpKeyValue[] }; scopeSpans?: { scope?: { name?: string }; spans?: any[] }[] }[] }): void {
    for (const rs of body.resourceSpans ?? []) {
      const resource = decodeAttributes(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const span of ss.spans ?? []) {
          this.spans.push({
            name: span.name,
            kind: span.kind,
            attributes: decodeAttributes(span.attributes),
            resource,
            scope: ss.scope?.name ?? '',
            statusCode: span.status?.code ?? 0,
            traceId: span.traceId ?? '',
            spanId: span.spanId ?? '',
            parentSpanId: span.parentSpanId ?? '',
            events: (span.events ?? []).map((event: { name: string; attributes?: OtlpKeyValue[] }) => ({ name: event.name, attributes: decodeAttributes(event.attributes) })),
          });
        }
      }
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: OTLP/JSON log records are read field by field below
  private collectLogs(body: { resourceLogs?: { resource?: { attributes?: OtlpKeyValue[] }; scopeLogs?: { logRecords?: any[] }[] }[] }): void {
    for (const rl of body.resourceLogs ?? []) {
      const resource = decodeAttributes(rl.resource?.attributes);
      for (const sl of rl.scopeLogs ?? []) {
        for (const record of sl.logRecords ?? []) {
          this.logs.push({
            eventName: record.eventName,
            severityNumber: record.severityNumber,
            severityText: record.severityText,
            body: decode(record.body),
            attributes: decodeAttributes(record.attributes),
            resource,
            traceId: record.traceId ?? '',
            spanId: record.spanId ?? '',
          });
        }
      }
    }
  }
}
