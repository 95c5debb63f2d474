/**
 * A `MeterProvider` for a batch processor's self-observability option (`selfObsMeterProvider`,
 * marked experimental in sdk-trace and sdk-logs 3.x) that only listens for items dropped because
 * the queue was full: the processors add them to `otel.sdk.processor.{span,log}.processed` with
 * `error.type=queue_full`. Every other instrument is a no-op. The processor calls the counter once
 * per finished batch and once per dropped item, so nothing is added per queued span.
 */
import { type Attributes, type Counter, createNoopMeter, type Meter, type MeterProvider } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';

const PROCESSED = /^otel\.sdk\.processor\.(span|log)\.processed$/;
const QUEUE_FULL = 'queue_full';

export function queueDropMeterProvider(onDropped: (items: number) => void): MeterProvider {
  const noop = createNoopMeter();
  const dropCounter: Counter = {
    add(value: number, attributes?: Attributes) {
      if (attributes?.[ATTR_ERROR_TYPE] === QUEUE_FULL) onDropped(value);
    },
  };
  const meter: Meter = Object.create(noop, {
    createCounter: { value: (name: string) => (PROCESSED.test(name) ? dropCounter : noop.createCounter(name)) },
  }) as Meter;
  return { getMeter: () => meter };
}
