/**
 * The listener browsers (or an OpenTelemetry Collector's `otlphttp` exporter) send traces to:
 * OTLP/HTTP `POST /v1/traces`, JSON or protobuf, optionally gzip-compressed, on a port of its own.
 *
 * Everything a browser on the internet can send is bounded: the body (compressed and
 * decompressed) by `svc.frontend.max-body-bytes` (413), the spans per request (413), each span's
 * attributes and events (src/frontend/otlp-traces.ts), requests per origin per minute (429 with
 * Retry-After), open connections and slow requests. CORS answers only origins listed in
 * `svc.frontend.allowed-origins`; a request from any other origin gets 403. Malformed payloads
 * get 400 naming what is wrong, and are dropped whole. Nothing here can throw into the host.
 */
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import { gunzip } from 'node:zlib';
import { startBoundedHttpServer } from '../shared/bounded-http-server.js';
import { printable } from '../shared/printable.js';
import { RateLimiter } from '../shared/rate-limiter.js';
import type { FrontendTelemetry } from './frontend-telemetry.js';
import { type DecodedSpan, decodeJsonTraces, decodeProtobufTraces, OtlpDecodeError, TooManySpansError } from './otlp-traces.js';

export interface FrontendListenerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Origins (`https://shop.example.com`) whose pages may send telemetry from a browser. */
  readonly allowedOrigins: readonly string[];
  readonly maxBodyBytes: number;
  readonly maxSpansPerRequest: number;
  /** Requests per minute per origin (per client address when there is no Origin header). */
  readonly rateLimitPerMinute: number;
  readonly telemetry: FrontendTelemetry;
  /** The ports svc serves, which the app's instrumentation does not trace: the listener's is added while it listens. */
  readonly ownPorts: Set<number>;
  readonly now?: () => number;
  /** For tests: how long a connection may take to send a request's headers, and a whole request. */
  readonly headersTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
}

export const TRACES_PATH = '/v1/traces';
/** Open connections; more are refused. */
export const MAX_CONNECTIONS = 512;
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * Request bodies read at once, in units of max-body-bytes: what all open connections together can
 * make svc buffer (512 connections each sending a whole body would be 512 of them). Beyond it: 503.
 */
export const MAX_BUFFERED_BODIES = 16;
/** How long a browser may cache a preflight answer. */
const PREFLIGHT_MAX_AGE_S = 600;

export class FrontendListenerError extends Error {}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

type Format = 'json' | 'protobuf';

function formatOf(contentType: string | undefined): Format | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  return undefined;
}

export class FrontendListener {
  private http: HttpServer | undefined;
  private readonly limiter: RateLimiter;
  private readonly origins: ReadonlySet<string>;
  private boundPort = 0;
  /** Requests refused, by status code: for tests and `svc` diagnostics. */
  readonly refused = new Map<number, number>();
  accepted = 0;
  /** Bytes of request bodies (compressed and decompressed) held right now, at most MAX_BUFFERED_BODIES x max-body-bytes. */
  bufferedBytes = 0;

  constructor(private readonly options: FrontendListenerOptions) {
    this.limiter = new RateLimiter(options.rateLimitPerMinute, options.now);
    this.origins = new Set(options.allowedOrigins.map((o) => o.toLowerCase()));
  }

  get url(): string {
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    return `http://${host}:${this.boundPort}${TRACES_PATH}`;
  }

  get port(): number {
    return this.boundPort;
  }

  async start(): Promise<string> {
    const { server, port } = await startBoundedHttpServer(
      {
        host: this.options.host,
        port: this.options.port,
        portKey: 'svc.frontend.port',
        consequence: 'browser telemetry is not received',
        name: 'frontend listener',
        maxConnections: MAX_CONNECTIONS,
        headersTimeoutMs: this.options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
        requestTimeoutMs: this.options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
        bindError: (message) => new FrontendListenerError(message),
      },
      (req, res) => this.handle(req, res),
    );
    this.http = server;
    this.boundPort = port;
    this.options.ownPorts.add(this.boundPort);
    this.options.telemetry.listeningAt = this.url;
    return this.url;
  }

  async stop(): Promise<void> {
    const http = this.http;
    this.http = undefined;
    this.options.ownPorts.delete(this.boundPort);
    if (!http) return;
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  private corsHeaders(origin: string | undefined): Record<string, string> {
    return origin === undefined ? {} : { 'access-control-allow-origin': origin, vary: 'Origin' };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = req.headers.origin;
    const held = { bytes: 0 };
    try {
      const path = (req.url ?? '').split('?')[0];
      if (path !== TRACES_PATH) throw new HttpError(404, `not found: browser telemetry is received at POST ${TRACES_PATH}`);
      if (origin !== undefined && !this.origins.has(origin.toLowerCase()))
        throw new HttpError(403, `origin "${printable(origin, 200)}" is not in svc.frontend.allowed-origins; add it there to accept telemetry from its pages`);
      if (req.method === 'OPTIONS') {
        res
          .writeHead(204, {
            ...this.corsHeaders(origin),
            'access-control-allow-methods': 'POST, OPTIONS',
            'access-control-allow-headers': 'content-type, content-encoding',
            'access-control-max-age': String(PREFLIGHT_MAX_AGE_S),
          })
          .end();
        return;
      }
      if (req.method !== 'POST') throw new HttpError(405, `method ${printable(req.method ?? '', 20)} not allowed: send POST ${TRACES_PATH}`, { allow: 'POST, OPTIONS' });
      // Origins are compared without case, so they are counted without case: HTTP://SHOP... is the same origin.
      const retryAfter = this.limiter.take(origin?.toLowerCase() ?? `address:${req.socket.remoteAddress ?? ''}`);
      if (retryAfter > 0)
        throw new HttpError(429, `rate limit of ${this.options.rateLimitPerMinute} requests per minute for this origin exceeded (svc.frontend.rate-limit-per-minute); retry in ${retryAfter}s`, {
          'retry-after': String(retryAfter),
        });
      const format = formatOf(req.headers['content-type']);
      if (!format) throw new HttpError(415, `content-type "${printable(req.headers['content-type'] ?? '', 100)}" is not accepted: send application/json or application/x-protobuf (OTLP/HTTP)`);
      const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
      if (encoding !== 'identity' && encoding !== 'gzip') throw new HttpError(415, `content-encoding "${printable(encoding, 50)}" is not accepted: send gzip or no encoding`);
      const body = await this.readBody(req, encoding === 'gzip', held);
      const spans = this.decode(body, format);
      this.options.telemetry.ingest(spans);
      this.accepted++;
      // An empty ExportTraceServiceResponse: full success.
      if (format === 'json') res.writeHead(200, { ...this.corsHeaders(origin), 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { ...this.corsHeaders(origin), 'content-type': 'application/x-protobuf' }).end();
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      this.refused.set(error.status, (this.refused.get(error.status) ?? 0) + 1);
      // A refused body is not read: close the connection rather than drain an unknown amount.
      const close = req.complete ? {} : { connection: 'close' };
      const allowed = origin !== undefined && this.origins.has(origin.toLowerCase());
      res.writeHead(error.status, { ...(allowed ? this.corsHeaders(origin) : {}), ...error.headers, ...close, 'content-type': 'application/json' }).end(JSON.stringify({ error: error.message }));
      if (!req.complete) req.resume();
    } finally {
      this.bufferedBytes -= held.bytes;
    }
  }

  private decode(body: Buffer, format: Format): DecodedSpan[] {
    const limits = { maxSpans: this.options.maxSpansPerRequest };
    try {
      return format === 'json' ? decodeJsonTraces(body.toString('utf8'), limits) : decodeProtobufTraces(body, limits);
    } catch (error) {
      if (error instanceof TooManySpansError) throw new HttpError(413, error.message);
      if (error instanceof OtlpDecodeError) throw new HttpError(400, error.message);
      throw error;
    }
  }

  /** Holds `bytes` more of body for this request (released when it is answered), or refuses with 503 when all requests together would hold more than the budget. */
  private hold(held: { bytes: number }, bytes: number): void {
    const budget = MAX_BUFFERED_BODIES * this.options.maxBodyBytes;
    if (this.bufferedBytes + bytes > budget)
      throw new HttpError(503, `busy: request bodies being read already hold ${budget} bytes (${MAX_BUFFERED_BODIES} x svc.frontend.max-body-bytes); retry in 1s`, { 'retry-after': '1' });
    this.bufferedBytes += bytes;
    held.bytes += bytes;
  }

  private readBody(req: IncomingMessage, gzipped: boolean, held: { bytes: number }): Promise<Buffer> {
    const max = this.options.maxBodyBytes;
    const tooLarge = (): HttpError => new HttpError(413, `body larger than ${max} bytes (svc.frontend.max-body-bytes); send smaller batches`);
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) return Promise.reject(tooLarge());
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let failed = false;
      req.on('data', (chunk: Buffer) => {
        if (failed) return;
        size += chunk.length;
        if (size > max) {
          failed = true;
          reject(tooLarge());
          return;
        }
        try {
          this.hold(held, chunk.length);
        } catch (error) {
          failed = true;
          reject(error);
          return;
        }
        chunks.push(chunk);
      });
      req.on('error', (error) => {
        if (!failed) reject(new HttpError(400, `request body could not be read: ${error.message}`));
        failed = true;
      });
      // A sender that goes away mid-body: the request is over, and what it held is released.
      req.on('close', () => {
        if (!failed && !req.complete) reject(new HttpError(400, 'request ended before its body did'));
        failed = true;
      });
      req.on('end', () => {
        if (failed) return;
        failed = true;
        const body = Buffer.concat(chunks);
        if (!gzipped) return resolve(body);
        gunzip(body, { maxOutputLength: max }, (error, out) => {
          if (!error) {
            try {
              this.hold(held, out.length);
            } catch (busy) {
              return reject(busy);
            }
            return resolve(out);
          }
          const code = (error as NodeJS.ErrnoException).code;
          reject(code === 'ERR_BUFFER_TOO_LARGE' ? new HttpError(413, `decompressed body larger than ${max} bytes (svc.frontend.max-body-bytes)`) : new HttpError(400, 'body is not valid gzip'));
        });
      });
    });
  }
}
