/**
 * The HTTP servers svc opens in the app's process (the MCP tool server, the browser telemetry
 * listener): connections cost the app file descriptors, so they are bounded in number, and one
 * that sends no request (or no whole request) in time is closed, whoever opens it. Node checks
 * those timeouts every 30 s by default; here at least every second, so a trickled request ends
 * when the timeout says. The server and its connections never keep the process alive: the app
 * decides when it ends. A handler's failure answers 500 and is reported; nothing reaches the host.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { reportError } from './report-error.js';

const TIMEOUT_CHECK_MS = 1000;

export interface BoundedHttpServerOptions {
  readonly host: string;
  readonly port: number;
  /** The configuration key of the port, named when it cannot be bound (`svc.mcp.port`). */
  readonly portKey: string;
  /** What a port that cannot be bound means for the user (`the tool server is not running`). */
  readonly consequence: string;
  /** Names the server in reported errors (`tool server`). */
  readonly name: string;
  readonly maxConnections: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  /** The error a port that cannot be bound is thrown as. */
  readonly bindError: (message: string) => Error;
}

export async function startBoundedHttpServer(options: BoundedHttpServerOptions, handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<{ server: Server; port: number }> {
  const { headersTimeoutMs, requestTimeoutMs } = options;
  const connectionsCheckingInterval = Math.min(TIMEOUT_CHECK_MS, Math.ceil(headersTimeoutMs / 4));
  const server = createServer({ headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs, connectionsCheckingInterval }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      reportError(`${options.name} request`, error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'internal error' }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'is taken by another process' : error.code === 'EACCES' ? 'needs privileges' : `cannot be bound (${error.code ?? error.message})`;
      reject(options.bindError(`${options.portKey} ${options.port} on ${options.host} ${why}; ${options.consequence} (set ${options.portKey} to a free port, or 0 for any)`));
    });
    server.listen(options.port, options.host, () => resolve());
  });
  server.on('error', (error) => reportError(options.name, error));
  server.unref();
  server.maxConnections = options.maxConnections;
  server.on('connection', (socket) => socket.unref());
  return { server, port: (server.address() as AddressInfo).port };
}
