/**
 * The MCP tool server: Streamable HTTP at `/mcp` on plain `node:http`, MCP SDK v2, serving two
 * protocol revisions from the one endpoint:
 * - 2026-07-28, stateless: every request carries its protocol version and capabilities in
 *   `_meta`; the SDK's `createMcpHandler` serves it (server/discover, Mcp-Method/Mcp-Name header
 *   checks, ttlMs/cacheScope, subscriptions/listen);
 * - 2025-11-25 and earlier, with sessions, for clients that open with `initialize` (SDK v1
 *   clients): each session is an SDK server on a Node Streamable HTTP transport.
 * The SDK's own classification (`isLegacyRequest`) decides which one serves a request. Every
 * protocol detail lives in src/mcp/.
 *
 * Per request, in order, in both protocols: path `/mcp` or, with OAuth, the Protected Resource
 * Metadata's (404; with the status page on, every other path is the page's, src/mcp/status-page,
 * after the Host and Origin checks), Host and Origin against DNS rebinding (403), the
 * failed-authentication limit (429), the bearer token (401; an OAuth access token also 503 while
 * the issuer's keys are not had, src/mcp/oauth/resource-server.ts), the caller's
 * rate limit (429 with Retry-After), a declared name or role that may only lower the
 * credential's (403), the MCP session of 2025 clients, which belongs to the credential that
 * opened it (another credential gets 404), the body limit (413, chunked or not), batches (400),
 * nesting beyond MAX_NESTING (400), an OAuth caller's tools/call its scopes do not allow (403
 * `insufficient_scope`), an initialize or subscriptions/listen over
 * MAX_KEPT_REQUEST_BYTES (413: kept as long as its session or stream), malformed params
 * (-32602) and a credential's subscriptions/listen streams beyond its session cap (429). Per
 * tool call: unknown tool -> JSON-RPC -32602; insufficient permission, missing or invalid
 * argument, refused action (any AgentError) -> a result with `isError: true` that says what to
 * send instead. Nothing a tool does can throw into the host.
 */
import { randomUUID } from 'node:crypto';
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { AuthInfo, CacheHint, CallToolResult, McpHttpHandler, Server, ServerContext, Tool, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Tracer } from '@opentelemetry/api';
import { didYouMean } from '../config/did-you-mean.js';
import { AgentError } from '../shared/agent-error.js';
import { startBoundedHttpServer } from '../shared/bounded-http-server.js';
import { printable } from '../shared/printable.js';
import { RateLimiter } from '../shared/rate-limiter.js';
import { reportError } from '../shared/report-error.js';
import { AuthFailureLimiter } from './auth-failure-limiter.js';
import { AuthenticationError, type Authenticator, bearerTokenOf, UnknownTokenError } from './authenticator.js';
import { boundToolResult, cutText, maxOutputBytes } from './bounded-output.js';
import { CallsInFlight, type Release } from './calls-in-flight.js';
import { appResources, appToolMeta, MCP_APP_EXTENSION, readAppResource } from './mcp-app.js';
import { loadMcpSdk, type McpSdk } from './mcp-sdk.js';
import type { ResourceServer } from './oauth/resource-server.js';
import { OAUTH_CREDENTIAL_PREFIX } from './oauth/token-identity.js';
import { TokenRefusal } from './oauth/token-refusal.js';
import { readBody } from './read-body.js';
import { INVALID_PARAMS, INVALID_REQUEST, jsonKind, KEPT_REQUESTS, MAX_KEPT_REQUEST_BYTES, MAX_NESTING, malformedParams, nestsDeeperThan, requestId } from './request-check.js';
import type { StatusPage } from './status-page/status-page.js';
import { listSome } from './text-layout.js';
import { type ToolCallRecord, ToolCallTracer } from './tool-call-tracer.js';
import { ANONYMOUS_CREDENTIAL, type CallerIdentity, type ToolDefinition } from './tool-definition.js';
import type { ToolRegistry } from './tool-registry.js';
import type { ToolServices } from './tool-services.js';
import { webRequest, writeResponse } from './web-exchange.js';

export interface ToolServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly maxBodyBytes: number;
  readonly rateLimitPerMinute: number;
  /** MCP sessions kept per credential; anonymous callers share one pool. */
  readonly maxSessionsPerCredential?: number;
  /** POST requests one caller may have in flight; more wait their turn briefly (src/mcp/calls-in-flight.ts). */
  readonly maxConcurrentCalls: number;
  readonly authenticator: Authenticator;
  /** OAuth access tokens beside the static ones (svc.mcp.oauth); none without. */
  readonly oauth?: ResourceServer;
  readonly registry: ToolRegistry;
  readonly services: ToolServices;
  readonly version: string;
  readonly now?: () => number;
  /** Told the port once bound, and again once released: svc's own HTTP is not traced as the app's. */
  readonly onPortBound?: (port: number) => void;
  readonly onPortReleased?: (port: number) => void;
  /** Each tools/call becomes a span of this tracer (src/mcp/tool-call-tracer.ts); none without. */
  readonly tracer?: Tracer;
  /** Serve the status page (src/mcp/status-page) on every path but /mcp: svc.mcp.status-page. */
  readonly statusPage?: boolean;
}

/** A caller's requests beyond svc.mcp.max-concurrent-calls: how many may wait (per request in flight), and how long. */
const QUEUED_CALLS_PER_IN_FLIGHT = 4;
const MAX_CALL_WAIT_MS = 2_000;

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export class ToolServerError extends Error {}

/**
 * Cache hints of the 2026-07-28 results (`ttlMs`, `cacheScope`). tools/list depends on the
 * caller's role, so it is private to the caller; a minute bounds how long a client that does not
 * listen for changes keeps a list that lacks a tool the app registered since. server/discover
 * names the server, its revisions and capabilities, the same for every caller and for the
 * process's life: public, an hour.
 */
export const CACHE_HINTS: Readonly<Record<'tools/list' | 'server/discover' | 'resources/list' | 'resources/read', CacheHint>> = Object.freeze({
  'tools/list': { ttlMs: 60_000, cacheScope: 'private' },
  'server/discover': { ttlMs: 3_600_000, cacheScope: 'public' },
  // The MCP Apps view: listed and read by READ callers only, so private; its document does not change while the process runs.
  'resources/list': { ttlMs: 60_000, cacheScope: 'private' },
  'resources/read': { ttlMs: 3_600_000, cacheScope: 'private' },
});

/** Tools named in the answer to an unknown tool; tools/list has them all. */
const MAX_TOOLS_NAMED = 30;

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || (isIP(host) === 4 && host.startsWith('127.'));
}

/**
 * Why the tool server refuses to bind `host`, if it does: a non-loopback address without tokens
 * would serve tools to anyone who can reach it. Shared with `svc check` (tool-server-config.ts).
 */
export function unauthenticatedBind(host: string, hasCredentials: boolean): string | undefined {
  if (isLoopback(host) || hasCredentials) return undefined;
  return `${printable(host, 253)}, not loopback, and no tokens are configured: refusing to serve tools without authentication; configure svc.mcp.tokens.<agent>.sha256/.role or svc.mcp.oauth, or bind 127.0.0.1`;
}

const WILDCARD = new Set(['0.0.0.0', '::']);
/** Open connections to the tool server (agents' SSE streams included); more are refused. */
export const MAX_CONNECTIONS = 256;
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

interface McpSession {
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** The credential that opened it; no other may use it. */
  readonly owner: string;
  lastUsed: number;
}

export class ToolServer {
  private http: HttpServer | undefined;
  private readonly sessions = new Map<string, McpSession>();
  /** Open 2026-07-28 subscriptions/listen streams per credential, capped as its sessions are. */
  private readonly streams = new Map<string, number>();
  /** The 2026-07-28 handler and its Node face, made with the first such request. */
  private modern: McpHttpHandler | undefined;
  private readonly limiter: RateLimiter;
  private readonly authFailures: AuthFailureLimiter;
  private readonly tracing: ToolCallTracer;
  private readonly callsInFlight: CallsInFlight;
  /** MCP sessions closed to keep a credential within its cap. */
  closedSessions = 0;
  private readonly unsubscribe: () => void;
  private boundPort = 0;
  /** Loaded with the first page request: agents never pay for it. */
  private statusPage: Promise<StatusPage> | undefined;

  constructor(private readonly options: ToolServerOptions) {
    const unauthenticated = unauthenticatedBind(options.host, options.authenticator.hasTokens || options.oauth !== undefined);
    if (unauthenticated) throw new ToolServerError(`svc.mcp.host is ${unauthenticated}`);
    this.limiter = new RateLimiter(options.rateLimitPerMinute, options.now);
    this.authFailures = new AuthFailureLimiter(options.now);
    this.tracing = new ToolCallTracer(options.tracer);
    this.callsInFlight = new CallsInFlight({ maxInFlight: options.maxConcurrentCalls, maxQueued: QUEUED_CALLS_PER_IN_FLIGHT * options.maxConcurrentCalls, maxWaitMs: MAX_CALL_WAIT_MS });
    this.unsubscribe = options.registry.onChange(() => {
      for (const session of this.sessions.values()) void session.server.sendToolListChanged().catch(() => undefined);
      this.modern?.notify.toolsChanged();
    });
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  get url(): string {
    const host = this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host;
    return `http://${host}:${this.boundPort}/mcp`;
  }

  async start(): Promise<string> {
    // Bounded connections and timeouts apply whoever connects, before any credential is checked.
    const { server, port } = await startBoundedHttpServer(
      {
        host: this.options.host,
        port: this.options.port,
        portKey: 'svc.mcp.port',
        consequence: 'the tool server is not running',
        name: 'tool server',
        maxConnections: MAX_CONNECTIONS,
        headersTimeoutMs: HEADERS_TIMEOUT_MS,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        bindError: (message) => new ToolServerError(message),
      },
      (req, res) => this.handle(req, res),
    );
    this.http = server;
    this.boundPort = port;
    this.options.oauth?.start();
    this.options.onPortBound?.(this.boundPort);
    return this.url;
  }

  async stop(): Promise<void> {
    this.unsubscribe();
    this.options.oauth?.stop();
    for (const session of this.sessions.values()) await session.transport.close().catch(() => undefined);
    this.sessions.clear();
    await this.modern?.close().catch(() => undefined);
    this.modern = undefined;
    const http = this.http;
    this.http = undefined;
    if (http) this.options.onPortReleased?.(this.boundPort);
    if (!http) return;
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  private refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}, code = -32000): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
  }

  private allowedHost(host: string | undefined): boolean {
    if (!host) return false;
    // A wildcard bind answers to any name it is reached by; tokens are required there.
    if (WILDCARD.has(this.options.host)) return true;
    const port = String(this.boundPort);
    const names = isLoopback(this.options.host) ? ['127.0.0.1', 'localhost', '[::1]'] : [this.options.host.includes(':') ? `[${this.options.host}]` : this.options.host];
    return names.some((name) => host === `${name}:${port}`);
  }

  private allowedOrigin(origin: string | undefined): boolean {
    if (origin === undefined) return true;
    try {
      const { hostname } = new URL(origin);
      const name = hostname.replace(/^\[|\]$/g, '');
      return isLoopback(this.options.host) ? isLoopback(name) : WILDCARD.has(this.options.host) || name === this.options.host;
    } catch {
      return false;
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0]!;
    const metadata = this.options.oauth?.paths.has(path) ? this.options.oauth.metadata : undefined;
    if (path !== '/mcp' && !metadata && !this.options.statusPage) return this.refuse(res, 404, 'not found: the MCP endpoint is /mcp');
    if (!this.allowedHost(req.headers.host)) return this.refuse(res, 403, `Host header "${printable(req.headers.host ?? '')}" is not allowed (DNS rebinding protection)`);
    if (!this.allowedOrigin(req.headers.origin)) return this.refuse(res, 403, `Origin "${printable(req.headers.origin ?? '')}" is not allowed (DNS rebinding protection)`);
    if (metadata) {
      if (req.method !== 'GET') return this.refuse(res, 405, 'the protected resource metadata is read with GET', { allow: 'GET' });
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600' }).end(JSON.stringify(metadata));
      return;
    }
    if (path !== '/mcp') return (await this.page()).handle(req, res);

    const identity = await this.authenticate(req, res);
    if (!identity) return;
    const anonymous = identity.credential === ANONYMOUS_CREDENTIAL;
    const callerKey = anonymous ? `anonymous:${req.socket.remoteAddress}` : identity.credential;
    const retryAfterSeconds = this.limiter.take(callerKey);
    if (retryAfterSeconds > 0)
      return this.refuse(res, 429, `rate limit of ${this.options.rateLimitPerMinute} requests per minute exceeded; retry in ${retryAfterSeconds}s`, { 'retry-after': String(retryAfterSeconds) });
    // A 2025 session's GET stream is long-lived and capped with the sessions.
    if (req.method !== 'POST') return this.serve(req, res, identity, () => {});
    const release = await this.callsInFlight.admit(callerKey);
    if (!release)
      return this.refuse(res, 429, `this caller has ${this.options.maxConcurrentCalls} requests in flight and more waiting (svc.mcp.max-concurrent-calls); retry once one has answered`, {
        'retry-after': '1',
      });
    try {
      await this.serve(req, res, identity, release);
    } finally {
      release();
    }
  }

  /** Answers an authenticated request within the caller's limits; `release` ends its turn among the caller's requests in flight. */
  private async serve(req: IncomingMessage, res: ServerResponse, identity: CallerIdentity, release: Release): Promise<void> {
    let caller: CallerIdentity;
    try {
      caller = this.options.authenticator.refine(identity, { agentName: header(req, 'x-agent-name'), role: header(req, 'x-agent-role') });
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      return this.refuse(res, 403, error.message);
    }
    const context: RequestContext = {
      caller,
      protocolVersion: header(req, 'mcp-protocol-version'),
      clientAddress: req.socket.remoteAddress,
      clientPort: req.socket.remotePort,
    };
    // Handed to the SDK, which gives it to the request handlers (ctx.http.authInfo).
    const authInfo: AuthInfo = { token: '', clientId: caller.agentName, scopes: [...caller.permissions], extra: { context } };

    // A 2025 client's session: it belongs to the credential that opened it.
    const sessionId = header(req, 'mcp-session-id');
    const existing = sessionId ? this.sessions.get(sessionId) : undefined;
    // Another credential's session answers as an unknown one: its id is not a capability.
    if (sessionId && existing?.owner !== caller.credential) return this.refuse(res, 404, `unknown MCP session "${printable(sessionId, 64)}"; initialize a new one`);
    // GET (a 2025 client's stream) and DELETE belong to a session; 2026-07-28 has neither.
    if (req.method !== 'POST') {
      if (!existing) return this.refuse(res, 405, 'no MCP session: 2025-11-25 clients open one with an initialize request; 2026-07-28 clients POST every request', { allow: 'POST' });
      existing.lastUsed = this.now();
      return writeResponse(res, await existing.transport.handleRequest(webRequest(req, res), { authInfo }));
    }

    const body = await readBody(req, this.options.maxBodyBytes);
    if (body === undefined) return this.refuse(res, 413, `request body exceeds the limit of ${this.options.maxBodyBytes} bytes (svc.mcp.max-body-bytes)`, { connection: 'close' });
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return this.refuse(res, 400, 'the request body is not JSON', {}, -32700);
    }
    // Batches would carry up to 100 calls through one rate-limited request; MCP 2025-06-18 removed them.
    if (Array.isArray(message)) return this.refuse(res, 400, 'JSON-RPC batches are not supported: send one message per request', {}, INVALID_REQUEST);
    if (nestsDeeperThan(message, MAX_NESTING))
      return this.answerError(res, 400, requestId(message), INVALID_REQUEST, `the request nests objects and arrays more than ${MAX_NESTING} levels deep; MCP messages nest a few`);
    const method = (message as { method?: unknown } | null)?.method;
    const bytes = Buffer.byteLength(body);
    const lacking = this.lackingScope(identity, message);
    if (lacking) return this.refuse(res, 403, `insufficient scope: ${lacking.tool} needs ${lacking.permission}`, { 'www-authenticate': lacking.challenge });
    if (typeof method === 'string' && KEPT_REQUESTS.has(method) && bytes > MAX_KEPT_REQUEST_BYTES)
      return this.answerError(
        res,
        413,
        requestId(message),
        INVALID_REQUEST,
        `${method} is kept for as long as what it opens: at most ${MAX_KEPT_REQUEST_BYTES} bytes are accepted, this one has ${bytes}`,
      );
    const sdk = await loadMcpSdk();
    // The SDK's own classification: a request carrying the 2026-07-28 `_meta` envelope (or its protocol header) is modern.
    const request = webRequest(req, res);
    const legacy = existing !== undefined || (await sdk.isLegacyRequest(request, message, { maxRequestBodySize: this.options.maxBodyBytes }));
    const malformed = malformedParams(message) ?? invalidForSdk(sdk, message, legacy ? LEGACY_REQUEST_TYPES : MODERN_REQUEST_TYPES);
    // 2026-07-28 answers a malformed request 400; a 2025 session answers every JSON-RPC error 200.
    if (malformed !== undefined) return this.answerError(res, legacy ? 200 : 400, requestId(message), INVALID_PARAMS, malformed);
    if (!legacy) {
      if (method === 'subscriptions/listen') {
        // A stream stays open: it counts among the credential's streams, not its requests in flight.
        release();
        if (!this.admitStream(caller.credential, res))
          return this.answerError(
            res,
            429,
            requestId(message),
            -32000,
            `this credential has ${this.maxPerCredential} subscriptions/listen streams open (svc.mcp.max-sessions-per-credential); close one first`,
          );
      }
      return writeResponse(res, await this.modernHandler(sdk).fetch(request, { authInfo, parsedBody: message }));
    }
    if (existing) {
      existing.lastUsed = this.now();
      return writeResponse(res, await existing.transport.handleRequest(request, { authInfo, parsedBody: message }));
    }
    if (!sdk.isInitializeRequest(message))
      return this.refuse(res, 400, 'no MCP session: the first request of a 2025-11-25 client must be initialize (2026-07-28 clients send _meta with every request)');
    const session = this.newSession(sdk, caller.credential);
    await session.server.connect(session.transport);
    await writeResponse(res, await session.transport.handleRequest(request, { authInfo, parsedBody: message }));
  }

  private page(): Promise<StatusPage> {
    const { services, authenticator, oauth } = this.options;
    // As for /mcp: a visitor without a credential is the anonymous caller only where no credential is configured.
    const anonymous = authenticator.hasTokens || oauth ? undefined : authenticator.authenticate(undefined);
    this.statusPage ??= import('./status-page/status-page.js').then(
      (m) => new m.StatusPage({ services, identify: (authorization) => this.identify(authorization), anonymous, authFailures: this.authFailures, limiter: this.limiter, now: () => this.now() }),
    );
    return this.statusPage;
  }

  /** The credential's identity, or undefined once the request has been refused (401, 429, 503). */
  private async authenticate(req: IncomingMessage, res: ServerResponse): Promise<CallerIdentity | undefined> {
    const authorization = req.headers.authorization;
    const { authenticator, oauth } = this.options;
    if (authorization === undefined && !authenticator.hasTokens && !oauth) return authenticator.authenticate(undefined);
    // With OAuth, a request without a token is a client discovering how to sign in, not a guess.
    if (!authorization && oauth) {
      this.refuse(res, 401, 'a bearer token is required: sign in with the authorization server the protected resource metadata names', { 'www-authenticate': oauth.challenge() });
      return undefined;
    }
    const address = req.socket.remoteAddress ?? 'unknown';
    const wait = this.authFailures.wait(address);
    if (wait > 0) {
      this.refuse(res, 429, `too many failed authentications; retry in ${wait}s`, { 'retry-after': String(wait) });
      return undefined;
    }
    try {
      if (!authorization) throw new AuthenticationError('a bearer token is required: send "Authorization: Bearer <token>"');
      const identity = await this.identify(authorization);
      this.authFailures.succeeded(address);
      return identity;
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      if (error instanceof TokenRefusal && error.status === 503) {
        this.refuse(res, 503, error.message, { 'retry-after': '10' });
        return undefined;
      }
      this.authFailures.failed(address);
      this.refuse(res, 401, error.message, { 'www-authenticate': oauth ? oauth.challenge(error instanceof TokenRefusal ? error : undefined) : 'Bearer' });
      return undefined;
    }
  }

  /** A static token's identity, else (with svc.mcp.oauth) an access token's. */
  private async identify(authorization: string): Promise<CallerIdentity> {
    try {
      return this.options.authenticator.authenticate(authorization);
    } catch (error) {
      if (!(error instanceof UnknownTokenError) || !this.options.oauth) throw error;
      return this.options.oauth.authenticate(bearerTokenOf(authorization));
    }
  }

  /**
   * For an OAuth caller whose permissions come from scopes, the tool it calls and the challenge
   * of the scope it lacks (MCP authorization, "Scope Challenge Handling"): the client can obtain
   * a token with it and retry. Other callers learn of a missing permission from the tool result.
   */
  private lackingScope(caller: CallerIdentity, message: unknown): { tool: string; permission: string; challenge: string } | undefined {
    const { oauth } = this.options;
    if (!oauth?.usesScopes || !caller.credential.startsWith(OAUTH_CREDENTIAL_PREFIX)) return undefined;
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
    const tool = method === 'tools/call' && typeof params?.name === 'string' ? this.options.registry.get(params.name) : undefined;
    if (!tool || caller.permissions.has(tool.permission)) return undefined;
    return { tool: tool.name, permission: tool.permission, challenge: oauth.insufficientScope(caller, tool.permission) };
  }

  private answerError(res: ServerResponse, status: number, id: string | number | null, code: number, message: string): void {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
  }

  /** One SDK server answering tools/list and tools/call, for a 2025 session or one 2026-07-28 request. */
  private newServer(sdk: McpSdk): Server {
    const server = new sdk.Server(
      { name: '@svc/register', version: this.options.version },
      { capabilities: { tools: { listChanged: true }, resources: {}, extensions: { [MCP_APP_EXTENSION]: {} } }, cacheHints: CACHE_HINTS },
    );
    server.setRequestHandler('tools/list', (_request, ctx) => ({ tools: this.listFor(contextOf(ctx)?.caller) }));
    // The MCP Apps view of get_service_health and get_incident_context (src/mcp/mcp-app.ts).
    server.setRequestHandler('resources/list', (_request, ctx) => ({ resources: appResources(contextOf(ctx)?.caller) }));
    server.setRequestHandler('resources/read', (request, ctx) => {
      try {
        return readAppResource(request.params.uri, contextOf(ctx)?.caller);
      } catch (error) {
        throw error instanceof AgentError ? new sdk.ProtocolError(INVALID_PARAMS, error.message) : error;
      }
    });
    server.setRequestHandler('tools/call', (request, ctx) => {
      const { name, arguments: args, _meta: meta } = request.params;
      const tool = this.options.registry.get(name);
      const context = contextOf(ctx);
      const call = {
        tool: name,
        known: tool !== undefined,
        requestId: ctx.mcpReq.id,
        protocolVersion: envelopeVersion(ctx) ?? context?.protocolVersion,
        sessionId: ctx.sessionId,
        meta,
        clientAddress: context?.clientAddress,
        clientPort: context?.clientPort,
      };
      return this.tracing.trace(call, async (record) => {
        if (!tool) throw new sdk.ProtocolError(INVALID_PARAMS, this.unknownToolMessage(name, context?.caller));
        return this.call(tool, args, meta, context, record);
      });
    });
    return server;
  }

  /** The 2026-07-28 handler: stateless, a server per request, told when the tool list changes. */
  private modernHandler(sdk: McpSdk): McpHttpHandler {
    this.modern ??= sdk.createMcpHandler(() => this.newServer(sdk), {
      legacy: 'reject',
      maxRequestBodySize: this.options.maxBodyBytes,
      onerror: (error) => reportError('tool server (2026-07-28)', error),
    });
    return this.modern;
  }

  private newSession(sdk: McpSdk, owner: string): McpSession {
    const server = this.newServer(sdk);
    const transport: WebStandardStreamableHTTPServerTransport = new sdk.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
        this.closeLeastRecentlyUsedOf(owner);
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    const session: McpSession = { server, transport, owner, lastUsed: this.now() };
    return session;
  }

  private get maxPerCredential(): number {
    return this.options.maxSessionsPerCredential ?? 10;
  }

  /** Counts the credential's open subscriptions/listen streams until `res` closes; false when it has its cap of them. */
  private admitStream(credential: string, res: ServerResponse): boolean {
    const open = this.streams.get(credential) ?? 0;
    if (open >= this.maxPerCredential) return false;
    this.streams.set(credential, open + 1);
    res.once('close', () => {
      const left = (this.streams.get(credential) ?? 1) - 1;
      if (left > 0) this.streams.set(credential, left);
      else this.streams.delete(credential);
    });
    return true;
  }

  /** Keeps each credential within its session cap: its least recently used sessions are closed. */
  private closeLeastRecentlyUsedOf(owner: string): void {
    const own = [...this.sessions.entries()].filter(([, s]) => s.owner === owner).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [id, session] of own.slice(0, Math.max(0, own.length - this.maxPerCredential))) {
      this.sessions.delete(id);
      this.closedSessions++;
      void session.transport.close().catch(() => undefined);
    }
  }

  /**
   * What an agent needs after calling a tool that does not exist: the name it sent, the closest
   * tool it may call, and the tools its role may call (the ones tools/list shows it).
   */
  private unknownToolMessage(name: string, caller: CallerIdentity | undefined): string {
    const callable = this.options.registry
      .list()
      .filter((tool) => caller?.permissions.has(tool.permission))
      .map((tool) => tool.name);
    const suggestion = didYouMean(name, callable);
    const whose = caller ? `role "${printable(caller.role, 64)}"` : 'this caller';
    return `unknown tool "${printable(name, 64)}"${suggestion ? `; did you mean "${suggestion}"?` : ''}; tools ${whose} may call: ${listSome(callable, MAX_TOOLS_NAMED)}`;
  }

  private listFor(caller: CallerIdentity | undefined): Tool[] {
    return this.options.registry
      .list()
      .filter((tool) => caller?.permissions.has(tool.permission))
      .map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: `${tool.description} (needs ${tool.permission})`,
        inputSchema: {
          type: 'object',
          properties: Object.fromEntries(Object.entries(tool.parameters).map(([name, p]) => [name, { type: 'string', description: p.description, ...(p.enum && { enum: [...p.enum] }) }])),
          required: [...tool.required],
          additionalProperties: false,
        },
        annotations: { title: tool.title, readOnlyHint: tool.annotations.readOnlyHint, destructiveHint: tool.annotations.destructiveHint },
        ...(appToolMeta(tool.name) && { _meta: appToolMeta(tool.name) }),
      }));
  }

  private async call(
    tool: ToolDefinition,
    rawArgs: Record<string, unknown> | undefined,
    meta: Record<string, unknown> | undefined,
    context: RequestContext | undefined,
    record: ToolCallRecord,
  ): Promise<CallToolResult> {
    // Last resort for every tool, the app's too: text beyond svc.mcp.max-output-bytes is cut, larger structured content left out.
    const maxBytes = maxOutputBytes(this.options.services);
    try {
      if (!context) throw new AgentError('no caller identity on this request');
      // `_meta` names the agent of this call and may lower further the role the headers left, never raise it back.
      const caller = this.options.authenticator.refine(context.caller, { agentName: declaredIn(meta, 'agentName'), role: declaredIn(meta, 'agentRole') });
      record.caller(caller);
      if (!caller.permissions.has(tool.permission)) {
        throw new AgentError(
          `insufficient permission: ${tool.name} needs ${tool.permission}; role "${caller.role}" of ${caller.agentName} grants ${[...caller.permissions].join(', ')}. Use a token whose role grants ${tool.permission}.`,
        );
      }
      const result = boundToolResult(await tool.handler(rawArgs, { caller, services: this.options.services }), maxBytes);
      return {
        content: [{ type: 'text', text: result.text }],
        ...(result.structured && { structuredContent: result.structured }),
        ...(result.isError && { isError: true }),
      };
    } catch (error) {
      // Agent-facing errors (bad arguments, refusals, a declared role above the credential's) are results the model reads.
      if (error instanceof AgentError) return errorResult(cutText(error.message, maxBytes));
      reportError(`tool ${tool.name}`, error);
      record.failed(error);
      return errorResult(cutText(`${tool.name} failed inside the service: ${error instanceof Error ? error.message : String(error)}`, maxBytes));
    }
  }
}

function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Who sent a request (the credential lowered by its headers' name and role) and from where. */
interface RequestContext {
  readonly caller: CallerIdentity;
  /** The `MCP-Protocol-Version` header, when sent. */
  readonly protocolVersion: string | undefined;
  readonly clientAddress: string | undefined;
  readonly clientPort: number | undefined;
}

/** The agent name or role a tool call's `_meta` declares: a string when sent. */
function declaredIn(meta: Record<string, unknown> | undefined, key: 'agentName' | 'agentRole'): string | undefined {
  const value = meta?.[key];
  if (value === undefined || typeof value === 'string') return value;
  throw new AgentError(`_meta.${key} must be a string (${key === 'agentName' ? "the agent's name" : "a role within the credential's"}); got ${jsonKind(value)}`);
}

/** The protocol version a 2026-07-28 request's `_meta` envelope names (the SDK's public types leave the envelope's keys out). */
function envelopeVersion(ctx: ServerContext): string | undefined {
  const version = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/protocolVersion'];
  return typeof version === 'string' ? version : undefined;
}

function contextOf(ctx: ServerContext): RequestContext | undefined {
  return ctx.http?.authInfo?.extra?.context as RequestContext | undefined;
}

/**
 * What the SDK's own schema finds wrong with a request it serves, in one line, or undefined (the
 * SDK would answer -32603 with the schema issues as a JSON dump).
 */
function invalidForSdk(sdk: McpSdk, message: unknown, types: Readonly<Record<string, RequestType>>): string | undefined {
  const method = (message as { method?: unknown } | null)?.method;
  const type = typeof method === 'string' && Object.hasOwn(types, method) ? types[method] : undefined;
  if (!type || (message as { id?: unknown }).id === undefined) return undefined;
  const checked = sdk.specTypeSchemas[type]['~standard'].validate(message);
  // A schema that throws (it should not, within MAX_NESTING) validates asynchronously: refused, its rejection handled.
  if (checked instanceof Promise) {
    checked.catch(() => undefined);
    return `${printable(method as string, 64)}: the request could not be checked against its schema`;
  }
  const issue = checked.issues?.[0];
  if (!issue) return undefined;
  const path = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
  return `${printable(method as string, 64)}: ${path || 'request'}: ${printable(issue.message.split('\n')[0]!, 200)}`;
}

type RequestType = 'InitializeRequest' | 'PingRequest' | 'ListToolsRequest' | 'CallToolRequest';

/** The spec type of each request the server serves to 2026-07-28 clients (the SDK answers the rest, server/discover included). */
const MODERN_REQUEST_TYPES: Readonly<Record<string, RequestType>> = { 'tools/list': 'ListToolsRequest', 'tools/call': 'CallToolRequest' };
/** ... and to 2025 clients, whose initialize and ping 2026-07-28 removed. */
const LEGACY_REQUEST_TYPES: Readonly<Record<string, RequestType>> = { ...MODERN_REQUEST_TYPES, initialize: 'InitializeRequest', ping: 'PingRequest' };

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
