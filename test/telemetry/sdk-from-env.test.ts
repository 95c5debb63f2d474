/**
 * The OTEL_* variables svc reads as OpenTelemetry's NodeSDK reads them, with what they name
 * loaded only when named (src/telemetry/sdk-from-env.ts).
 */
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { ParentBasedSampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { metricReadersFromEnv, propagatorFromEnv, resourceDetectorsFromEnv, samplerFromEnv, spanLimitsFromEnv } from '../../src/telemetry/sdk-from-env.js';

const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

/** The headers `propagator` writes for a sampled span context. */
function injected(propagator: ReturnType<typeof propagatorFromEnv>): string[] {
  const headers: Record<string, string> = {};
  const context = trace.setSpanContext(ROOT_CONTEXT, { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 });
  propagator?.inject(context, headers, { set: (carrier, key, value) => (carrier[key] = value) });
  return Object.keys(headers).sort();
}

describe('OTEL_* variables as the NodeSDK reads them', () => {
  it('propagators: tracecontext and baggage by default, b3 and b3multi when named, none for none', () => {
    delete process.env.OTEL_PROPAGATORS;
    expect(injected(propagatorFromEnv())).toEqual(['traceparent']);
    process.env.OTEL_PROPAGATORS = 'b3';
    expect(injected(propagatorFromEnv())).toEqual(['b3']);
    process.env.OTEL_PROPAGATORS = 'b3multi,tracecontext';
    expect(injected(propagatorFromEnv())).toEqual(['traceparent', 'x-b3-sampled', 'x-b3-spanid', 'x-b3-traceid']);
    process.env.OTEL_PROPAGATORS = 'none';
    expect(propagatorFromEnv()).toBeUndefined();
  });

  it('sampler: the SDK default when unset, a parent-based ratio when named', () => {
    delete process.env.OTEL_TRACES_SAMPLER;
    expect(samplerFromEnv()).toBeUndefined();
    process.env.OTEL_TRACES_SAMPLER = 'parentbased_traceidratio';
    process.env.OTEL_TRACES_SAMPLER_ARG = '0.25';
    const sampler = samplerFromEnv();
    expect(sampler).toBeInstanceOf(ParentBasedSampler);
    expect(sampler?.toString()).toContain(new TraceIdRatioBasedSampler(0.25).toString());
  });

  it('span limits from the specific variable, else the general one', () => {
    process.env.OTEL_ATTRIBUTE_COUNT_LIMIT = '64';
    process.env.OTEL_SPAN_EVENT_COUNT_LIMIT = '16';
    expect(spanLimitsFromEnv()).toMatchObject({ attributeCountLimit: 64, eventCountLimit: 16 });
    process.env.OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT = '32';
    expect(spanLimitsFromEnv().attributeCountLimit).toBe(32);
  });

  it('resource detectors: env, process and host when unset; the named ones; none', () => {
    delete process.env.OTEL_NODE_RESOURCE_DETECTORS;
    expect(resourceDetectorsFromEnv()).toHaveLength(3);
    process.env.OTEL_NODE_RESOURCE_DETECTORS = 'env,os';
    expect(resourceDetectorsFromEnv()).toHaveLength(2);
    process.env.OTEL_NODE_RESOURCE_DETECTORS = 'none';
    expect(resourceDetectorsFromEnv()).toEqual([]);
  });

  it('metrics: an OTLP reader by default, none for none, a console reader when named', () => {
    delete process.env.OTEL_METRICS_EXPORTER;
    const [reader] = metricReadersFromEnv() as { constructor: { name: string } }[];
    expect(reader?.constructor.name).toBe('PeriodicExportingMetricReader');
    process.env.OTEL_METRICS_EXPORTER = 'none';
    expect(metricReadersFromEnv()).toEqual([]);
    process.env.OTEL_METRICS_EXPORTER = 'console,otlp';
    expect(metricReadersFromEnv()).toHaveLength(2);
  });
});
