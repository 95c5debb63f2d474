/** Reading a request's body within a byte limit: the tool server's and the status page's. */
import type { IncomingMessage } from 'node:http';

/** An oversized body is drained up to this multiple of the limit, then the connection is cut. */
const DRAIN_FACTOR = 16;

/**
 * The body, or undefined when it exceeds `limit` bytes, declared or streamed. An oversized body
 * is read to its end and dropped, so the caller gets its 413 instead of a reset connection; one
 * beyond DRAIN_FACTOR times the limit is cut off.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers['content-length'] ?? 0) > limit;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit * DRAIN_FACTOR) {
        req.destroy();
        resolve(undefined);
        return;
      }
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
