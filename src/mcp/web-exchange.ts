/**
 * The bridge between node:http and the web-standard `Request` / `Response` the MCP SDK's handlers
 * take and give (the SDK's own Node adapter brings in Hono, about 6 MB more for the first agent).
 * The request's body is read, bounded and parsed by the tool server before, and handed to the
 * SDK beside the request. A response is sent whole, with its length (one write, no chunked
 * encoding), unless it is an event stream (the SDK answers JSON or SSE), which is streamed back
 * with backpressure and cancelled when the client goes away (a 2025 client's SSE stream, a
 * `subscriptions/listen` stream). A body that fails before it is whole answers 500.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The request line and headers as a web Request (no body), aborted when the client disconnects. */
export function webRequest(req: IncomingMessage, res: ServerResponse): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const each of value) headers.append(name, each);
    else headers.set(name, value);
  }
  const aborted = new AbortController();
  // Only a response cut short: aborting every finished one costs each call a DOMException and its stack trace.
  res.once('close', () => {
    if (!res.writableFinished) aborted.abort();
  });
  // Host was checked against the bound address before (DNS rebinding protection).
  return new ExchangeRequest(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers }, aborted.signal);
}

/**
 * A Request (without a body: the tool server reads it) whose `signal` is the exchange's own, its
 * clones' too. Given a signal, undici's Request follows it through a FinalizationRegistry, whose
 * entries the young generation's collections keep alive: every call's objects then outlived them,
 * each collection copied megabytes and took milliseconds (docs/mcp.md, "Cost").
 */
class ExchangeRequest extends Request {
  readonly #signal: AbortSignal;

  constructor(url: string, init: RequestInit, signal: AbortSignal) {
    super(url, init);
    this.#signal = signal;
  }

  override get signal(): AbortSignal {
    return this.#signal;
  }

  override clone(): ExchangeRequest {
    return new ExchangeRequest(this.url, { method: this.method, headers: this.headers }, this.#signal);
  }
}

/** Writes a web Response to `res`: status, headers, then its body, whole or as it comes (an event stream). */
export async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (!response.body) {
    res.writeHead(response.status, headers).end();
    return;
  }
  if (!headers['content-type']?.startsWith('text/event-stream')) {
    const body = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, { ...headers, 'content-length': String(body.length) }).end(body);
    return;
  }
  res.writeHead(response.status, headers);
  // An event stream opens at once, before its first event.
  res.flushHeaders();
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value))
        await new Promise<void>((resolve) => {
          res.once('drain', resolve);
          res.once('close', resolve);
        });
    }
  } catch {
    // The stream was cancelled (the client went away) or failed: end what was sent.
  } finally {
    res.off('close', cancel);
    res.end();
  }
}
