/**
 * The OpenTelemetry SDK as svc starts it, as OpenTelemetry's NodeSDK would from the same `OTEL_*`
 * variables (sdk-from-env.ts says why not through it): the context manager, propagators, the
 * Resource with topology and detected attributes, a MeterProvider when metrics are exported,
 * svc's span processors first and then the exporting ones, the log pipeline that carries svc's
 * events, and the chosen instrumentations (instrumentation-set.ts). `OTEL_SDK_DISABLED=true`
 * leaves the SDK off as usual.
 */
import { context, DiagConsoleLogger, diag, logs, type MeterProvider, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { diagLogLevelFromString, getBooleanFromEnv, getStringFromEnv } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { defaultResource, detectResources, type Resource } from '@opentelemetry/resources';
import { LoggerProvider } from '@opentelemetry/sdk-logs';
import { type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { logRecordProcessorsFromEnv, spanProcessorsFromEnv } from './exporters-from-env.js';
import { nameFastifyRoutes } from './fastify-routes.js';
import type { InstrumentationSet } from './instrumentation-set.js';
import { logRecordLimitsFromEnv, meterProviderFor, metricReadersFromEnv, propagatorFromEnv, resourceDetectorsFromEnv, samplerFromEnv, spanLimitsFromEnv } from './sdk-from-env.js';
import type { TelemetryLoss } from './telemetry-loss.js';
import { installYoungContexts } from './young-contexts.js';

export interface TelemetryOptions {
  readonly resource: Resource;
  /** svc's own processors, run before the exporting ones so their attributes are exported. */
  readonly spanProcessors: readonly SpanProcessor[];
  /** Counts what the OTLP exporters fail to deliver. */
  readonly loss?: TelemetryLoss;
  readonly instrumentations: InstrumentationSet;
}

export interface Telemetry {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

const DISABLED: Telemetry = { forceFlush: async () => {}, shutdown: async () => {} };

export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (getBooleanFromEnv('OTEL_SDK_DISABLED')) return DISABLED;
  const logLevel = getStringFromEnv('OTEL_LOG_LEVEL');
  if (logLevel !== undefined) diag.setLogger(new DiagConsoleLogger(), { logLevel: diagLogLevelFromString(logLevel) });
  installYoungContexts();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const propagator = propagatorFromEnv();
  if (propagator) propagation.setGlobalPropagator(propagator);

  const resource = defaultResource()
    .merge(options.resource)
    .merge(detectResources({ detectors: resourceDetectorsFromEnv() }));
  const readers = metricReadersFromEnv();
  const meterProvider = readers.length > 0 ? meterProviderFor(readers, resource) : undefined;
  if (meterProvider) metrics.setGlobalMeterProvider(meterProvider as unknown as MeterProvider);

  const spanProcessors = [...options.spanProcessors, ...spanProcessorsFromEnv(options.loss)];
  const tracerProvider = new TracerProvider({ sampler: samplerFromEnv(), spanLimits: spanLimitsFromEnv(), resource, spanProcessors });
  trace.setGlobalTracerProvider(tracerProvider);
  const logRecordProcessors = logRecordProcessorsFromEnv(options.loss);
  const loggerProvider = logRecordProcessors.length > 0 ? new LoggerProvider({ logRecordLimits: logRecordLimitsFromEnv(), resource, processors: logRecordProcessors }) : undefined;
  if (loggerProvider) logs.setGlobalLoggerProvider(loggerProvider);

  registerInstrumentations({ instrumentations: options.instrumentations.atStart });
  options.instrumentations.watch((instrumentation) => registerInstrumentations({ instrumentations: [instrumentation] }));
  const stopFastifyRoutes = options.instrumentations.namesFastifyRoutes ? nameFastifyRoutes() : () => {};
  let shutdown: Promise<void> | undefined;
  return {
    forceFlush: async () => {
      await Promise.all([...spanProcessors, ...logRecordProcessors].map((p) => p.forceFlush()));
    },
    shutdown: () => {
      stopFastifyRoutes();
      shutdown ??= Promise.all([tracerProvider.shutdown(), loggerProvider?.shutdown(), meterProvider?.shutdown()]).then(() => undefined);
      return shutdown;
    },
  };
}
