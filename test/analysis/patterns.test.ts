/**
 * The six incident-pattern detectors, one shared case file: for each detector a case that must
 * fire and one that must not, driven by synthetic spans through the engine's span processor with
 * a fake clock. Traffic is given in seconds and requests per second: every window is a duration.
 */
import { describe, expect, it } from 'vitest';
import { INCIDENT_PATTERNS, type IncidentPattern } from '../../src/analysis/pattern-matcher.js';
import { engineHarness } from '../support/engine-harness.js';
import { lognormal, seededRandom } from '../support/random.js';

const ROUTE = '/orders/{id}';
type Harness = ReturnType<typeof engineHarness>;

interface Traffic {
  readonly seconds: number;
  readonly rate: number;
  /** Median latency, or a function of the elapsed fraction of the traffic (0..1). */
  readonly medianMs: number | ((fraction: number) => number);
  readonly errorRate?: number;
  readonly seed?: number;
  /** Called once per simulated second, before that second's requests. */
  readonly eachSecond?: (second: number) => void;
}

/** `seconds` of requests evenly spaced at `rate` per second, lognormal around the median. */
function traffic(h: Harness, t: Traffic): void {
  const random = seededRandom(t.seed ?? 7);
  const noise = lognormal(random, 1, 0.25);
  const gapMs = 1000 / t.rate;
  const count = Math.round(t.seconds * t.rate);
  let second = -1;
  for (let i = 0; i < count; i++) {
    const elapsed = Math.floor((i * gapMs) / 1000);
    if (elapsed !== second) t.eachSecond?.((second = elapsed));
    const median = typeof t.medianMs === 'number' ? t.medianMs : t.medianMs(i / count);
    h.request(ROUTE, median * noise(), random() < (t.errorRate ?? 0));
    h.clock.advance(gapMs);
  }
}

/** Past the cold-start window, with 90 s of ~20 ms traffic at 10 req/s behind it (the reference). */
function warm(options: Parameters<typeof engineHarness>[0] = {}): Harness {
  const h = engineHarness(options);
  h.clock.advance(60_000);
  traffic(h, { seconds: 90, rate: 10, medianMs: 20, errorRate: 0.005 });
  h.events.length = 0;
  return h;
}

/** Patterns of the engine's detections from now on. */
function detections(h: Harness): IncidentPattern[] {
  const seen: IncidentPattern[] = [];
  h.engine.onDetection((d) => seen.push(...d.patterns));
  return seen;
}

/** A memory series sampled every 2 s: `bytesAt(ms)` from the leak's start. */
function sampler(h: Harness, bytesAt: (ms: number) => number): (second: number) => void {
  return (second) => {
    if (second % 2 === 0) h.engine.patternMatcher.recordMemorySample(bytesAt(second * 1000));
  };
}

/** A steady process's heap: 40 MB of garbage every 20 s, collected back to 200 MB, plus buffers. */
const sawtooth = (ms: number) => 200e6 + ((ms % 20_000) / 20_000) * 40e6 + 8e6;
const LEAK_BYTES_PER_SECOND = 1.5 * 1024 * 1024;

interface PatternCase {
  /** Drives traffic that must make the pattern fire; returns the patterns detected. */
  fires(): IncidentPattern[];
  /** Drives traffic that must not. */
  quiet(): IncidentPattern[];
}

const cases: Record<IncidentPattern, PatternCase> = {
  latency_degradation: {
    fires() {
      const h = warm();
      const seen = detections(h);
      traffic(h, { seconds: 40, rate: 10, medianMs: 60, seed: 2 });
      return seen;
    },
    quiet() {
      // 30 % slower for good (under the 1.5x factor), and 3x slower for 1.5 s only (shorter than a horizon's three thirds).
      const h = warm();
      const seen = detections(h);
      traffic(h, { seconds: 40, rate: 10, medianMs: 26, seed: 2 });
      traffic(h, { seconds: 1.5, rate: 10, medianMs: 60, seed: 3 });
      traffic(h, { seconds: 40, rate: 10, medianMs: 20, seed: 4 });
      return seen;
    },
  },
  error_rate_spike: {
    fires() {
      const h = warm();
      const seen = detections(h);
      traffic(h, { seconds: 40, rate: 10, medianMs: 20, errorRate: 0.5, seed: 3 });
      return seen;
    },
    quiet() {
      // 5 % errors for good (under the 10-point threshold), and a 1.5 s burst of failures: neither is a sustained spike.
      const h = warm();
      const seen = detections(h);
      traffic(h, { seconds: 40, rate: 10, medianMs: 20, errorRate: 0.05, seed: 3 });
      traffic(h, { seconds: 1.5, rate: 10, medianMs: 20, errorRate: 1, seed: 5 });
      traffic(h, { seconds: 40, rate: 10, medianMs: 20, errorRate: 0.005, seed: 6 });
      return seen;
    },
  },
  cascade_failure: {
    fires() {
      const h = warm();
      const seen = detections(h);
      h.call('payments', 30, true);
      h.call('inventory', 30, true);
      h.request(ROUTE, 25, true);
      return seen;
    },
    quiet() {
      const h = warm();
      const seen = detections(h);
      h.call('payments', 30, true);
      h.request(ROUTE, 25, true);
      h.call('inventory', 30, true);
      h.clock.advance(120_000);
      h.request(ROUTE, 25, true);
      return seen;
    },
  },
  memory_leak: {
    fires() {
      // 60 s of a steady sawtooth, then Buffers leaking 1.5 MB/s while latency rises 4x over 100 s.
      const h = warm();
      traffic(h, { seconds: 60, rate: 10, medianMs: 20, eachSecond: sampler(h, (ms) => sawtooth(ms)) });
      const seen = detections(h);
      traffic(h, { seconds: 100, rate: 10, medianMs: (f) => 20 * (1 + 3 * f), eachSecond: sampler(h, (ms) => sawtooth(ms) + (ms / 1000) * LEAK_BYTES_PER_SECOND) });
      return seen;
    },
    quiet() {
      // The same sawtooth and the same slowdown, without a leak: the floor the GC returns to is flat.
      const h = warm();
      traffic(h, { seconds: 60, rate: 10, medianMs: 20, eachSecond: sampler(h, (ms) => sawtooth(ms)) });
      const seen = detections(h);
      traffic(h, { seconds: 100, rate: 10, medianMs: (f) => 20 * (1 + 3 * f), eachSecond: sampler(h, (ms) => sawtooth(ms + 60_000)) });
      return seen;
    },
  },
  thundering_herd: {
    fires() {
      const h = warm();
      outageAndRecovery(h);
      const seen = detections(h);
      traffic(h, { seconds: 4, rate: 10, medianMs: 20, seed: 6 });
      return seen;
    },
    quiet() {
      // Steady traffic after a recovery, and a spike long after it.
      const h = warm();
      outageAndRecovery(h);
      const seen = detections(h);
      traffic(h, { seconds: 20, rate: 2, medianMs: 20, seed: 6 });
      h.clock.advance(120_000);
      traffic(h, { seconds: 4, rate: 10, medianMs: 20, seed: 6 });
      return seen;
    },
  },
  cold_start: {
    fires() {
      // A fresh process whose first requests take 1.8 s: beyond the 500 ms limit without consumers.
      const h = engineHarness();
      const seen = detections(h);
      h.request(ROUTE, 1800);
      traffic(h, { seconds: 10, rate: 10, medianMs: 15 });
      return seen;
    },
    quiet() {
      // A warm-up of 250 ms first requests against a 15 ms p99: reported, not detected.
      const h = engineHarness({ staticBaselines: new Map([[`GET ${ROUTE}`, { latencyP50Ms: 8, latencyP99Ms: 15, errorRate: 0 }]]) });
      const seen = detections(h);
      traffic(h, { seconds: 3, rate: 10, medianMs: 250 });
      traffic(h, { seconds: 60, rate: 10, medianMs: 8 });
      return seen;
    },
  },
};

/** Steady 2 requests/s for a minute, a dependency outage, and its recovery. */
function outageAndRecovery(h: Harness): void {
  traffic(h, { seconds: 60, rate: 2, medianMs: 20, seed: 5 });
  for (let i = 0; i < 10; i++) h.call('payments', 20, true);
  h.clock.advance(60_000); // the failures age out of the dependency's window
  for (let i = 0; i < 20; i++) h.call('payments', 20, false);
  expect(h.eventsNamed('svc.dependency.state_change').at(-1)?.body.current_state).toBe('healthy');
}

describe.each(INCIDENT_PATTERNS.map((pattern) => [pattern]))('%s', (pattern) => {
  it('fires on its case', () => {
    expect(cases[pattern].fires()).toContain(pattern);
  });
  it('does not fire on its quiet case', () => {
    expect(cases[pattern].quiet()).not.toContain(pattern);
  });
});

describe('thundering herd', () => {
  it('is named for as long as the flood lasts, past the minute after the recovery', () => {
    const h = warm();
    outageAndRecovery(h);
    const seen: number[] = [];
    h.engine.onDetection((d) => d.patterns.includes('thundering_herd') && seen.push(h.clock.now()));
    const floodStart = h.clock.now();
    traffic(h, { seconds: 90, rate: 12, medianMs: 20, seed: 8 });
    expect(seen[0]! - floodStart).toBeLessThan(6_000);
    expect(seen.at(-1)! - floodStart).toBeGreaterThan(85_000);
    const floodEnd = h.clock.now();
    // While it lasts, health says so (a herd has no onset of a window verdict).
    expect(h.engine.healthSummary().operations[0]!.elevatedReasons).toContain('thundering_herd');
    traffic(h, { seconds: 20, rate: 2, medianMs: 20, seed: 9 });
    expect(seen.filter((at) => at > floodEnd + 5_000)).toEqual([]);
  });
});

describe('thundering herd after an error spike', () => {
  it('is named from the start of a flood that begins as an outage ends, against the rate from before', () => {
    const h = warm();
    traffic(h, { seconds: 40, rate: 10, medianMs: 20, errorRate: 1, seed: 10 });
    const seen: number[] = [];
    h.engine.onDetection((d) => d.patterns.includes('thundering_herd') && seen.push(h.clock.now()));
    const floodStart = h.clock.now();
    traffic(h, { seconds: 30, rate: 60, medianMs: 20, seed: 11 });
    expect(seen[0]! - floodStart).toBeLessThan(8_000);
    expect(seen.at(-1)! - floodStart).toBeGreaterThan(25_000);
  });
});

describe('cold start', () => {
  it('is reported with how slow and for how long, against the static p99', () => {
    const h = engineHarness({ staticBaselines: new Map([[`GET ${ROUTE}`, { latencyP50Ms: 8, latencyP99Ms: 15, errorRate: 0 }]]) });
    traffic(h, { seconds: 3, rate: 10, medianMs: 200 });
    traffic(h, { seconds: 60, rate: 10, medianMs: 8 });
    const coldStart = h.engine.coldStartOf(`GET ${ROUTE}`)!;
    expect(coldStart.baselineP99Ms).toBe(15);
    expect(coldStart.peakMs).toBeGreaterThan(200);
    expect(coldStart.durationMs).toBe(3000);
    expect(coldStart.breached).toBe(false);
    expect(h.engine.coldStartOf('GET /other')).toBeUndefined();
    // The operation's health carries the same cold start, for the tools that show it beside the operation.
    expect(h.engine.health.getOperationHealth(`GET ${ROUTE}`)!.coldStart).toEqual(coldStart);
    expect(h.engine.healthSummary().operations.find((op) => op.operation === `GET ${ROUTE}`)!.coldStart).toEqual(coldStart);
  });
  it('is not reported when the first requests were as fast as the baseline', () => {
    const h = engineHarness({ staticBaselines: new Map([[`GET ${ROUTE}`, { latencyP50Ms: 8, latencyP99Ms: 15, errorRate: 0 }]]) });
    traffic(h, { seconds: 10, rate: 10, medianMs: 8 });
    expect(h.engine.coldStartOf(`GET ${ROUTE}`)).toBeUndefined();
  });
  it('is a detection by itself above the tightest consumer SLA', () => {
    const h = engineHarness({ coldStartLimitOf: () => 100 });
    const seen = detections(h);
    traffic(h, { seconds: 2, rate: 10, medianMs: 250 });
    expect(seen).toContain('cold_start');
    expect(seen).not.toContain('latency_degradation');
  });
  it('a fresh process under load (300 req/s, slow first second) opens nothing in its first minute', () => {
    const h = engineHarness();
    const seen = detections(h);
    traffic(h, { seconds: 1, rate: 300, medianMs: (f) => 120 * (1 - f) + 2 });
    traffic(h, { seconds: 59, rate: 300, medianMs: 2 });
    expect(seen).toEqual([]);
    expect(h.eventsNamed('svc.anomaly.detected')).toEqual([]);
  });
});

describe('rule 9: expected-error-rate -1', () => {
  it('turns off error-rate spike detection for that operation only; an outage is still one', async () => {
    const { Engine } = await import('../../src/wiring/service-engine.js');
    const { FakeClock } = await import('../../src/analysis/clock.js');
    const { loadConfig } = await import('../../src/config/load-config.js');
    const { ServiceMetadata } = await import('../../src/metadata/service-metadata.js');
    const { newRegistry } = await import('../support/registry.js');
    const { tempDir } = await import('../support/temp-dir.js');
    const { config } = loadConfig({ cwd: tempDir({ 'svc.yml': 'operations:\n  GET /watched:\n    expected-error-rate: 0.01\n  GET /unwatched:\n    expected-error-rate: -1\n' }), args: [], env: {} });
    const clock = new FakeClock().advance(120_000);
    const patterns: string[] = [];
    const engine = Engine.fromConfig(config, new ServiceMetadata(config, newRegistry()), { clock });
    engine.onDetection((d) => patterns.push(...d.patterns.map((p) => `${d.operation}:${p}`)));
    const outages: string[] = [];
    engine.onDetection((d) => d.outage && outages.push(d.operation));
    for (let i = 0; i < 800; i++) {
      for (const op of ['GET /watched', 'GET /unwatched']) engine.observe(op, 20, i >= 400 && i % 3 === 0);
      clock.advance(100);
    }
    expect(patterns).toContain('GET /watched:error_rate_spike');
    expect(patterns).not.toContain('GET /unwatched:error_rate_spike');
    for (let i = 0; i < 50; i++) {
      engine.observe('GET /unwatched', 20, true);
      clock.advance(100);
    }
    expect(outages).toContain('GET /unwatched');
  });
});
