/**
 * Failed attempts of the OTLP/HTTP exporters, seen as they happen.
 *
 * The OTLP/HTTP exporters of otlp-exporter-base 0.300 send through a retrying transport: a
 * refused, reset or unreachable connection, a request timeout and a 429, 502, 503 or 504 answer
 * are retried up to 5 times, the first retry 1 s later and each next one 1.5 times later (±20 %,
 * at most 5 s; a Retry-After header sets it), as long as it starts within
 * `OTEL_EXPORTER_OTLP_TIMEOUT` of the first attempt. Only the last attempt's result reaches the
 * export callback: for a refused connection, about 8 s after the first attempt at the default 10 s.
 *
 * Node's HTTP client publishes every request's error (`http.client.request.error`) and response
 * (`http.client.response.finish`) on built-in diagnostics channels, which see each attempt. A
 * request is matched to an exporter by its target: protocol, Host header and path without query,
 * as the exporter builds them from its URL. gRPC exporters do not retry, and do not use this client.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';

/** An exporter whose failed attempts are wanted: its endpoint URL and what to call. */
export interface AttemptWatcher {
  readonly endpoint: string;
  attemptFailed(error: unknown): void;
}

const REQUEST_ERROR = 'http.client.request.error';
const RESPONSE_FINISH = 'http.client.response.finish';

/** `http://collector:4318/v1/traces`: what a request to `url` is matched by; undefined for a URL that does not parse. */
export function endpointTarget(url: string): string | undefined {
  try {
    const { protocol, host, pathname } = new URL(url);
    return `${protocol}//${host}${pathname}`;
  } catch {
    return undefined;
  }
}

function requestTarget(request: ClientRequest): string {
  const query = request.path.indexOf('?');
  return `${request.protocol}//${request.getHeader('host')}${query < 0 ? request.path : request.path.slice(0, query)}`;
}

/** Calls each watcher's `attemptFailed` for every failed request to its endpoint, until the returned function is called. */
export function watchFailedAttempts(watchers: readonly AttemptWatcher[]): () => void {
  const byTarget = new Map<string, AttemptWatcher[]>();
  for (const watcher of watchers) {
    const target = endpointTarget(watcher.endpoint);
    if (target !== undefined) byTarget.set(target, [...(byTarget.get(target) ?? []), watcher]);
  }
  const failed = (request: ClientRequest, error: unknown): void => {
    for (const watcher of byTarget.get(requestTarget(request)) ?? []) watcher.attemptFailed(error);
  };
  const onError = (message: unknown): void => {
    const { request, error } = message as { request: ClientRequest; error: unknown };
    failed(request, error);
  };
  // 2xx is a delivery; the exporter treats every other status as a failure, retried or not.
  const onResponse = (message: unknown): void => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) failed(request, `HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`);
  };
  if (byTarget.size === 0) return () => {};
  subscribe(REQUEST_ERROR, onError);
  subscribe(RESPONSE_FINISH, onResponse);
  return () => {
    unsubscribe(REQUEST_ERROR, onError);
    unsubscribe(RESPONSE_FINISH, onResponse);
  };
}
