/**
 * Helpers for the hostile tests: a listener on 127.0.0.1 with an ephemeral port, raw OTLP/JSON
 * built by hand (so a test can send what no exporter would), and garbage collection on demand.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { FakeClock } from '../../src/analysis/clock.js';
import { FrontendListener, type FrontendListenerOptions } from '../../src/frontend/frontend-listener.js';
import { FrontendTelemetry } from '../../src/frontend/frontend-telemetry.js';

export const SHOP = 'http://shop.example.com:8080';

export interface Started {
  readonly url: string;
  readonly listener: FrontendListener;
  readonly telemetry: FrontendTelemetry;
  readonly clock: FakeClock;
}

const started: FrontendListener[] = [];

export async function startListener(options: Partial<FrontendListenerOptions> = {}, telemetryLimits = { maxRecords: 1000, maxRoutes: 100, maxSessions: 100 }): Promise<Started> {
  const clock = new FakeClock();
  const telemetry = options.telemetry ?? new FrontendTelemetry({ clock, ...telemetryLimits });
  const listener = new FrontendListener({
    host: '127.0.0.1',
    port: 0,
    allowedOrigins: [SHOP],
    maxBodyBytes: 64 * 1024,
    maxSpansPerRequest: 100,
    rateLimitPerMinute: 100_000,
    ownPorts: new Set(),
    now: () => clock.now(),
    ...options,
    telemetry,
  });
  started.push(listener);
  return { url: await listener.start(), listener, telemetry, clock };
}

export async function stopListeners(): Promise<void> {
  for (const listener of started.splice(0)) await listener.stop();
}

export function post(url: string, body: Uint8Array | string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', body: typeof body === 'string' ? body : Buffer.from(body), headers: { 'content-type': 'application/json', ...headers } });
}

export async function errorOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: string }).error;
}

type Attr = string | number | boolean;
const value = (v: Attr) => (typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : Number.isInteger(v) ? { intValue: v } : { doubleValue: v });
export const attributes = (a: Record<string, Attr>) => Object.entries(a).map(([key, v]) => ({ key, value: value(v) }));

export interface RawSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
  status?: { code: number };
  attributes?: Record<string, Attr>;
  events?: { name: string; attributes: Record<string, Attr> }[];
}

let counter = 0;
export const hex = (n: number, chars: number) => n.toString(16).padStart(chars, '0').slice(-chars);

/** An OTLP/JSON request body, with ids made up when not given. */
export function otlpJson(spans: RawSpan[], resource: Record<string, Attr> = { 'service.name': 'shop-web' }): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: attributes(resource) },
        scopeSpans: [
          {
            spans: spans.map((s) => {
              counter++;
              return {
                traceId: s.traceId ?? hex(counter, 32),
                spanId: s.spanId ?? hex(counter, 16),
                parentSpanId: s.parentSpanId,
                name: s.name ?? 'GET',
                kind: s.kind ?? 3,
                startTimeUnixNano: s.startTimeUnixNano ?? '1767225600000000000',
                endTimeUnixNano: s.endTimeUnixNano ?? '1767225600150000000',
                status: s.status,
                attributes: attributes(s.attributes ?? {}),
                events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attributes(e.attributes) })),
              };
            }),
          },
        ],
      },
    ],
  });
}

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Heap plus external memory after full garbage collections. */
export function retainedBytes(): number {
  for (let i = 0; i < 3; i++) collect();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}
