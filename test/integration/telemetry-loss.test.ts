/**
 * Real processes under the preload with the collector down: an export failure is reported once per
 * signal (endpoint and error, never a header) at its first attempt, while the exporter still
 * retries; the end of the process counts what was lost, and the end
 * waits at most svc.telemetry.shutdown-timeout, on SIGTERM and at a natural end, while a healthy
 * collector keeps the exit as prompt as before.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { type FixtureApp, freePort, startFixture } from '../support/fixture-app.js';
import { OtlpReceiver } from '../support/otlp-receiver.js';
import { tempDir } from '../support/temp-dir.js';

const SERVER_APP = `import { createServer } from 'node:http';
const server = createServer((req, res) => res.end('ok'));
server.listen(0, '127.0.0.1', () => console.log('LISTENING ' + server.address().port));
`;

// Serves three requests to itself, closes, and ends naturally with exit code 3.
const NATURAL_END_APP = `import { createServer, get } from 'node:http';
const server = createServer((req, res) => res.end('ok'));
server.listen(0, '127.0.0.1', async () => {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => get({ port: server.address().port, path: '/work', agent: false }, (res) => res.resume().on('end', resolve)));
  }
  server.close();
  process.exitCode = 3;
  console.log('DONE');
});
`;

const dir = tempDir({ 'server.mjs': SERVER_APP, 'natural-end.mjs': NATURAL_END_APP });
const SECRET_HEADERS = 'authorization=Bearer%20s3cr3t-token,x-api-key=k3y-value';
/** Process start and exit on a loaded 2-core machine, on top of the configured bound. */
const SLACK_MS = 1500;

let app: FixtureApp | undefined;
let collector: Server | undefined;

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await new Promise<void>((resolve) => (collector ? collector.close(() => resolve()) : resolve()));
  collector = undefined;
});

/** An OTLP endpoint that answers every export with 503, and how many requests it had per path. */
async function unavailableCollector(): Promise<{ endpoint: string; requests: Map<string, number> }> {
  const requests = new Map<string, number>();
  collector = createServer((req, res) => {
    req.resume().on('end', () => {
      requests.set(req.url ?? '', (requests.get(req.url ?? '') ?? 0) + 1);
      res.writeHead(503).end('unavailable');
    });
  });
  await new Promise<void>((resolve) => collector!.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`, requests };
}

async function closedPortEndpoint(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

/** Resolves once the app's stderr matches `pattern` (the output is event-driven: no polling of time). */
function stderrMatching(fixture: FixtureApp, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (pattern.test(fixture.stderr())) resolve();
    };
    fixture.child.stderr!.on('data', check);
    void fixture.exited().then(() => (pattern.test(fixture.stderr()) ? resolve() : reject(new Error(`exited; stderr:\n${fixture.stderr()}`))));
    check();
  });
}

function count(text: string, pattern: RegExp): number {
  return text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
}

/** Sums the spans the end-of-process report names as failed and as still being exported. */
function spansInEndReport(stderr: string, endpoint: string): number {
  const line = stderr.split('\n').find((l) => l.includes('(the process is ending)')) ?? '';
  const part = line.slice(line.indexOf(`traces to ${endpoint}/v1/traces`)).split(';')[0]!;
  const failed = /batches failed \((\d+) spans?/.exec(part);
  const inFlight = /(\d+) spans? still being exported/.exec(part);
  return Number(failed?.[1] ?? 0) + Number(inFlight?.[1] ?? 0);
}

describe.each([
  ['a closed port', closedPortEndpoint, /connect ECONNREFUSED/, /connect ECONNREFUSED/],
  ['a collector answering 503', async () => (await unavailableCollector()).endpoint, /HTTP 503 Service Unavailable/, /Export failed with retryable status/],
] as const)('exporting to %s', (_name, endpointOf, attemptError, exportError) => {
  it('names each signal and its endpoint once, however many batches fail, and never a header', async () => {
    const endpoint = await endpointOf();
    const requests = 6;
    app = await startFixture({
      script: 'server.mjs',
      cwd: dir,
      otlpEndpoint: endpoint,
      env: {
        // one span per batch, and one export attempt per batch (the retry backoff exceeds 300 ms)
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1',
        OTEL_EXPORTER_OTLP_TIMEOUT: '300',
        OTEL_EXPORTER_OTLP_HEADERS: SECRET_HEADERS,
      },
    });
    for (let i = 0; i < requests; i++) expect((await app.get(`/r${i}`)).status).toBe(200);
    await stderrMatching(app, /traces export to .* failed/);
    await stderrMatching(app, /logs export to .* failed/);
    const { signal } = await app.stop();
    expect(signal).toBe('SIGTERM');

    const stderr = app.stderr();
    const tracesLine = new RegExp(`svc: traces export to ${endpoint}/v1/traces failed: ${attemptError.source}[^;]*; what is lost is counted and reported every 5 min`);
    expect(stderr).toMatch(tracesLine);
    expect(stderr).toMatch(new RegExp(`svc: logs export to ${endpoint}/v1/logs failed: ${attemptError.source}[^;]*; what is lost`));
    expect(count(stderr, /traces export to/)).toBe(1);
    expect(count(stderr, /logs export to/)).toBe(1);
    // Every span is counted once, at the end.
    expect(stderr).toMatch(
      new RegExp(
        `telemetry lost in the last \\d+ (ms|s) \\(the process is ending\\): .*traces to ${endpoint}/v1/traces: \\d+ of \\d+ batches failed \\(\\d+ spans?, last error: ${exportError.source}`,
      ),
    );
    expect(spansInEndReport(stderr, endpoint)).toBe(requests);
    expect(stderr).not.toMatch(/s3cr3t|k3y-value|authorization|x-api-key/i);
  });
});

it('reports the first refused attempt while the exporter still retries it, and counts the span as lost at the end', async () => {
  const endpoint = await closedPortEndpoint();
  // the exporter's default 10 s: its retries of a refused connection last about 8 s
  app = await startFixture({ script: 'server.mjs', cwd: dir, otlpEndpoint: endpoint });
  await app.get('/first');
  await stderrMatching(app, new RegExp(`traces export to ${endpoint}/v1/traces failed: connect ECONNREFUSED`));
  const { signal } = await app.stop();
  expect(signal).toBe('SIGTERM');
  expect(app.stderr()).toMatch(new RegExp(`\\(the process is ending\\): traces to ${endpoint}/v1/traces: 1 span still being exported`));
});

it('the 503 collector really received the exports it refused', async () => {
  const { endpoint, requests } = await unavailableCollector();
  app = await startFixture({ script: 'server.mjs', cwd: dir, otlpEndpoint: endpoint, env: { OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1', OTEL_EXPORTER_OTLP_TIMEOUT: '300' } });
  for (let i = 0; i < 3; i++) await app.get(`/r${i}`);
  await stderrMatching(app, /traces export to .* failed/);
  await app.stop();
  expect(requests.get('/v1/traces')).toBeGreaterThanOrEqual(3);
  expect(requests.get('/v1/logs')).toBeGreaterThanOrEqual(1);
});

describe('the end of the process waits at most svc.telemetry.shutdown-timeout', () => {
  /** SIGTERM with spans queued (the batch delay is long) and the OTLP exporter's own 10 s of retries. */
  async function sigtermWithCollectorDown(args: string[] = []): Promise<{ elapsedMs: number; signal: string | null; stderr: string; endpoint: string }> {
    const endpoint = await closedPortEndpoint();
    app = await startFixture({ script: 'server.mjs', cwd: dir, args, otlpEndpoint: endpoint, env: { OTEL_BSP_SCHEDULE_DELAY: '60000', OTEL_BLRP_SCHEDULE_DELAY: '60000' } });
    await app.get('/queued');
    const started = performance.now();
    const { signal } = await app.stop();
    return { elapsedMs: performance.now() - started, signal, stderr: app.stderr(), endpoint };
  }

  it('SIGTERM with the collector unreachable: the default 2 s, then the process dies by the signal', async () => {
    const { elapsedMs, signal, stderr, endpoint } = await sigtermWithCollectorDown();
    console.log(`SIGTERM, collector down, default bound: exited after ${Math.round(elapsedMs)} ms`);
    expect(signal).toBe('SIGTERM');
    expect(elapsedMs).toBeGreaterThanOrEqual(1900);
    expect(elapsedMs).toBeLessThan(2000 + SLACK_MS);
    expect(stderr).toMatch(new RegExp(`\\(the process is ending\\): traces to ${endpoint}/v1/traces: 1 span still being exported`));
  });

  it('SIGTERM with the collector unreachable: a configured 300 ms', async () => {
    const { elapsedMs, signal } = await sigtermWithCollectorDown(['-Dsvc.telemetry.shutdown-timeout=300ms']);
    console.log(`SIGTERM, collector down, 300 ms bound: exited after ${Math.round(elapsedMs)} ms`);
    expect(signal).toBe('SIGTERM');
    expect(elapsedMs).toBeGreaterThanOrEqual(250);
    expect(elapsedMs).toBeLessThan(300 + SLACK_MS);
  });

  /** Time from the app's last line to the exit of a process that ends by itself. */
  async function naturalEnd(endpoint: string): Promise<{ elapsedMs: number; code: number | null; stderr: string }> {
    app = await startFixture({ script: 'natural-end.mjs', cwd: dir, otlpEndpoint: endpoint, listens: false, env: { OTEL_BSP_SCHEDULE_DELAY: '60000', OTEL_BLRP_SCHEDULE_DELAY: '60000' } });
    const fixture = app;
    const done = new Promise<number>((resolve) => {
      const check = (): void => {
        if (fixture.stdout().includes('DONE')) resolve(performance.now());
      };
      fixture.child.stdout!.on('data', check);
    });
    const exit = fixture.exited().then(({ code }) => ({ code, at: performance.now() }));
    const [doneAt, { code, at }] = await Promise.all([done, exit]);
    return { elapsedMs: at - doneAt, code, stderr: fixture.stderr() };
  }

  it('natural end with the collector unreachable: 2 s instead of the exporter retrying for 10 s, exit code kept', async () => {
    const endpoint = await closedPortEndpoint();
    const { elapsedMs, code, stderr } = await naturalEnd(endpoint);
    console.log(`natural end, collector down: exited ${Math.round(elapsedMs)} ms after the app's last line`);
    expect(code).toBe(3);
    expect(elapsedMs).toBeGreaterThanOrEqual(1900);
    expect(elapsedMs).toBeLessThan(2000 + SLACK_MS);
    expect(stderr).toMatch(new RegExp(`\\(the process is ending\\): traces to ${endpoint}/v1/traces: \\d+ spans still being exported`));
  });

  it('natural end with a healthy collector: exports everything and exits promptly', async () => {
    const receiver = new OtlpReceiver();
    const endpoint = await receiver.start();
    try {
      const { elapsedMs, code, stderr } = await naturalEnd(endpoint);
      console.log(`natural end, collector up: exited ${Math.round(elapsedMs)} ms after the app's last line`);
      expect(code).toBe(3);
      expect(elapsedMs).toBeLessThan(1000);
      expect(receiver.spans.filter((s) => s.attributes['url.path'] === '/work').length).toBeGreaterThanOrEqual(3);
      expect(stderr).not.toMatch(/telemetry lost|export to/);
    } finally {
      await receiver.stop();
    }
  });
});
