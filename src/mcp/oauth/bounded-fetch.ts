/**
 * svc's own requests to the identity provider: bounded in time and in the bytes read, untraced
 * (they are not the app's dependency calls), and their failures told as one line naming the URL.
 */
import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { printable } from '../../shared/printable.js';

export const FETCH_TIMEOUT_MS = 5_000;

/** A document the identity provider sent that svc cannot use: the reason, without secrets. */
export class IdentityProviderError extends Error {}

/** The JSON object at `url` (a GET, or the given POST), at most `maxBytes` long. */
export async function fetchJsonObject(url: string, maxBytes: number, init: RequestInit = {}): Promise<Record<string, unknown>> {
  const shown = printable(url, 200);
  const response = await context
    .with(suppressTracing(context.active()), () => fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/json', ...init.headers } }))
    .catch((error: unknown) => {
      throw new IdentityProviderError(`${shown} did not answer: ${error instanceof Error ? error.message : String(error)}`);
    });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new IdentityProviderError(`${shown} answered HTTP ${response.status}`);
  }
  const text = await readAtMost(response, maxBytes).catch((error: unknown) => {
    throw new IdentityProviderError(`${shown} broke off its answer: ${error instanceof Error ? error.message : String(error)}`);
  });
  if (text === undefined) throw new IdentityProviderError(`${shown} sent more than ${maxBytes} bytes; at most ${maxBytes} are read`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new IdentityProviderError(`${shown} did not send JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new IdentityProviderError(`${shown} did not send a JSON object`);
  return value as Record<string, unknown>;
}

async function readAtMost(response: Response, maxBytes: number): Promise<string | undefined> {
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.length;
    // Leaving the loop cancels the body.
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
