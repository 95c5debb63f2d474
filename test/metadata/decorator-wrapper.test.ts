/**
 * The @AgentOperation wrapper never harms the method: called without a receiver, or with svc
 * inactive, the method runs and returns (or throws) exactly as undecorated.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decoratorRegistry } from '../../src/metadata/decorator-registry.js';
import { AgentOperation } from '../../src/metadata/decorators.js';

afterEach(() => {
  decoratorRegistry().active = false;
});

/** Applies the decorator the way TC39 standard decorators call it. */
function standardDecorated(method: (...args: number[]) => number, name: string) {
  return AgentOperation({ retryable: true })(method, { kind: 'method', name, static: false, metadata: {} }) as (...args: number[]) => number;
}

describe('@AgentOperation wrapper', () => {
  it('runs a detached method (no receiver) while svc is active, without declaring a bogus class name', () => {
    decoratorRegistry().active = true;
    const double = standardDecorated((x: number) => x * 2, 'double');
    expect(double(21)).toBe(42);
    expect([...decoratorRegistry().operations.keys()].filter((k) => k.endsWith('.double'))).toEqual([]);
    class Calculator {
      triple = standardDecorated(function (this: unknown, x: number) {
        return x * 3;
      }, 'triple');
    }
    expect(new Calculator().triple(2)).toBe(6);
    expect(decoratorRegistry().operations.has('Calculator.triple')).toBe(true);
  });

  it("passes the method's own errors through unchanged", () => {
    decoratorRegistry().active = true;
    const failing = standardDecorated(() => {
      throw new RangeError('bad input');
    }, 'failing');
    expect(() => failing()).toThrow(RangeError);
  });

  it('only calls the method while svc is inactive', () => {
    decoratorRegistry().active = false;
    const id = standardDecorated((x: number) => x, 'id');
    expect(id(7)).toBe(7);
  });
});
