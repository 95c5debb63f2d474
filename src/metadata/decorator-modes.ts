/**
 * What svc's decorators share to work in both modes: legacy TypeScript decorators
 * (`experimentalDecorators`: (prototype, key, descriptor) / (class)) and TC39 standard decorators
 * ((method, context) / (class, context)), told apart by the context argument.
 */

// TC39 decorator metadata needs `Symbol.metadata`, which Node does not define yet; compiled
// decorators use it when it exists at class definition, which follows this import.
(Symbol as { metadata?: symbol }).metadata ??= Symbol.for('Symbol.metadata');

export interface StandardContext {
  readonly kind: string;
  readonly name: string | symbol | undefined;
  readonly static?: boolean;
  readonly metadata?: Record<PropertyKey, unknown>;
}

export function isStandardContext(value: unknown): value is StandardContext {
  return typeof value === 'object' && value !== null && 'kind' in value;
}

// biome-ignore lint/suspicious/noExplicitAny: a decorated method may take and return anything
export type AnyFunction = (...args: any[]) => any;
/** A decorator usable in both modes: (class) / (class, context) / (prototype, key, descriptor) / (method, context). */
// biome-ignore lint/suspicious/noExplicitAny: TypeScript checks a decorator's call against both modes' signatures
export type DualDecorator = (target: any, keyOrContext?: any, descriptor?: any) => any;
