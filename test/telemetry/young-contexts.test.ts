/**
 * The contexts svc gives the OpenTelemetry API's root (src/telemetry/young-contexts.ts): the API's
 * behaviour, with the real SDK and context manager, and what they are for, a request of the app
 * under the preload whose objects die young.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Context, context, createContextKey, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installYoungContexts } from '../../src/telemetry/young-contexts.js';
import { ROOT } from '../support/fixture-app.js';
import { expectPromotesLess, type Promoted, promotedIn } from '../support/promoted-bytes.js';

const ownFunctions = (value: object) => Object.entries(value).filter(([, property]) => typeof property === 'function');
const commonJsRoot = (createRequire(import.meta.url)('@opentelemetry/api') as { ROOT_CONTEXT: Context }).ROOT_CONTEXT;

describe('contexts derived from the root', () => {
  const a = createContextKey('a');
  const b = createContextKey('b');
  const manager = new AsyncLocalStorageContextManager();

  beforeAll(() => {
    installYoungContexts();
    context.setGlobalContextManager(manager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterAll(() => {
    context.disable();
    propagation.disable();
  });

  it('are immutable: a change makes a new context and leaves its parent as it was', () => {
    const withA = ROOT_CONTEXT.setValue(a, 1);
    const withAB = withA.setValue(b, 2);
    const changedA = withAB.setValue(a, 3);
    const withoutA = changedA.deleteValue(a);
    expect([ROOT_CONTEXT.getValue(a), ROOT_CONTEXT.getValue(b)]).toEqual([undefined, undefined]);
    expect([withA.getValue(a), withA.getValue(b)]).toEqual([1, undefined]);
    expect([withAB.getValue(a), withAB.getValue(b)]).toEqual([1, 2]);
    expect([changedA.getValue(a), changedA.getValue(b)]).toEqual([3, 2]);
    expect([withoutA.getValue(a), withoutA.getValue(b)]).toEqual([undefined, 2]);
    expect(withoutA.deleteValue(a).getValue(b)).toBe(2);
    expect(ROOT_CONTEXT.deleteValue(a).getValue(a)).toBeUndefined();
  });

  it('keep their methods on a prototype, in both builds of the API (functions of their own would live in the old generation)', () => {
    for (const root of [ROOT_CONTEXT, commonJsRoot]) {
      const derived = root.setValue(a, 'x');
      expect(derived.getValue(a)).toBe('x');
      expect(ownFunctions(derived)).toEqual([]);
      expect(ownFunctions(derived.setValue(b, 'y').deleteValue(a))).toEqual([]);
    }
    expect(commonJsRoot).not.toBe(ROOT_CONTEXT);
  });

  it('carry the active span through awaits, and a trace extracted from W3C headers', async () => {
    const tracer = new TracerProvider().getTracer('test');
    const parent = propagation.extract(ROOT_CONTEXT, { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    const span = tracer.startSpan('outer', {}, parent);
    const seen = await context.with(trace.setSpan(parent, span), async () => {
      await new Promise((resolve) => setImmediate(resolve));
      const child = tracer.startSpan('inner');
      child.end();
      return { active: trace.getActiveSpan(), child };
    });
    span.end();
    expect(seen.active).toBe(span);
    expect(span.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(seen.child.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect((seen.child as unknown as { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});

/**
 * Bytes per request the app's young-generation collections promoted to the old generation while
 * it answered `count` requests (each a server span and a client span to its inventory) after 2000
 * it did not count, with `preload` imported; and how many collections that was.
 */
async function promotedPerRequest(preload: string, count: number): Promise<Promoted> {
  const app = spawn(process.execPath, ['--trace-gc-nvp', '--import', preload, 'app.mjs'], {
    cwd: join(ROOT, 'fixtures/http-plain'),
    env: { PATH: process.env.PATH, OTEL_TRACES_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none', SVC_MCP_PORT: '0', SVC_STORE_URL: 'memory:' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let out = '';
    app.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      app.stdout.on('data', () => {
        const listening = /LISTENING (\d+)/.exec(out);
        if (listening) resolve(Number(listening[1]));
      });
      app.on('exit', (code) => reject(new Error(`the app exited (${code}) before listening`)));
    });
    const request = async (i: number) => {
      const response = await fetch(`http://127.0.0.1:${port}/orders/${i}`);
      if (response.status !== 200) throw new Error(`GET /orders/${i} answered ${response.status}`);
      await response.arrayBuffer();
    };
    for (let i = 0; i < 2000; i++) await request(i);
    const from = out.length;
    for (let i = 0; i < count; i++) await request(i);
    const { promotedBytes, scavenges } = promotedIn(out.slice(from));
    return { perRequest: promotedBytes / count, scavenges };
  } finally {
    app.kill();
  }
}

it("keeps an app's requests, their spans and contexts, in the young generation under the preload", async () => {
  const svc = await promotedPerRequest(join(ROOT, 'register.mjs'), 5000);
  const otel = await promotedPerRequest(join(ROOT, 'fixtures/shared/otel-recording.mjs'), 5000);
  // Plain OpenTelemetry promotes most of each request's spans and contexts (1.8-2.0 KB measured: the API's contexts' functions are old at birth); svc next to nothing (61 bytes).
  expectPromotesLess(svc, otel, {
    theirsAbove: 400,
    oursBelow: 200,
    factor: 5,
    premise: "plain OpenTelemetry's contexts no longer outlive young collections on this V8: src/telemetry/young-contexts.ts may go",
  });
}, 60_000);
