/**
 * The `OTEL_*` variables OpenTelemetry's NodeSDK reads besides the exporters (exporters-from-env.ts):
 * sampler, span and log record limits, propagators, resource detectors and metric readers, read
 * as the NodeSDK reads them. svc sets the SDK up itself instead of through the NodeSDK because the
 * NodeSDK loads every exporter, propagator and metrics package it could use (the gRPC stack,
 * Prometheus, Zipkin, YAML configuration): 15-30 MB and 100-200 ms of start-up the app never
 * uses. Here what a variable names is loaded when it names it, from the NodeSDK's own
 * dependencies, so the versions are the ones it would use.
 */
import { diag, type TextMapPropagator } from '@opentelemetry/api';
import { CompositePropagator, getNumberFromEnv, getStringFromEnv, getStringListFromEnv, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { envDetector, hostDetector, osDetector, processDetector, type ResourceDetector, serviceInstanceIdDetector } from '@opentelemetry/resources';
import type { LogRecordLimits } from '@opentelemetry/sdk-logs';
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, type Sampler, type SpanLimits, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { otlpPackageSuffix, positive } from './exporters-from-env.js';
import { loadPackage } from './load-package.js';

// biome-ignore lint/suspicious/noExplicitAny: the packages are loaded when named, their types are not imported
const requireFromSdk = (pkg: string): any => loadPackage(pkg, '@opentelemetry/sdk-node');

function ratioFromEnv(): number {
  const ratio = getNumberFromEnv('OTEL_TRACES_SAMPLER_ARG');
  if (ratio === undefined || ratio < 0 || ratio > 1) {
    diag.error(`OTEL_TRACES_SAMPLER_ARG=${ratio ?? ''} is not a ratio in [0, 1]; using 1`);
    return 1;
  }
  return ratio;
}

/** `OTEL_TRACES_SAMPLER`; undefined for the SDK's default (parent-based, always on). */
export function samplerFromEnv(): Sampler | undefined {
  const name = getStringFromEnv('OTEL_TRACES_SAMPLER');
  switch (name) {
    case undefined:
      return undefined;
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratioFromEnv());
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratioFromEnv()) });
    default:
      diag.error(`unknown OTEL_TRACES_SAMPLER value "${name}", using the default`);
      return undefined;
  }
}

export function spanLimitsFromEnv(): SpanLimits {
  return {
    attributeCountLimit: getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT') ?? getNumberFromEnv('OTEL_ATTRIBUTE_COUNT_LIMIT'),
    attributeValueLengthLimit: getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT') ?? getNumberFromEnv('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT'),
    eventCountLimit: getNumberFromEnv('OTEL_SPAN_EVENT_COUNT_LIMIT'),
    linkCountLimit: getNumberFromEnv('OTEL_SPAN_LINK_COUNT_LIMIT'),
    attributePerEventCountLimit: getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT'),
    attributePerLinkCountLimit: getNumberFromEnv('OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT'),
  };
}

export function logRecordLimitsFromEnv(): LogRecordLimits {
  return {
    attributeCountLimit: positive('OTEL_LOGRECORD_ATTRIBUTE_COUNT_LIMIT') ?? positive('OTEL_ATTRIBUTE_COUNT_LIMIT'),
    attributeValueLengthLimit: positive('OTEL_LOGRECORD_ATTRIBUTE_VALUE_LENGTH_LIMIT') ?? positive('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT'),
  };
}

/** `OTEL_PROPAGATORS` (default tracecontext,baggage); undefined for `none`. */
export function propagatorFromEnv(): TextMapPropagator | undefined {
  const names = [...new Set(getStringListFromEnv('OTEL_PROPAGATORS') ?? ['tracecontext', 'baggage'])];
  if (names.includes('none')) return undefined;
  const propagators = names.flatMap((name): TextMapPropagator[] => {
    if (name === 'tracecontext') return [new W3CTraceContextPropagator()];
    if (name === 'baggage') return [new W3CBaggagePropagator()];
    if (name === 'b3' || name === 'b3multi') {
      const { B3Propagator, B3InjectEncoding } = requireFromSdk('@opentelemetry/propagator-b3');
      return [new B3Propagator(name === 'b3multi' ? { injectEncoding: B3InjectEncoding.MULTI_HEADER } : {})];
    }
    diag.warn(`propagator "${name}" in OTEL_PROPAGATORS is unavailable; available: tracecontext, baggage, b3, b3multi, none`);
    return [];
  });
  if (propagators.length === 0) return undefined;
  return propagators.length === 1 ? propagators[0] : new CompositePropagator({ propagators });
}

const DETECTORS: Record<string, ResourceDetector> = { env: envDetector, host: hostDetector, os: osDetector, process: processDetector, serviceinstance: serviceInstanceIdDetector };

/** `OTEL_NODE_RESOURCE_DETECTORS`; unset, env, process and host, as the NodeSDK. */
export function resourceDetectorsFromEnv(): ResourceDetector[] {
  const names = getStringListFromEnv('OTEL_NODE_RESOURCE_DETECTORS');
  if (!names) return [envDetector, processDetector, hostDetector];
  if (names.includes('all')) return Object.values(DETECTORS);
  if (names.includes('none')) return [];
  return names.flatMap((name) => {
    const detector = DETECTORS[name];
    if (!detector) diag.warn(`resource detector "${name}" in OTEL_NODE_RESOURCE_DETECTORS is unavailable; available: ${Object.keys(DETECTORS).join(', ')}, all, none`);
    return detector ? [detector] : [];
  });
}

function metricExporterFromEnv(): unknown {
  const protocol = (getStringFromEnv('OTEL_EXPORTER_OTLP_METRICS_PROTOCOL') ?? getStringFromEnv('OTEL_EXPORTER_OTLP_PROTOCOL'))?.trim() || 'http/protobuf';
  return new (requireFromSdk(`@opentelemetry/exporter-metrics-otlp-${otlpPackageSuffix(protocol)}`).OTLPMetricExporter)();
}

/** `OTEL_METRICS_EXPORTER` (default otlp, as the NodeSDK): the metric readers, or none. */
export function metricReadersFromEnv(): unknown[] {
  const names = [...new Set(getStringListFromEnv('OTEL_METRICS_EXPORTER') ?? ['otlp'])];
  if (names.includes('none')) return [];
  const metrics = requireFromSdk('@opentelemetry/sdk-metrics');
  const periodic = (exporter: unknown): unknown => {
    const exportIntervalMillis = positive('OTEL_METRIC_EXPORT_INTERVAL') ?? 60_000;
    const exportTimeoutMillis = Math.min(positive('OTEL_METRIC_EXPORT_TIMEOUT') ?? 30_000, exportIntervalMillis);
    return new metrics.PeriodicExportingMetricReader({ exporter, exportIntervalMillis, exportTimeoutMillis });
  };
  return names.flatMap((name) => {
    if (name === 'otlp') return [periodic(metricExporterFromEnv())];
    if (name === 'console') return [periodic(new metrics.ConsoleMetricExporter())];
    if (name === 'prometheus') {
      const { PrometheusExporter } = requireFromSdk('@opentelemetry/exporter-prometheus');
      return [new PrometheusExporter({ host: getStringFromEnv('OTEL_EXPORTER_PROMETHEUS_HOST'), port: getNumberFromEnv('OTEL_EXPORTER_PROMETHEUS_PORT') })];
    }
    diag.warn(`unsupported OTEL_METRICS_EXPORTER value "${name}"; supported: otlp, console, prometheus, none`);
    return [];
  });
}

/** The MeterProvider for `readers`, from the NodeSDK's own sdk-metrics. */
export function meterProviderFor(readers: unknown[], resource: unknown): { shutdown(): Promise<void> } {
  const { MeterProvider } = requireFromSdk('@opentelemetry/sdk-metrics');
  return new MeterProvider({ resource, readers });
}
