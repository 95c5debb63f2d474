/**
 * The URL an OTLP exporter sends a signal to, resolved from the standard variables by the rules
 * the OTel JS 3.x exporters apply, so that a report names the endpoint that was really used:
 * - OTLP/HTTP: `OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT` as given, else `OTEL_EXPORTER_OTLP_ENDPOINT`
 *   plus `/v1/<signal>`, else `http://localhost:4318/v1/<signal>` (an unparsable URL is skipped);
 * - gRPC: the signal's endpoint, else the general one, else `http://localhost:4317`.
 * The result never carries credentials: user info, query and fragment are removed
 * (`OTEL_EXPORTER_OTLP_HEADERS` is never read here).
 */
import { getStringFromEnv } from '@opentelemetry/core';

export type OtlpSignal = 'TRACES' | 'LOGS';

const RESOURCE_PATH: Record<OtlpSignal, string> = { TRACES: 'v1/traces', LOGS: 'v1/logs' };

function parses(url: string): boolean {
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}

/** The URL without user info, query or fragment; text that does not parse is not printed. */
export function redactUrl(raw: string): string {
  const withScheme = /^\w{1,8}:\/\//.test(raw) ? raw : `https://${raw}`;
  try {
    const url = new URL(withScheme);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.toString();
  } catch {
    return '(an unparsable URL)';
  }
}

function httpUrl(signal: OtlpSignal): string {
  const specific = getStringFromEnv(`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`);
  if (specific !== undefined && parses(specific)) return new URL(specific).toString();
  const general = getStringFromEnv('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (general !== undefined && parses(general)) {
    const joined = `${general.endsWith('/') ? general : `${general}/`}${RESOURCE_PATH[signal]}`;
    if (parses(joined)) return joined;
  }
  return `http://localhost:4318/${RESOURCE_PATH[signal]}`;
}

/** The endpoint `protocol` (`grpc`, `http/json`, `http/protobuf`) sends `signal` to, safe to print. */
export function otlpEndpoint(signal: OtlpSignal, protocol: string): string {
  if (protocol === 'grpc') {
    return redactUrl(getStringFromEnv(`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`) ?? getStringFromEnv('OTEL_EXPORTER_OTLP_ENDPOINT') ?? 'http://localhost:4317');
  }
  return redactUrl(httpUrl(signal));
}
