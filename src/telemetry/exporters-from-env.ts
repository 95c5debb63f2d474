/**
 * Span and log record processors for the exporters the standard `OTEL_*` variables choose
 * (`OTEL_TRACES_EXPORTER`, `OTEL_LOGS_EXPORTER`: otlp, console, none; `OTEL_EXPORTER_OTLP_*`;
 * `OTEL_BSP_*`, `OTEL_BLRP_*`). The NodeSDK does this only when it is given no processor, and svc
 * adds its own, so the same choice is made here.
 *
 * Logs default to `exporter-logs-otlp-http` (OTLP/HTTP JSON) when no logs protocol is set.
 *
 * Given a `TelemetryLoss`, each OTLP exporter is wrapped so its export results are counted, and
 * its processor reports the items it drops from a full queue (see telemetry-loss.ts).
 */
import { diag } from '@opentelemetry/api';
import { getNumberFromEnv, getStringFromEnv, getStringListFromEnv } from '@opentelemetry/core';
import { BatchLogRecordProcessor, ConsoleLogRecordExporter, type LogRecordExporter, type LogRecordProcessor, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { CountingExporter } from './counting-exporter.js';
import { loadPackage } from './load-package.js';
import { otlpEndpoint } from './otlp-endpoint.js';
import { queueDropMeterProvider } from './queue-drop-meter-provider.js';
import type { TelemetryLoss } from './telemetry-loss.js';

/** The OTLP exporter packages' suffix for an `OTEL_EXPORTER_OTLP_*PROTOCOL` value (http/protobuf for any other). */
export function otlpPackageSuffix(protocol: string): 'grpc' | 'http' | 'proto' {
  return protocol === 'grpc' ? 'grpc' : protocol === 'http/json' ? 'http' : 'proto';
}

/** The OTLP exporter of `signal` for `protocol`, loaded when first chosen (the gRPC one alone loads 20 ms of gRPC stack). */
function otlpExporter<Exporter>(signal: 'trace' | 'logs', protocol: string): Exporter {
  const exports = loadPackage(`@opentelemetry/exporter-${signal}-otlp-${otlpPackageSuffix(protocol)}`, import.meta.url);
  return new (exports[signal === 'trace' ? 'OTLPTraceExporter' : 'OTLPLogExporter'] as new () => Exporter)();
}

/** A positive number from `name`, else undefined (the SDK's default applies). */
export function positive(name: string): number | undefined {
  const value = getNumberFromEnv(name);
  return value !== undefined && value > 0 ? value : undefined;
}

function exporterNames(variable: string): string[] {
  const names = [...new Set(getStringListFromEnv(variable) ?? [])].filter((n) => n !== 'null');
  if (names.includes('none')) return [];
  return names.length > 0 ? names : ['otlp'];
}

function protocol(signal: 'TRACES' | 'LOGS'): string | undefined {
  return (getStringFromEnv(`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`) ?? getStringFromEnv('OTEL_EXPORTER_OTLP_PROTOCOL'))?.trim() || undefined;
}

export function spanProcessorsFromEnv(loss?: TelemetryLoss): SpanProcessor[] {
  const processors: SpanProcessor[] = [];
  for (const name of exporterNames('OTEL_TRACES_EXPORTER')) {
    if (name === 'console') {
      processors.push(new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() }));
      continue;
    }
    if (name !== 'otlp') {
      diag.warn(`svc: unsupported OTEL_TRACES_EXPORTER value "${name}"; supported: otlp, console, none`);
      continue;
    }
    const chosen = protocol('TRACES') ?? 'http/protobuf';
    const exporter = otlpExporter<SpanExporter>('trace', chosen);
    const tally = loss?.tally('traces', otlpEndpoint('TRACES', chosen));
    processors.push(
      new BatchSpanProcessor({
        exporter: tally ? new CountingExporter(exporter, tally) : exporter,
        selfObsMeterProvider: tally && queueDropMeterProvider((items) => tally.dropped(items)),
        maxQueueSize: positive('OTEL_BSP_MAX_QUEUE_SIZE'),
        scheduledDelayMillis: positive('OTEL_BSP_SCHEDULE_DELAY'),
        exportTimeoutMillis: positive('OTEL_BSP_EXPORT_TIMEOUT'),
        maxExportBatchSize: positive('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
      }),
    );
  }
  return processors;
}

export function logRecordProcessorsFromEnv(loss?: TelemetryLoss): LogRecordProcessor[] {
  const processors: LogRecordProcessor[] = [];
  for (const name of exporterNames('OTEL_LOGS_EXPORTER')) {
    if (name === 'console') {
      processors.push(new SimpleLogRecordProcessor({ exporter: new ConsoleLogRecordExporter() }));
      continue;
    }
    if (name !== 'otlp') {
      diag.warn(`svc: unsupported OTEL_LOGS_EXPORTER value "${name}"; supported: otlp, console, none`);
      continue;
    }
    const chosen = protocol('LOGS');
    const exporter = otlpExporter<LogRecordExporter>('logs', chosen ?? 'http/json');
    const tally = loss?.tally('logs', otlpEndpoint('LOGS', chosen ?? 'http/json'));
    processors.push(
      new BatchLogRecordProcessor({
        exporter: tally ? new CountingExporter(exporter, tally) : exporter,
        selfObsMeterProvider: tally && queueDropMeterProvider((items) => tally.dropped(items)),
        maxQueueSize: positive('OTEL_BLRP_MAX_QUEUE_SIZE'),
        scheduledDelayMillis: positive('OTEL_BLRP_SCHEDULE_DELAY'),
        exportTimeoutMillis: positive('OTEL_BLRP_EXPORT_TIMEOUT'),
        maxExportBatchSize: positive('OTEL_BLRP_MAX_EXPORT_BATCH_SIZE'),
      }),
    );
  }
  return processors;
}
