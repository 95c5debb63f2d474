// Loaded after the preload (`--import ./register.mjs --import ./bench/svc-switch.mjs`): SIGUSR2
// switches svc's span processor out of the tracer provider and back in, and prints
// "SVC_SWITCH on|off". Switched off, the process is plain OTel with svc loaded but idle, so
// bench/http.mjs can compare svc on and off in one process: what a fresh process costs by its
// own layout and JIT state then cancels out. The SDK keeps processors in a private array; this
// bench-only hook reaches into it and fails loudly if it moved.
import { trace } from '@opentelemetry/api';

const processors = trace.getTracerProvider().getDelegate?.()?._activeSpanProcessor?._spanProcessors;
const index = processors?.findIndex((p) => p.constructor.name === 'SvcSpanProcessor') ?? -1;
if (index < 0) throw new Error("bench/svc-switch.mjs: svc's span processor not found in the tracer provider");
const svc = processors[index];
// Without onEnding the SDK does not call it: switched off, a span costs what plain OTel's does.
const idle = { onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} };
process.on('SIGUSR2', () => {
  const on = processors[index] !== svc;
  processors[index] = on ? svc : idle;
  process.stdout.write(`SVC_SWITCH ${on ? 'on' : 'off'}\n`);
});
