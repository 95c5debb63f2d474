/** The memory-leak detector on synthetic memory series with the fake clock: a 1-2 MB/s leak within 2 minutes, a GC sawtooth never. */
import { describe, expect, it } from 'vitest';
import { MemoryLeakDetector } from '../../src/analysis/patterns/memory-leak.js';
import { OperationWindow } from '../../src/analysis/patterns/operation-window.js';
import type { PatternContext } from '../../src/analysis/patterns/pattern-detector.js';
import { seededRandom } from '../support/random.js';

const MB = 1024 * 1024;
const options = { slotMs: 10_000, slots: 12, minSlots: 12, slopeBytesPerMinute: 1 * MB, minR2: 0.8 };

/** A context whose operation is slower than its reference (the other half of the pattern). */
function slowContext(nowMs: number): PatternContext {
  const window = new OperationWindow({ bucketMs: 1000, horizons: [3], minSamples: 1 });
  window.slowVerdict.holds = true;
  return { operation: 'op', window, latencyMs: 50, isError: false, nowMs, cold: false };
}

/** Seconds until the detector fires with memory `bytesAt(ms)` sampled every 2 s for `seconds`; undefined if never. */
function firesAfter(bytesAt: (ms: number) => number, seconds: number, leakFromMs = 0): number | undefined {
  const detector = new MemoryLeakDetector(options);
  for (let ms = 0; ms <= seconds * 1000; ms += 2000) {
    detector.recordSample(bytesAt(ms), ms);
    if (ms >= leakFromMs && detector.detect(slowContext(ms))) return (ms - leakFromMs) / 1000;
  }
  return undefined;
}

/** A steady heap: garbage rises `rise` bytes over `periodMs` and is collected, with noise and steady buffers. */
function sawtooth(periodMs: number, rise: number, seed = 1) {
  const random = seededRandom(seed);
  return (ms: number) => 150e6 + ((ms % periodMs) / periodMs) * rise + random() * 2e6 + 20e6;
}

describe('memory_leak', () => {
  for (const mbPerSecond of [1, 2]) {
    it(`a steady ${mbPerSecond} MB/s leak after 5 minutes of a steady sawtooth is reported within 2 minutes`, () => {
      const steady = sawtooth(20_000, 40e6);
      const leakFrom = 300_000;
      const after = firesAfter((ms) => steady(ms) + (Math.max(0, ms - leakFrom) * (mbPerSecond * MB)) / 1000, 600, leakFrom);
      expect(after).toBeDefined();
      expect(after!).toBeLessThanOrEqual(120);
    });
  }
  for (const periodMs of [5_000, 20_000, 45_000, 90_000]) {
    it(`a GC sawtooth of period ${periodMs / 1000} s (up to 60 MB of garbage) is never a leak over 30 minutes`, () => {
      expect(firesAfter(sawtooth(periodMs, 60e6, periodMs), 1800)).toBeUndefined();
    });
  }
  it('memory that grows once (a cache filling) and then stays is not a leak for long', () => {
    const detector = new MemoryLeakDetector(options);
    const firing: number[] = [];
    for (let ms = 0; ms <= 900_000; ms += 2000) {
      detector.recordSample(170e6 + Math.min(ms, 60_000) * 1000, ms);
      if (detector.detect(slowContext(ms))) firing.push(ms);
    }
    expect(firing.every((ms) => ms < 180_000)).toBe(true);
  });
  it('needs the operation to be slower or failing', () => {
    const detector = new MemoryLeakDetector(options);
    for (let ms = 0; ms <= 200_000; ms += 2000) detector.recordSample(170e6 + ms * 1500, ms);
    const context = slowContext(200_000);
    expect(detector.detect(context)).toBe(true);
    context.window.slowVerdict.holds = false;
    expect(detector.detect(context)).toBe(false);
    context.window.failing.holds = true;
    expect(detector.detect(context)).toBe(true);
  });
});
