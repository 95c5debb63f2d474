/**
 * The running instance of svc in this process, under a global symbol so that every copy of the
 * package (preload, ESM and CommonJS imports of the API) sees the same one.
 */
import type { Engine } from './analysis/engine.js';

export interface Runtime {
  /** True while the preload (or `start()`) runs with `svc.enabled=true`. */
  active: boolean;
  /** The analysis engine of the running instance, for the API and the tool server. */
  engine: Engine | undefined;
}

const KEY = Symbol.for('svc.runtime');

export function runtime(): Runtime {
  const holder = globalThis as { [KEY]?: Runtime };
  return (holder[KEY] ??= { active: false, engine: undefined });
}
