/**
 * A hostile sender against the listener over real HTTP on 127.0.0.1: whatever it sends is
 * answered with a clear 4xx (or 503 when busy) fast, nothing of it is kept, and the listener
 * keeps serving. Each test here failed before its fix in src/frontend/, except the preflight guard.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_BUFFERED_BODIES } from '../../src/frontend/frontend-listener.js';
import { errorOf, otlpJson, post, SHOP, startListener, stopListeners } from './hostile-support.js';

afterEach(stopListeners);

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Resolves with what the server sent once it closes the socket. */
function closed(socket: Socket): Promise<string> {
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return new Promise((resolve) => socket.on('close', () => resolve(text)));
}

describe('rate limit evasion', () => {
  it('counts an allowed origin in any letter case as one origin', async () => {
    const { url } = await startListener({ rateLimitPerMinute: 3 });
    const statuses: number[] = [];
    // Origins are compared without case, so every spelling is allowed: each must draw on one bucket.
    for (const origin of [SHOP, SHOP.toUpperCase(), 'Http://Shop.Example.Com:8080', 'hTTp://sHOP.example.com:8080', 'HTTP://shop.EXAMPLE.com:8080'])
      statuses.push((await post(url, otlpJson([{}]), { origin })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});

describe('slow senders', () => {
  it('closes a connection that trickles its headers once the headers timeout passes, not 30 s later', async () => {
    const { url } = await startListener({ headersTimeoutMs: 500, requestTimeoutMs: 1000 });
    const socket = await open(url);
    const started = Date.now();
    const done = closed(socket);
    socket.write('POST /v1/traces HTTP/1.1\r\nHost: x\r\n');
    // One header byte every 100 ms: each is new data, none finishes the headers.
    const trickle = setInterval(() => socket.writable && socket.write('X'), 100);
    const answer = await done;
    clearInterval(trickle);
    const tookMs = Date.now() - started;
    console.log(`hostile listener: trickled headers closed after ${tookMs} ms (headers timeout 500 ms)`);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(tookMs).toBeLessThan(2500);
  });

  it('ends a request whose body trickles past the request timeout, and releases what it held', async () => {
    const { url, listener } = await startListener({ headersTimeoutMs: 500, requestTimeoutMs: 1000 });
    const socket = await open(url);
    const started = Date.now();
    const done = closed(socket);
    socket.write('POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"resourceSpans":[');
    const trickle = setInterval(() => socket.writable && socket.write(' '), 100);
    await expect.poll(() => listener.bufferedBytes).toBeGreaterThan(0);
    await done;
    clearInterval(trickle);
    expect(Date.now() - started).toBeLessThan(3500);
    await expect.poll(() => listener.bufferedBytes).toBe(0);
  });
});

describe('many senders at once', () => {
  it('holds at most MAX_BUFFERED_BODIES bodies however many connections send one, answering the rest 503', async () => {
    const maxBodyBytes = 64 * 1024;
    const { url, listener } = await startListener({ maxBodyBytes });
    const sockets: Socket[] = [];
    // 40 connections each send all but the last byte of a full-size body, and stall.
    for (let i = 0; i < 40; i++) {
      const socket = await open(url);
      socket.on('data', () => {});
      socket.on('error', () => {});
      socket.write(`POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${maxBodyBytes}\r\n\r\n`);
      socket.write(Buffer.alloc(maxBodyBytes - 1, 0x20));
      sockets.push(socket);
    }
    await expect.poll(() => listener.refused.get(503) ?? 0).toBeGreaterThanOrEqual(40 - MAX_BUFFERED_BODIES);
    console.log(`hostile listener: 40 stalled full bodies; held ${listener.bufferedBytes} bytes (budget ${MAX_BUFFERED_BODIES * maxBodyBytes})`);
    expect(listener.bufferedBytes).toBeLessThanOrEqual(MAX_BUFFERED_BODIES * maxBodyBytes);
    for (const socket of sockets) socket.destroy();
    await expect.poll(() => listener.bufferedBytes).toBe(0);
    expect((await post(url, otlpJson([{}]), { origin: SHOP })).status).toBe(200);
  });

  it('says why it is busy, with Retry-After', async () => {
    const maxBodyBytes = 1024;
    const { url, listener } = await startListener({ maxBodyBytes });
    const sockets: Socket[] = [];
    for (let i = 0; i < MAX_BUFFERED_BODIES; i++) {
      const socket = await open(url);
      socket.on('error', () => {});
      socket.write(`POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${maxBodyBytes}\r\n\r\n${' '.repeat(maxBodyBytes - 1)}`);
      sockets.push(socket);
    }
    await expect.poll(() => listener.bufferedBytes).toBe(MAX_BUFFERED_BODIES * (maxBodyBytes - 1));
    const busy = await post(url, ' '.repeat(100), { origin: SHOP });
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(await errorOf(busy)).toBe(`busy: request bodies being read already hold ${MAX_BUFFERED_BODIES * maxBodyBytes} bytes (16 x svc.frontend.max-body-bytes); retry in 1s`);
    for (const socket of sockets) socket.destroy();
    await expect.poll(() => listener.bufferedBytes).toBe(0);
  });
});

describe('CORS preflight abuse', () => {
  // Node closes a connection whose request body was not read when the answer ends; a guard.
  it('answers a preflight that carries a body and closes, rather than reading the body', async () => {
    const { url } = await startListener();
    const socket = await open(url);
    const done = closed(socket);
    socket.write(`OPTIONS /v1/traces HTTP/1.1\r\nHost: x\r\nOrigin: ${SHOP}\r\nTransfer-Encoding: chunked\r\n\r\n10000\r\n`);
    // Keeps sending; the answer must not wait for the end.
    const flood = setInterval(() => socket.writable && socket.write(Buffer.alloc(4096, 0x20)), 5);
    const answer = await done;
    clearInterval(flood);
    expect(answer).toMatch(/^HTTP\/1\.1 204/);
    expect(answer.toLowerCase()).toContain('connection: close');
  });
});
