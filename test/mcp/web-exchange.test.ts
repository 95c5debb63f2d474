/** The bridge's web Request is aborted when the client goes away before its response is complete, and only then. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { webRequest } from '../../src/mcp/web-exchange.js';

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
});
