// Cost of an agent's step: `run.step()` and `run.tool()` against the bare span each creates (same
// name, kind, parent and step attribute, started and ended the same way), in one TracerProvider
// with a no-op processor registered globally, as an app's SDK would be. Batches alternate, so both
// sides see the same machine state; medians of the batches after a warm-up. What remains after
// the subtraction is svc's part: the guardrail checks, counters, the step's attributes and, for a
// tool call, the canonical JSON of its arguments, hashed when longer than 64 characters (loop
// detection).
import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { agent } from '../dist/agentic/agent.js';

const BATCHES = 30;
const WARMUP = 10;
const BATCH = 20_000;
const TARGET_NS = 2000;
// Attribute keys are computed, as svc writes them: an object literal with quoted dotted keys has
// another shape, which alone moved the SDK's cost of a span by about 150 ns here.
const STEP_NUMBER = 'svc.agent.step.number';
const OPERATION_NAME = 'gen_ai.operation.name';
const TOOL_NAME = 'gen_ai.tool.name';

const noop = { onStart() {}, onEnding() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} };
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [noop] }));
const tracer = trace.getTracer('bench');
const bot = agent('bench-bot');
const toolFn = (args) => args.id;

function timed(body) {
  const start = process.hrtime.bigint();
  body();
  return Number(process.hrtime.bigint() - start) / BATCH;
}

/** ns per step: `run.step()` BATCH times in one invocation. */
const stepBatch = () =>
  bot.invoke((run) =>
    timed(() => {
      for (let i = 0; i < BATCH; i++) run.step();
    }),
  );

/** The spans of a step and nothing else, written as run.step() is (a method ending the open span, starting the next). */
class BareSteps {
  constructor(ctx) {
    this.ctx = ctx;
    this.count = 0;
    this.open = undefined;
  }
  step() {
    this.count++;
    if (this.open) {
      this.open.end();
      this.open = undefined;
    }
    this.open = tracer.startSpan('step', { kind: SpanKind.INTERNAL, attributes: { [STEP_NUMBER]: this.count } }, this.ctx);
  }
  end() {
    this.open?.end();
  }
}

/** ns per bare step span: child of an invocation span, one attribute, ended at the next. */
function bareStepBatch() {
  // Inside an invocation too, so both sides run in the same async context.
  return bot.invoke(() => {
    const parent = tracer.startSpan('invoke_agent bench-bot');
    const steps = new BareSteps(trace.setSpan(context.active(), parent));
    const ns = timed(() => {
      for (let i = 0; i < BATCH; i++) steps.step();
    });
    steps.end();
    parent.end();
    return ns;
  });
}

/** ns per `run.tool()` with small arguments that change from call to call. */
const toolBatch = () =>
  bot.invoke((run) =>
    timed(() => {
      for (let i = 0; i < BATCH; i++) run.tool('lookup_order', { id: i % 10, region: 'eu' }, toolFn);
    }),
  );

/** ns per bare execute_tool span around the same function, active while it runs. */
function bareToolBatch() {
  const parent = tracer.startSpan('invoke_agent bench-bot');
  const ctx = trace.setSpan(context.active(), parent);
  const ns = timed(() => {
    for (let i = 0; i < BATCH; i++) {
      const span = tracer.startSpan('execute_tool lookup_order', { kind: SpanKind.INTERNAL, attributes: { [OPERATION_NAME]: 'execute_tool', [TOOL_NAME]: 'lookup_order', [STEP_NUMBER]: i + 1 } }, ctx);
      context.with(trace.setSpan(ctx, span), toolFn, undefined, { id: i % 10, region: 'eu' });
      span.end();
    }
  });
  parent.end();
  return ns;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function measure(withSvc, bare) {
  const svc = [];
  const plain = [];
  for (let i = 0; i < WARMUP + BATCHES; i++) {
    // Which side goes first alternates, so neither always pays for the other's garbage.
    const [s, b] = i % 2 === 0 ? [withSvc(), bare()] : [bare(), withSvc()].reverse();
    if (i >= WARMUP) {
      svc.push(s);
      plain.push(b);
    }
  }
  return { svc: median(svc), bare: median(plain) };
}

const step = measure(stepBatch, bareStepBatch);
const tool = measure(toolBatch, bareToolBatch);
// The bare span against itself: how far apart two identical sides come out on this machine.
const noise = measure(bareStepBatch, bareStepBatch);
console.log(`agent steps, medians of ${BATCHES} batches of ${BATCH.toLocaleString('en')} per side (after ${WARMUP} of warm-up)`);
console.log(`  bare span as a step makes it           median ${step.bare.toFixed(0)} ns/step`);
console.log(`  run.step()                             median ${step.svc.toFixed(0)} ns/step`);
console.log(`  svc's part of a step (difference)      median ${(step.svc - step.bare).toFixed(0)} ns/step  (target <= ${TARGET_NS} ns)`);
console.log(`  bare span against itself (noise)       median ${(noise.svc - noise.bare).toFixed(0)} ns/step`);
console.log(`  bare execute_tool span around the call median ${tool.bare.toFixed(0)} ns/call`);
console.log(`  run.tool() with 2 small arguments      median ${tool.svc.toFixed(0)} ns/call`);
console.log(`  svc's part of a tool call (difference) median ${(tool.svc - tool.bare).toFixed(0)} ns/call  (canonical JSON of the arguments included; SHA-256 only beyond 64 characters)`);
if (step.svc - step.bare > TARGET_NS) process.exitCode = 1;
