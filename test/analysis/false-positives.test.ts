/**
 * Steady lognormal traffic with occasional isolated outliers must produce no anomaly event and
 * no detection with the default (robust) settings; bench/false-positives.mjs prints the figures
 * for both modes.
 */
import { expect, it } from 'vitest';
import { engineHarness } from '../support/engine-harness.js';
import { lognormal, seededRandom } from '../support/random.js';

it('100k spans of steady traffic: flags some spans, but no event and no detection', () => {
  const h = engineHarness();
  const detections: unknown[] = [];
  h.engine.onDetection((d) => detections.push(d));
  h.clock.advance(120_000);
  const random = seededRandom(42);
  const latency = lognormal(random, 25, 0.5);
  let flagged = 0;
  for (let i = 0; i < 100_000; i++) {
    const outlier = random() < 0.001;
    const attributes = h.request(i % 2 ? '/orders/:id' : '/cart', outlier ? 25 * 40 : latency(), random() < 0.002);
    if (attributes['svc.anomaly.detected']) flagged++;
    h.clock.advance(20);
  }
  expect(flagged).toBeGreaterThan(0);
  expect(h.eventsNamed('svc.anomaly.detected')).toEqual([]);
  expect(detections).toEqual([]);
});
