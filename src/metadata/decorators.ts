/**
 * `@AgentObservable`, `@AgentOperation`, `@DeclareDependency`, `@DeclareConsumer`.
 *
 * Each works with legacy TypeScript decorators (`experimentalDecorators`; the options are also
 * written with reflect-metadata, as NestJS-style tools expect) and with TC39 standard decorators
 * (the options are also written to `context.metadata`). The decorators only record what they
 * declare; configuration wins over it per property when metadata is resolved.
 *
 * @example
 * ```ts
 * @AgentObservable({ team: 'payments', tier: ServiceTier.CRITICAL })
 * @DeclareDependency({ name: 'orders-db', type: DependencyType.DATABASE })
 * class PaymentService {
 *   @AgentOperation({ expectedLatencyP99: '300ms', retryable: true })
 *   async charge(order: Order) { ... }
 * }
 * ```
 */
import 'reflect-metadata';
import { type AnyFunction, type DualDecorator, isStandardContext } from './decorator-modes.js';
import type { AgentObservableOptions, AgentOperationOptions, DeclareConsumerOptions, DeclareDependencyOptions } from './decorator-options.js';
import { decoratorRegistry } from './decorator-registry.js';
import { runAsOperation } from './operation-scope.js';
import { transparentWrapper } from './transparent-wrapper.js';

/** Metadata keys, for reflect-metadata (legacy) and `context.metadata` (standard). */
export const METADATA_KEYS = {
  observable: Symbol.for('svc.metadata.observable'),
  dependencies: Symbol.for('svc.metadata.dependencies'),
  consumers: Symbol.for('svc.metadata.consumers'),
  operation: Symbol.for('svc.metadata.operation'),
} as const;

function classNameOf(target: unknown, context: unknown): string {
  if (isStandardContext(context)) return String(context.name ?? 'anonymous');
  return (target as AnyFunction).name || 'anonymous';
}

function remember(target: unknown, context: unknown, key: symbol, value: unknown, list: boolean): void {
  if (isStandardContext(context)) {
    if (!context.metadata) return;
    context.metadata[key] = list ? [...((context.metadata[key] as unknown[]) ?? []), value] : value;
    return;
  }
  const previous = list ? ((Reflect.getOwnMetadata(key, target as object) as unknown[]) ?? []) : undefined;
  Reflect.defineMetadata(key, list ? [...previous!, value] : value, target as object);
}

/** Declares the service's topology on its main application class. */
export function AgentObservable(options: AgentObservableOptions): DualDecorator {
  return (target, context) => {
    const registry = decoratorRegistry();
    registry.observable = { options, where: `@AgentObservable on ${classNameOf(target, context)}` };
    registry.version++;
    remember(target, context, METADATA_KEYS.observable, options, false);
  };
}

/** Declares a dependency of the service; repeatable. */
export function DeclareDependency(options: DeclareDependencyOptions): DualDecorator {
  return (target, context) => {
    const registry = decoratorRegistry();
    registry.dependencies.push({ options, where: `@DeclareDependency on ${classNameOf(target, context)}` });
    registry.version++;
    remember(target, context, METADATA_KEYS.dependencies, options, true);
  };
}

/** Declares a consumer affected when the service degrades; repeatable. */
export function DeclareConsumer(options: DeclareConsumerOptions): DualDecorator {
  return (target, context) => {
    const registry = decoratorRegistry();
    registry.consumers.push({ options, where: `@DeclareConsumer on ${classNameOf(target, context)}` });
    registry.version++;
    remember(target, context, METADATA_KEYS.consumers, options, true);
  };
}

function declareOperation(name: string, options: AgentOperationOptions, where: string): void {
  const registry = decoratorRegistry();
  registry.operations.set(name, { options, where: `@AgentOperation on ${where}` });
  registry.version++;
}

/**
 * Declares operation metadata on a method. With a web operation name (`GET /orders/{id}`), a call
 * inside that HTTP request marks the request's server span as this operation; otherwise the
 * method runs in an internal span named after the operation (`name`, else `Class.method`), so
 * its spans are enriched too. A standard-decorated method without `name` is declared at its
 * first call, since a TC39 method decorator does not see its class.
 */
export function AgentOperation(options: AgentOperationOptions = {}): DualDecorator {
  return (target, keyOrContext, descriptor) => {
    if (isStandardContext(keyOrContext)) {
      const method = String(keyOrContext.name);
      const isStatic = keyOrContext.static === true;
      remember(target, keyOrContext, METADATA_KEYS.operation, { ...options, method }, true);
      if (options.name) declareOperation(options.name, options, method);
      // Only a method (or an accessor's function) is wrapped: a field's initial value is left alone.
      if (typeof target !== 'function') return undefined;
      let declared = options.name;
      return wrap(target as AnyFunction, (self) => {
        if (declared) return declared;
        const owner = self == null ? undefined : isStatic ? (self as AnyFunction).name : (self as { constructor?: { name?: string } }).constructor?.name;
        // Called without a receiver (a detached method): name it, but wait for a real call to declare.
        if (!owner) return method;
        declared = `${owner}.${method}`;
        declareOperation(declared, options, declared);
        return declared;
      });
    }
    const owner = typeof target === 'function' ? target.name : target.constructor.name;
    const qualified = `${owner}.${String(keyOrContext)}`;
    const name = options.name ?? qualified;
    declareOperation(name, options, qualified);
    Reflect.defineMetadata(METADATA_KEYS.operation, options, target as object, keyOrContext as string | symbol);
    // Only a method is wrapped: on an accessor or a field the declaration is all it does.
    if (typeof (descriptor as PropertyDescriptor | undefined)?.value !== 'function') return descriptor;
    (descriptor as PropertyDescriptor).value = wrap((descriptor as PropertyDescriptor).value as AnyFunction, () => name);
    return descriptor;
  };
}

/** The wrapper frameworks see in place of the method: runs it as the named operation (transparent-wrapper.ts). */
function wrap(method: AnyFunction, nameOf: (self: unknown) => string): AnyFunction {
  const wrapped = {
    method(this: unknown, ...args: unknown[]): unknown {
      return runAsOperation(
        decoratorRegistry(),
        () => nameOf(this),
        () => method.apply(this, args),
      );
    },
  }.method;
  return transparentWrapper(method, wrapped, '@AgentOperation wrapper');
}
