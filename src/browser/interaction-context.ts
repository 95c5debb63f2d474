/**
 * The browser has no async context, so a fetch started in a click handler's promise chain cannot
 * find the click's span by itself. This context manager tracks synchronous `with()` scopes like
 * OpenTelemetry's StackContextManager and, outside any of them, answers with the context of the
 * interaction or navigation that started less than `windowMs` ago: calls made then are its
 * children, in its trace. Each new interaction replaces the previous one, so each starts its own
 * trace. Pure: no DOM.
 */
import { type Context, type ContextManager, ROOT_CONTEXT } from '@opentelemetry/api';

export class InteractionContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;
  /** `with()` scopes open: inside one, its context is the answer, even ROOT_CONTEXT. */
  private depth = 0;
  private interaction: { context: Context; until: number } | undefined;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Makes `context` the active one outside `with()` scopes for `windowMs`. */
  startInteraction(context: Context, windowMs: number): void {
    this.interaction = { context, until: this.now() + windowMs };
  }

  /** The interaction's context, while it lasts. */
  interactionContext(): Context | undefined {
    return this.interaction && this.now() < this.interaction.until ? this.interaction.context : undefined;
  }

  active(): Context {
    if (this.depth > 0) return this.current;
    return this.interactionContext() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    const previous = this.current;
    this.current = context || ROOT_CONTEXT;
    this.depth++;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.depth--;
      this.current = previous;
    }
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const manager = this;
    const fn = target as unknown as (...args: unknown[]) => unknown;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(context, () => fn.apply(this, args));
    } as unknown as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.current = ROOT_CONTEXT;
    this.depth = 0;
    this.interaction = undefined;
    return this;
  }
}
