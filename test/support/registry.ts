import type { DecoratorRegistry } from '../../src/metadata/decorator-registry.js';

/** A decorator registry of its own, so a test does not share the process-wide one. */
export function newRegistry(): DecoratorRegistry {
  return { observable: undefined, dependencies: [], consumers: [], operations: new Map(), operationOfSpan: new WeakMap(), version: 0, active: false };
}
