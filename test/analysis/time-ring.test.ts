/** The time ring on a fake clock: buckets by time, running totals, expiry, jumps and bounded size. */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { TimeRing } from '../../src/analysis/time-ring.js';

describe('TimeRing', () => {
  it('adds into the bucket of the time and keeps a running total per field', () => {
    const clock = new FakeClock(0);
    const ring = new TimeRing(1000, 5, 2);
    ring.add(clock.now(), 0);
    ring.add(clock.now(), 1, 3);
    clock.advance(1500);
    ring.add(clock.now(), 0, 2);
    expect(ring.total(clock.now(), 0)).toBe(3);
    expect(ring.total(clock.now(), 1)).toBe(3);
    expect(ring.sum(clock.now(), 0, 1)).toBe(2);
    expect(ring.buckets(clock.now(), 2).map((b) => [b.start, ring.get(b.slot, 0)])).toEqual([
      [0, 1],
      [1000, 2],
    ]);
  });

  it('drops buckets as they leave the ring, one bucket at a time', () => {
    const clock = new FakeClock(0);
    const ring = new TimeRing(1000, 3);
    for (let s = 0; s < 3; s++) {
      ring.add(clock.now(), 0, s + 1); // 1, 2, 3
      clock.advance(1000);
    }
    expect(ring.total(clock.now() - 1)).toBe(6);
    expect(ring.total(clock.now())).toBe(5); // the bucket at 0 s left
    expect(ring.total(clock.advance(1000).now())).toBe(3);
    expect(ring.total(clock.advance(1000).now())).toBe(0);
  });

  it('clears everything when the clock jumps past the ring, telling the caller each slot once', () => {
    const cleared: number[] = [];
    const ring = new TimeRing(60_000, 4, 1, (slot) => cleared.push(slot));
    ring.add(0, 0, 7);
    cleared.length = 0;
    expect(ring.total(365 * 24 * 3_600_000)).toBe(0);
    expect(cleared.sort()).toEqual([0, 1, 2, 3]);
  });

  it('adds to the newest bucket when the clock goes back', () => {
    const ring = new TimeRing(1000, 4);
    ring.add(5000);
    ring.add(3000);
    expect(ring.sum(5000, 0, 1)).toBe(2);
  });

  it('keeps fractional totals exact over many laps', () => {
    const ring = new TimeRing(10, 8);
    for (let t = 0; t < 100_000; t++) ring.add(t, 0, 0.1);
    expect(ring.total(99_999)).toBeCloseTo(ring.sum(99_999, 0, 8), 9);
    expect(ring.total(99_999)).toBeCloseTo(8, 6);
  });

  it('corrects a bucket with set, keeping the total', () => {
    const ring = new TimeRing(1000, 4);
    const slot = ring.add(0, 0, 5);
    ring.set(slot, 0, 2);
    expect(ring.total(0)).toBe(2);
  });

  it('holds size x fields doubles whatever the traffic', () => {
    const ring = new TimeRing(1000, 60, 2);
    for (let t = 0; t < 1_000_000; t += 7) ring.add(t, t % 2);
    expect(ring.total(1_000_000, 0) + ring.total(1_000_000, 1)).toBeLessThanOrEqual((60 * 1000) / 7 + 2);
  });

  it('adds counts kept elsewhere by bucket number: into their bucket, dropped once out of the ring, ahead of the ring into the newest', () => {
    const clock = new FakeClock(10_500);
    const ring = new TimeRing(1000, 5);
    ring.add(clock.now(), 0, 1);
    expect(ring.addAt(clock.now(), 8, 0, 2)).toBeGreaterThanOrEqual(0);
    expect(ring.addAt(clock.now(), 5, 0, 4)).toBe(-1);
    expect(ring.addAt(clock.now(), 13, 0, 8)).toBe(ring.slotAt(clock.now()));
    expect(ring.total(clock.now())).toBe(11);
    expect(ring.buckets(clock.now(), 5).map((b) => ring.get(b.slot))).toEqual([0, 0, 2, 0, 9]);
  });

  it('refuses a shape it cannot hold', () => {
    expect(() => new TimeRing(0, 3)).toThrow(RangeError);
    expect(() => new TimeRing(1000, 0)).toThrow(RangeError);
  });
});
