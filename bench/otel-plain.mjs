// Plain OpenTelemetry auto-instrumentation, the comparison point for svc: the same loader hook,
// NodeSDK and auto-instrumentations, exporters from the OTEL_* variables, no svc.
import { register } from 'node:module';
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { NodeSDK } from '@opentelemetry/sdk-node';

register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
const sdk = new NodeSDK({ instrumentations: [getNodeAutoInstrumentations()] });
sdk.start();
process.once('beforeExit', () => sdk.shutdown());
