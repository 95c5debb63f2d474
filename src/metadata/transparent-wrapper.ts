/**
 * Method wrappers that frameworks cannot tell from the method (`@AgentOperation`, `@AgentMethod`).
 * A decorator that ran before (NestJS's `@Get`, `@HttpCode`, `SetMetadata`) wrote reflect-metadata
 * on the method, so every key is carried over, as are `name`, `length`, every other own property
 * (strings and symbols, same attributes) and the prototype (an async method's wrapper is still an
 * `AsyncFunction` to `instanceof`). Like a method, the wrapper has no `prototype` of its own unless
 * the method has one (a generator method): give a wrapper written as a method (`{ m() {} }.m`).
 */
import 'reflect-metadata';
import { reportError } from '../shared/report-error.js';
import type { AnyFunction } from './decorator-modes.js';

/** `wrapper` made to look like `method`; `method` itself (reported once) when that fails: a wrapper a framework could tell apart is worse than none. */
export function transparentWrapper<F extends AnyFunction>(method: F, wrapper: AnyFunction, site: string): F {
  try {
    for (const key of Reflect.ownKeys(method)) {
      const property = Object.getOwnPropertyDescriptor(method, key);
      if (property) Object.defineProperty(wrapper, key, property);
    }
    Object.setPrototypeOf(wrapper, Object.getPrototypeOf(method));
    for (const key of Reflect.getOwnMetadataKeys(method)) Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, method), wrapper);
    if (!Object.isExtensible(method)) Object.preventExtensions(wrapper);
  } catch (error) {
    reportError(site, error);
    return method;
  }
  return wrapper as F;
}
