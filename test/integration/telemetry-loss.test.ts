/**
 * Real processes under the preload with the collector down: an export failure is reported once per
 * signal (endpoint and error, never a header) at its first attempt, while the exporter still
 * retries; the end of the process counts what was lost. On SIGTERM and at a natural end, the end
 * does not wait for an endpoint that refused every export, waits at most
 * svc.telemetry.shutdown-timeout for one that took exports before, and a healthy collector keeps
 * the exit as prompt as before.
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

interface ScriptedCollector {
  readonly endpoint: string;
  /** Resolves once `path` had `count` requests. */
  received(path: string, count: number): Promise<void>;
}

/** An OTLP endpoint that answers the n-th export to each path with `status(path, n)`. */
async function scriptedCollector(status: (path: string, nth: number) => number): Promise<ScriptedCollector> {
  const requests = new Map<string, number>();
  const waiting: { path: string; count: number; resolve: () => void }[] = [];
  collector = createServer((req, res) => {
    req.resume().on('end', () => {
      const path = req.url ?? '';
      const nth = (requests.get(path) ?? 0) + 1;
      requests.set(path, nth);
      const code = status(path, nth);
      res.writeHead(code).end(code === 200 ? '{}' : 'unavailable');
      for (const w of waiting.filter((w) => w.path === path && w.count <= nth)) w.resolve();
    });
  });
  await new Promise<void>((resolve) => collector!.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    received: (path, count) => new Promise((resolve) => ((requests.get(path) ?? 0) >= count ? resolve() : waiting.push({ path, count, resolve }))),
  };
}

const unavailableCollector = (): Promise<ScriptedCollector> => scriptedCollector(() => 503);

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

it('the 503 collector really receives the exports it refuses', async () => {
  const { endpoint, received } = await unavailableCollector();
  app = await startFixture({ script: 'server.mjs', cwd: dir, otlpEndpoint: endpoint, env: { OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1', OTEL_EXPORTER_OTLP_TIMEOUT: '300' } });
  for (let i = 0; i < 3; i++) await app.get(`/r${i}`);
  await received('/v1/traces', 3);
  await received('/v1/logs', 1);
  await stderrMatching(app, /traces export to .* failed: HTTP 503 Service Unavailable/);
});

describe('the end of the process: not waiting for an endpoint that refused every export, else at most svc.telemetry.shutdown-timeout', () => {
  /** SIGTERM to a process with spans queued (the batch delay is long): the flush is the first export. */
  async function sigtermWithCollectorDown(): Promise<{ elapsedMs: number; signal: string | null; stderr: string; endpoint: string }> {
    const endpoint = await closedPortEndpoint();
    app = await startFixture({ script: 'server.mjs', cwd: dir, otlpEndpoint: endpoint, env: { OTEL_BSP_SCHEDULE_DELAY: '60000', OTEL_BLRP_SCHEDULE_DELAY: '60000' } });
    await app.get('/queued');
    const started = performance.now();
    const { signal } = await app.stop();
    return { elapsedMs: performance.now() - started, signal, stderr: app.stderr(), endpoint };
  }

  it('SIGTERM with the collector unreachable: the process dies by the signal without waiting the 2 s bound, the span reported lost', async () => {
    const { elapsedMs, signal, stderr, endpoint } = await sigtermWithCollectorDown();
    console.log(`SIGTERM, collector down: exited after ${Math.round(elapsedMs)} ms`);
    expect(signal).toBe('SIGTERM');
    // a structural guard, well under the bound: the figure itself is bench/export-cost.mjs's
    expect(elapsedMs).toBeLessThan(1000);
    expect(stderr).toMatch(new RegExp(`svc: traces export to ${endpoint}/v1/traces failed: connect ECONNREFUSED`));
    expect(stderr).toMatch(new RegExp(`\\(the process is ending\\): traces to ${endpoint}/v1/traces: 1 span still being exported`));
  });

  it('SIGTERM with a collector that took an export and now answers 503: the configured 300 ms', async () => {
    const { endpoint, received } = await scriptedCollector((path, nth) => (path === '/v1/traces' && nth > 1 ? 503 : 200));
    app = await startFixture({
      script: 'server.mjs',
      cwd: dir,
      args: ['-Dsvc.telemetry.shutdown-timeout=300ms'],
      otlpEndpoint: endpoint,
      // each span is exported as it ends, one export at a time
      env: { OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1', OTEL_BSP_SCHEDULE_DELAY: '60000', OTEL_BLRP_SCHEDULE_DELAY: '60000' },
    });
    await app.get('/delivered');
    await app.get('/retried');
    // the second export started after the first one's result: /retried is being retried
    await received('/v1/traces', 2);
    await app.get('/queued');
    const started = performance.now();
    const { signal } = await app.stop();
    const elapsedMs = performance.now() - started;
    console.log(`SIGTERM, collector answering 503 after one export, 300 ms bound: exited after ${Math.round(elapsedMs)} ms`);
    expect(signal).toBe('SIGTERM');
    expect(elapsedMs).toBeGreaterThanOrEqual(250);
    expect(elapsedMs).toBeLessThan(300 + SLACK_MS);
    expect(app.stderr()).toMatch(new RegExp(`\\(the process is ending\\): traces to ${endpoint}/v1/traces: 2 spans still being exported`));
  });

  /** Time from the app's last line to the exit of a process that ends by itself. */
  async function naturalEnd(endpoint: string, env: Record<string, string> = {}): Promise<{ elapsedMs: number; code: number | null; stderr: string }> {
    app = await startFixture({
      script: 'natural-end.mjs',
      cwd: dir,
      otlpEndpoint: endpoint,
      listens: false,
      env: { OTEL_BSP_SCHEDULE_DELAY: '60000', OTEL_BLRP_SCHEDULE_DELAY: '60000', ...env },
    });
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

  it('natural end with the collector unreachable: not the 2 s bound nor the exporter retrying for 10 s, exit code kept', async () => {
    const endpoint = await closedPortEndpoint();
    // the SDK's metrics exporter, which svc does not count, retries its last export at shutdown too
    const { elapsedMs, code, stderr } = await naturalEnd(endpoint, { OTEL_METRICS_EXPORTER: 'otlp' });
    console.log(`natural end, collector down: exited ${Math.round(elapsedMs)} ms after the app's last line`);
    expect(code).toBe(3);
    expect(elapsedMs).toBeLessThan(1000);
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
