import { describe, expect, it } from 'vitest';
import { CallsInFlight, type Release } from '../../src/mcp/calls-in-flight.js';

/** Timers run by hand: `fire()` runs every wait that is due. */
function manualTimers() {
  const waits = new Set<() => void>();
  return {
    schedule: (fn: () => void) => {
      waits.add(fn);
      return () => waits.delete(fn);
    },
    fire: () => {
      for (const fn of [...waits]) {
        waits.delete(fn);
        fn();
      }
    },
    pending: () => waits.size,
  };
}

describe('CallsInFlight', () => {
  it('runs up to the cap per credential at once; the next waits and runs when one ends, first come first served', async () => {
    const timers = manualTimers();
    const calls = new CallsInFlight({ maxInFlight: 2, maxQueued: 4, maxWaitMs: 2000, schedule: timers.schedule });
    const first = (await calls.admit('ops')) as Release;
    const second = (await calls.admit('ops')) as Release;
    expect(await calls.admit('other')).toBeTypeOf('function');
    const order: string[] = [];
    const turn = (name: string) =>
      calls.admit('ops').then((release) => {
        order.push(name);
        return release;
      });
    const third = turn('third');
    const fourth = turn('fourth');
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(calls.inFlight('ops')).toBe(2);
    first();
    first();
    expect(await third).toBeTypeOf('function');
    expect(order).toEqual(['third']);
    second();
    expect(await fourth).toBeTypeOf('function');
    expect(order).toEqual(['third', 'fourth']);
    expect(calls.inFlight('ops')).toBe(2);
    expect(timers.pending()).toBe(0);
  });

  it('refuses at once when the queue is full, and a waiting request when its wait is over', async () => {
    const timers = manualTimers();
    const calls = new CallsInFlight({ maxInFlight: 1, maxQueued: 1, maxWaitMs: 2000, schedule: timers.schedule });
    const running = (await calls.admit('ops')) as Release;
    const waiting = calls.admit('ops');
    expect(await calls.admit('ops')).toBeUndefined();
    timers.fire();
    expect(await waiting).toBeUndefined();
    running();
    expect(calls.inFlight('ops')).toBe(0);
    expect(await calls.admit('ops')).toBeTypeOf('function');
  });
});
