/**
 * Telemetry loss in-process: the first failure of each signal at once (a failed attempt or a failed
 * export), an item counted as lost only by its export's result, when the end stops waiting for
 * an endpoint (it refused everything so far), the periodic count with an
 * injected clock and schedule (nothing when nothing failed), the exporter wrapper, queue drops seen
 * through a real BatchSpanProcessor, the endpoint named without credentials, and the shutdown key.
 */
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { loadConfig } from '../../src/config/load-config.js';
import { type BatchExporter, CountingExporter } from '../../src/telemetry/counting-exporter.js';
import { otlpEndpoint } from '../../src/telemetry/otlp-endpoint.js';
import { queueDropMeterProvider } from '../../src/telemetry/queue-drop-meter-provider.js';
import { type Schedule, TelemetryLoss } from '../../src/telemetry/telemetry-loss.js';
import { tempDir } from '../support/temp-dir.js';

const FIVE_MINUTES = 5 * 60_000;
const TRACES = 'http://collector:4318/v1/traces';
const LOGS = 'http://collector:4318/v1/logs';

function harness() {
  const clock = new FakeClock();
  const lines: string[] = [];
  const loss = new TelemetryLoss({ report: (line) => lines.push(line), reportIntervalMs: FIVE_MINUTES, clock });
  let scheduled: { run: () => void; intervalMs: number } | undefined;
  let stopped = false;
  const schedule: Schedule = (run, intervalMs) => {
    scheduled = { run, intervalMs };
    return () => (stopped = true);
  };
  const stop = loss.startReporting(schedule);
  /** Moves the clock by one interval and runs the scheduled report, as the timer would. */
  const tick = (): void => {
    clock.advance(scheduled!.intervalMs);
    scheduled!.run();
  };
  return { loss, lines, clock, tick, stop, scheduled: () => scheduled, stopped: () => stopped };
}

describe('TelemetryLoss', () => {
  it('reports the first failure of each signal at once, naming the endpoint and the error, and counts every lost item once', () => {
    const { loss, lines } = harness();
    const traces = loss.tally('traces', TRACES);
    const logs = loss.tally('logs', LOGS);
    traces.exportStarted(12);
    traces.exportFailed(12, new Error('connect ECONNREFUSED 10.0.0.7:4318'));
    expect(lines).toEqual([`traces export to ${TRACES} failed: connect ECONNREFUSED 10.0.0.7:4318; what is lost is counted and reported every 5 min`]);
    for (let i = 0; i < 20; i++) {
      traces.exportStarted(3);
      traces.exportFailed(3, new Error('connect ECONNREFUSED 10.0.0.7:4318'));
    }
    logs.exportStarted(1);
    logs.exportFailed(1, undefined);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(`logs export to ${LOGS} failed: unknown error; what is lost is counted and reported every 5 min`);
    loss.reportCounts();
    expect(lines[2]).toBe(
      `telemetry lost in the last 0 ms: traces to ${TRACES}: 21 of 21 batches failed (72 spans, last error: connect ECONNREFUSED 10.0.0.7:4318); ` +
        `logs to ${LOGS}: 1 of 1 batches failed (1 log record, last error: unknown error)`,
    );
  });

  it('reports a failed attempt at once without counting it: the export it belongs to is counted by its result', () => {
    const { loss, lines } = harness();
    const traces = loss.tally('traces', TRACES);
    traces.exportStarted(12);
    traces.attemptFailed(new Error('connect ECONNREFUSED 10.0.0.7:4318'));
    traces.attemptFailed('HTTP 503 Service Unavailable');
    expect(lines).toEqual([`traces export to ${TRACES} failed: connect ECONNREFUSED 10.0.0.7:4318; what is lost is counted and reported every 5 min`]);
    loss.reportCounts();
    expect(lines).toHaveLength(1);
    // a retry delivered it
    traces.exportSucceeded(12);
    traces.exportStarted(5);
    traces.attemptFailed('HTTP 503 Service Unavailable');
    traces.exportFailed(5, new Error('Export failed with retryable status'));
    loss.reportAtEnd();
    expect(lines[1]).toBe(`telemetry lost in the last 0 ms (the process is ending): traces to ${TRACES}: 1 of 2 batches failed (5 spans, last error: Export failed with retryable status)`);
  });

  it('counts failures every interval since the last report, and reports nothing when nothing failed', () => {
    const { loss, lines, tick, scheduled } = harness();
    expect(scheduled()?.intervalMs).toBe(FIVE_MINUTES);
    const traces = loss.tally('traces', TRACES);
    const logs = loss.tally('logs', LOGS);
    const batch = (tally: typeof traces, items: number, error?: Error) => {
      tally.exportStarted(items);
      if (error) tally.exportFailed(items, error);
      else tally.exportSucceeded(items);
    };

    tick();
    expect(lines).toEqual([]);

    batch(traces, 10);
    batch(traces, 7, new Error('Export failed with retryable status'));
    batch(traces, 8, new Error('Export failed with retryable status'));
    traces.dropped(40);
    batch(logs, 4);
    tick();
    expect(lines).toEqual([
      `traces export to ${TRACES} failed: Export failed with retryable status; what is lost is counted and reported every 5 min`,
      `telemetry lost in the last 5 min: traces to ${TRACES}: 2 of 3 batches failed (15 spans, last error: Export failed with retryable status), 40 spans dropped (queue full)`,
    ]);

    batch(traces, 3);
    tick();
    expect(lines).toHaveLength(2);

    batch(logs, 2, new Error(`${'x'.repeat(300)}\n  at stack`));
    batch(logs, 1, new Error('Service Unavailable'));
    tick();
    expect(lines.slice(2)).toEqual([
      `logs export to ${LOGS} failed: ${'x'.repeat(200)}… (309 characters, cut); what is lost is counted and reported every 5 min`,
      `telemetry lost in the last 5 min: logs to ${LOGS}: 2 of 2 batches failed (3 log records, last error: Service Unavailable)`,
    ]);
  });

  it('names the real period and the items still being exported when the process ends', () => {
    const { loss, lines, clock, tick, stop, stopped } = harness();
    const traces = loss.tally('traces', TRACES);
    tick();
    clock.advance(42_000);
    traces.exportStarted(6);
    loss.reportAtEnd();
    stop();
    expect(stopped()).toBe(true);
    expect(lines).toEqual([`telemetry lost in the last 42 s (the process is ending): traces to ${TRACES}: 6 spans still being exported`]);
    // still in flight: the periodic report does not count them as lost
    loss.reportCounts();
    expect(lines).toHaveLength(1);
  });

  it('keeps a throwing report away from the exporter', () => {
    const loss = new TelemetryLoss({
      report: () => {
        throw new Error('EPIPE');
      },
      reportIntervalMs: FIVE_MINUTES,
      clock: new FakeClock(),
    });
    const tally = loss.tally('traces', TRACES);
    tally.exportStarted(1);
    expect(() => tally.exportFailed(1, new Error('down'))).not.toThrow();
  });
});

describe('TelemetryLoss.undeliverable', () => {
  /** Whether `promise` has resolved once pending callbacks ran. */
  async function resolved(promise: Promise<void>): Promise<boolean> {
    let done = false;
    void promise.then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    return done;
  }

  it('resolves once an endpoint refused every export so far and no other endpoint has items in flight', async () => {
    const { loss } = harness();
    const traces = loss.tally('traces', TRACES);
    const logs = loss.tally('logs', LOGS);
    const undeliverable = loss.undeliverable();
    traces.exportStarted(3);
    logs.exportStarted(1);
    expect(await resolved(undeliverable)).toBe(false);
    traces.attemptFailed(new Error('connect ECONNREFUSED 10.0.0.7:4318'));
    // the logs endpoint may still deliver
    expect(await resolved(undeliverable)).toBe(false);
    logs.exportSucceeded(1);
    expect(await resolved(undeliverable)).toBe(true);
    // asked again: at once
    expect(await resolved(loss.undeliverable())).toBe(true);
  });

  it('never for an endpoint that delivered before, nor before any failure', async () => {
    const { loss } = harness();
    const traces = loss.tally('traces', TRACES);
    expect(await resolved(loss.undeliverable())).toBe(false);
    traces.exportStarted(1);
    traces.exportSucceeded(1);
    traces.exportStarted(2);
    traces.attemptFailed('HTTP 503 Service Unavailable');
    traces.exportFailed(2, new Error('Export failed with retryable status'));
    traces.exportStarted(4);
    expect(await resolved(loss.undeliverable())).toBe(false);
  });
});

describe('CountingExporter', () => {
  class ScriptedExporter implements BatchExporter<string> {
    results: ExportResult[] = [];
    throws = false;
    pending: ((result: ExportResult) => void)[] = [];
    export(_items: string[], done: (result: ExportResult) => void): void {
      if (this.throws) throw new Error('serializer broke');
      const next = this.results.shift();
      if (next) done(next);
      else this.pending.push(done);
    }
    shutdown = async (): Promise<void> => {};
  }

  it('counts every result, passes it on unchanged, and counts a throw before rethrowing it', () => {
    const { loss, lines } = harness();
    const inner = new ScriptedExporter();
    const exporter = new CountingExporter(inner, loss.tally('traces', TRACES));
    const seen: ExportResult[] = [];
    const failure = { code: ExportResultCode.FAILED, error: new Error('Service Unavailable') };
    inner.results = [{ code: ExportResultCode.SUCCESS }, failure, failure];
    exporter.export(['a', 'b'], (r) => seen.push(r));
    exporter.export(['c'], (r) => seen.push(r));
    exporter.export(['d', 'e', 'f'], (r) => seen.push(r));
    expect(seen).toEqual([{ code: ExportResultCode.SUCCESS }, failure, failure]);
    expect(lines[0]).toContain('failed: Service Unavailable;');

    inner.throws = true;
    expect(() => exporter.export(['g'], () => {})).toThrow('serializer broke');
    inner.throws = false;
    exporter.export(['h', 'i'], () => {});
    loss.reportAtEnd();
    expect(lines[1]).toMatch(/traces to .*: 3 of 4 batches failed \(5 spans, last error: serializer broke\), 2 spans still being exported$/);
  });
});

describe('queue drops', () => {
  it('are counted from a real BatchSpanProcessor whose queue is full, through its self-observability meter', () => {
    const { loss, lines } = harness();
    const tally = loss.tally('traces', TRACES);
    // An exporter that never answers: the first batch stays in flight and the queue fills up.
    const hanging: SpanExporter = { export: (_spans: ReadableSpan[]) => {}, shutdown: async () => {} };
    const processor = new BatchSpanProcessor({
      exporter: new CountingExporter(hanging, tally),
      maxQueueSize: 2,
      maxExportBatchSize: 2,
      scheduledDelayMillis: 60_000,
      selfObsMeterProvider: queueDropMeterProvider((n) => tally.dropped(n)),
    });
    const tracer = new TracerProvider({ spanProcessors: [processor] }).getTracer('test');
    for (let i = 0; i < 7; i++) tracer.startSpan(`s${i}`).end();
    loss.reportCounts();
    // spans 0-1 are exported, 2-3 wait in the queue, 4-6 are dropped
    expect(lines).toEqual([`telemetry lost in the last 0 ms: traces to ${TRACES}: 3 spans dropped (queue full)`]);
  });
});

describe('otlpEndpoint', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of Object.keys(process.env)) if (key.startsWith('OTEL_')) delete process.env[key];
    Object.assign(process.env, saved);
  });
  const set = (env: Record<string, string>) => {
    for (const key of Object.keys(process.env)) if (key.startsWith('OTEL_EXPORTER_OTLP_')) delete process.env[key];
    Object.assign(process.env, env);
  };

  it('resolves as the OTLP exporters do', () => {
    set({});
    expect(otlpEndpoint('TRACES', 'http/protobuf')).toBe('http://localhost:4318/v1/traces');
    expect(otlpEndpoint('LOGS', 'grpc')).toBe('http://localhost:4317/');
    set({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example:4318/prefix' });
    expect(otlpEndpoint('TRACES', 'http/json')).toBe('https://otel.example:4318/prefix/v1/traces');
    expect(otlpEndpoint('LOGS', 'http/json')).toBe('https://otel.example:4318/prefix/v1/logs');
    set({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example:4318', OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'https://logs.example/ingest' });
    expect(otlpEndpoint('LOGS', 'http/json')).toBe('https://logs.example/ingest');
    expect(otlpEndpoint('TRACES', 'grpc')).toBe('https://otel.example:4318/');
  });

  it('never carries credentials: no user info, query or headers', () => {
    set({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://svc:hunter2@otel.example:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://svc:hunter2@otel.example:4318/v1/traces?api_key=abc123#x',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20s3cr3t',
    });
    const named = [otlpEndpoint('TRACES', 'http/protobuf'), otlpEndpoint('LOGS', 'grpc')];
    expect(named).toEqual(['https://otel.example:4318/v1/traces', 'https://otel.example:4318/']);
    for (const text of named) expect(text).not.toMatch(/hunter2|svc:|abc123|s3cr3t/);
  });
});

describe('svc.telemetry.shutdown-timeout', () => {
  const timeout = (value?: string) => {
    const { config } = loadConfig({ cwd: tempDir(), args: value === undefined ? [] : [`-Dsvc.telemetry.shutdown-timeout=${value}`], env: {} });
    return { ms: config.get<number>('telemetry.shutdown-timeout'), problems: config.problems.map((p) => p.message) };
  };

  it('is 2 s by default, takes 0 to 30 s, and refuses more with the default', () => {
    expect(timeout()).toEqual({ ms: 2000, problems: [] });
    expect(timeout('0ms').ms).toBe(0);
    expect(timeout('30s').ms).toBe(30_000);
    const refused = timeout('45s');
    expect(refused.ms).toBe(2000);
    expect(refused.problems.join()).toContain('out of range');
  });
});
