/**
 * The running instance of svc in this process, under a global symbol so that every copy of the
 * package (preload, ESM and CommonJS imports of the API) sees the same one.
 */
export interface Runtime {
  /** True while the preload (or `start()`) runs with `svc.enabled=true`. */
  active: boolean;
}

const KEY = Symbol.for('svc.runtime');

export function runtime(): Runtime {
  const holder = globalThis as { [KEY]?: Runtime };
  return (holder[KEY] ??= { active: false });
}
