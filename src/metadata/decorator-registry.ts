/**
 * What the decorators declared, kept once per process under a global symbol so the preload and
 * the app's own `import '@svc/register/api'` (ESM or require, even two copies) meet.
 */
import type { AgentObservableOptions, AgentOperationOptions, DeclareConsumerOptions, DeclareDependencyOptions } from './decorator-options.js';

export interface Declared<T> {
  readonly options: T;
  /** `@AgentOperation on OrderService.charge`, shown as the source of the values. */
  readonly where: string;
}

export interface DecoratorRegistry {
  observable: Declared<AgentObservableOptions> | undefined;
  readonly dependencies: Declared<DeclareDependencyOptions>[];
  readonly consumers: Declared<DeclareConsumerOptions>[];
  readonly operations: Map<string, Declared<AgentOperationOptions>>;
  /**
   * Spans that belong to a decorated operation: internal spans the decorator created, and the
   * server span of the request a decorated handler ran in. Read by the span processor.
   */
  readonly operationOfSpan: WeakMap<object, string>;
  /** Increments on every declaration so caches built from the registry know they are stale. */
  version: number;
  /**
   * Whether svc runs in this process (set by start, cleared by shutdown): decorated methods then
   * run as operations; otherwise they run as they are.
   */
  active: boolean;
}

const KEY = Symbol.for('svc.decorator-registry');

export function decoratorRegistry(): DecoratorRegistry {
  const holder = globalThis as { [KEY]?: DecoratorRegistry };
  const registry = (holder[KEY] ??= {
    observable: undefined,
    dependencies: [],
    consumers: [],
    operations: new Map(),
    operationOfSpan: new WeakMap(),
    version: 0,
    active: false,
  });
  // A registry created by an older copy of the package has no switch yet.
  registry.active ??= false;
  return registry;
}
