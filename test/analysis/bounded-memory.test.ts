/**
 * 100k distinct span names: what is tracked stays at the configured caps, memory stays flat
 * between 20k and 100k names, and the overflow is counted and reported. An SLO's operation
 * beyond the cap is still counted against the SLO.
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SpanKind } from '@opentelemetry/api';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { SloTracker } from '../../src/analysis/slo-tracker.js';
import { Engine } from '../../src/wiring/service-engine.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

it('tracks at most max-operations and reports the overflow once', () => {
  const clock = new FakeClock();
  const reports: string[] = [];
  const engine = new Engine({ clock, maxOperations: 1000, onOverflow: (what, capacity) => reports.push(`${what}:${capacity}`) });
  const tracer = new TracerProvider({ spanProcessors: [engine.createSpanProcessor()] }).getTracer('t');
  const send = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const start = clock.now();
      tracer.startSpan('GET', { kind: SpanKind.SERVER, startTime: start, attributes: { 'http.request.method': 'GET', 'http.route': `/items/${i}` } }).end(start + 5);
      clock.advance(1);
    }
  };
  send(0, 20_000);
  const at20k = heapAfterGc();
  send(20_000, 100_000);
  const at100k = heapAfterGc();

  expect(engine.rollingBaselines.operations()).toHaveLength(1000);
  expect(engine.health.operations()).toHaveLength(1000);
  expect(engine.rollingBaselines.overflow).toBe(99_000);
  expect(engine.health.overflow).toBe(99_000);
  expect(reports.sort()).toEqual(['operation history:1000', 'operations:1000']);
  // 80k more distinct names than at the 20k mark: flat means well under 100 bytes per name.
  const growth = at100k - at20k;
  expect(growth).toBeLessThan(4 * 1024 * 1024);
});

it('still counts the SLO of an operation that arrives after max-operations are tracked', () => {
  const clock = new FakeClock();
  const slos = new SloTracker(clock);
  slos.register({ name: 'late-availability', operationName: 'GET /late', type: 'AVAILABILITY', target: 0.99 });
  const engine = new Engine({ clock, maxOperations: 2, sloTracker: slos });
  engine.observe('GET /a', 5, false);
  engine.observe('GET /b', 5, false);
  engine.observe('GET /late', 5, true);
  engine.observe('GET /late', 5, false);
  expect(engine.rollingBaselines.overflow).toBe(2);
  expect(slos.getStatus('late-availability')).toMatchObject({ totalRequests: 2, failedRequests: 1 });
});
