/**
 * The OpenTelemetry NodeSDK as svc starts it: auto-instrumentations, the Resource with topology,
 * svc's span processor first and then the exporters the `OTEL_*` variables choose, and the log
 * pipeline that carries svc's events. `OTEL_SDK_DISABLED=true` leaves the SDK off as usual.
 */
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { defaultResource, type Resource } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { logRecordProcessorsFromEnv, spanProcessorsFromEnv } from './exporters-from-env.js';
import { nameFastifyRoutes } from './fastify-routes.js';
import type { TelemetryLoss } from './telemetry-loss.js';
import { installYoungContexts } from './young-contexts.js';

export interface TelemetryOptions {
  readonly resource: Resource;
  /** svc's own processors, run before the exporting ones so their attributes are exported. */
  readonly spanProcessors: readonly SpanProcessor[];
  /** Counts what the OTLP exporters fail to deliver. */
  readonly loss?: TelemetryLoss;
  /** Whether a local port is svc's own (the tool server): requests to it are not the app's and get no HTTP span. */
  readonly isOwnPort?: (port: number) => boolean;
}

export interface Telemetry {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

export function startTelemetry(options: TelemetryOptions): Telemetry {
  const spanProcessors = [...options.spanProcessors, ...spanProcessorsFromEnv(options.loss)];
  const logRecordProcessors = logRecordProcessorsFromEnv(options.loss);
  const isOwnPort = options.isOwnPort ?? (() => false);
  const sdk = new NodeSDK({
    resource: defaultResource().merge(options.resource),
    instrumentations: [
      getNodeAutoInstrumentations({
        // svc's own tool server is not one of the app's operations
        '@opentelemetry/instrumentation-http': { ignoreIncomingRequestHook: (request) => isOwnPort(request.socket?.localPort ?? -1) },
      }),
    ],
    spanProcessors,
    logRecordProcessors,
  });
  installYoungContexts();
  sdk.start();
  const stopFastifyRoutes = disabledInstrumentations().has('fastify') ? () => {} : nameFastifyRoutes();
  let shutdown: Promise<void> | undefined;
  return {
    forceFlush: async () => {
      await Promise.all([...spanProcessors, ...logRecordProcessors].map((p) => p.forceFlush()));
    },
    shutdown: () => {
      stopFastifyRoutes();
      return (shutdown ??= sdk.shutdown());
    },
  };
}

/** `OTEL_NODE_DISABLED_INSTRUMENTATIONS`, as auto-instrumentations-node reads it (`fastify` turns off svc's Fastify routes too). */
function disabledInstrumentations(): Set<string> {
  return new Set((process.env.OTEL_NODE_DISABLED_INSTRUMENTATIONS ?? '').split(',').map((name) => name.trim()));
}
