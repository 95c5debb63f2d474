/**
 * The bridge between node:http and web Request/Response: its Request is aborted when the client
 * goes away before its response is complete, and only then; a JSON response is written whole with
 * its length, an event stream as it comes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { webRequest, writeResponse } from '../../src/mcp/web-exchange.js';

let server: http.Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server whose handler makes a web Request of each request and answers with `answer`; resolves with the Requests and their close. */
async function serve(answer: (res: http.ServerResponse) => void) {
  const requests: { request: Request; closed: Promise<void> }[] = [];
  server = http.createServer((req, res) => {
    const request = webRequest(req, res);
    requests.push({ request, closed: new Promise((resolve) => res.once('close', () => setImmediate(resolve))) });
    answer(res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, requests };
}

describe('webRequest', () => {
  it('is not aborted when its response was sent in full', async () => {
    const { port, requests } = await serve((res) => res.end('ok'));
    const response = await fetch(`http://127.0.0.1:${port}/mcp`);
    expect(await response.text()).toBe('ok');
    await requests[0]!.closed;
    expect(requests[0]!.request.signal.aborted).toBe(false);
  });

  it('is aborted when the client disconnects before the response ends', async () => {
    const { port, requests } = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
    });
    const aborted = new AbortController();
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, { signal: aborted.signal });
    await response.body!.getReader().read();
    aborted.abort();
    await requests[0]!.closed;
    expect(requests[0]!.request.signal.aborted).toBe(true);
  });

  it('gives its clones its method, URL and headers, and its signal: they abort with it', async () => {
    let clone: Request | undefined;
    const { port, requests } = await serve((res) => {
      clone = requests[0]!.request.clone();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
    });
    const aborted = new AbortController();
    const response = await fetch(`http://127.0.0.1:${port}/mcp?x=1`, { method: 'POST', headers: { 'x-agent-name': 'a' }, body: '{}', signal: aborted.signal });
    await response.body!.getReader().read();
    expect(clone).toMatchObject({ method: 'POST', url: `http://127.0.0.1:${port}/mcp?x=1` });
    expect(clone!.headers.get('x-agent-name')).toBe('a');
    expect(clone!.signal.aborted).toBe(false);
    aborted.abort();
    await requests[0]!.closed;
    expect(clone!.signal.aborted).toBe(true);
  });
});

describe('writeResponse', () => {
  /** The headers and body a plain node:http client receives from a server answering with `response`. */
  async function rawAnswer(response: () => Response): Promise<{ status: number | undefined; headers: http.IncomingHttpHeaders; body: string }> {
    const { port } = await serve((res) => void writeResponse(res, response()));
    return new Promise((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${port}/mcp`, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
        })
        .on('error', reject);
    });
  }

  it('sends a JSON message whole, with its length and no chunked encoding', async () => {
    const message = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'é'.repeat(5000) } });
    const { headers, body } = await rawAnswer(() => new Response(message, { status: 200, headers: { 'content-type': 'application/json', 'x-extra': 'kept' } }));
    expect(body).toBe(message);
    expect(headers['content-length']).toBe(String(Buffer.byteLength(message)));
    expect(headers['transfer-encoding']).toBeUndefined();
    expect(headers['x-extra']).toBe('kept');
  });

  it('answers a response without a body with its status alone; a body that fails before it is whole rejects, so the server answers 500', async () => {
    const accepted = await rawAnswer(() => new Response(null, { status: 202 }));
    expect(accepted.status).toBe(202);
    expect(accepted.body).toBe('');
    const failing = new ReadableStream<Uint8Array>({ pull: (controller) => controller.error(new Error('the SDK failed')) });
    const { port } = await serve((res) =>
      writeResponse(res, new Response(failing, { headers: { 'content-type': 'application/json' } })).catch(() => {
        res.writeHead(500).end();
      }),
    );
    expect((await fetch(`http://127.0.0.1:${port}/mcp`)).status).toBe(500);
  });

  it('streams an event stream: its first event arrives while the stream is still open', async () => {
    let push: ((text: string) => void) | undefined;
    const stream = new ReadableStream<Uint8Array>({ start: (controller) => void (push = (text) => controller.enqueue(new TextEncoder().encode(text))) });
    const { port } = await serve((res) => void writeResponse(res, new Response(stream, { headers: { 'content-type': 'text/event-stream' } })));
    const aborted = new AbortController();
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, { signal: aborted.signal });
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const reader = response.body!.getReader();
    push!('data: first\n\n');
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    aborted.abort();
  });
});
