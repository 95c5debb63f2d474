/**
 * `@AgentMethod({ name, ... })`: each call of the method is one invocation of the agent `name`
 * (agent.ts); the method reaches its run with `currentRun()`. Its options are the middle level of
 * rule 7: configuration overrides them, they override an `agent(name, defaults)` builder of the
 * same name. Without `name`, the agent is named `Class.method` (legacy decorators: at definition;
 * standard decorators, which do not see the class: at the first call).
 *
 * Works with legacy TypeScript decorators (`experimentalDecorators`; the options are also written
 * with reflect-metadata under `AGENT_METHOD_KEY` on the prototype and method name) and TC39
 * standard decorators (appended, with the method's name, to the list under `AGENT_METHOD_KEY` in
 * `context.metadata`). The wrapper is the one `@AgentOperation` uses: frameworks cannot
 * tell it from the method (name, length, own properties, prototype, reflect-metadata keys).
 *
 * @example
 * class Support {
 *   @AgentMethod({ name: 'support-bot', type: 'react', maxSteps: 20 })
 *   async answer(question: string) {
 *     const run = currentRun()!;
 *     run.step('plan');
 *     return run.tool('search_docs', { q: question }, (args) => docs.search(args.q));
 *   }
 * }
 */
import 'reflect-metadata';
import { type AnyFunction, type DualDecorator, isStandardContext } from '../metadata/decorator-modes.js';
import { transparentWrapper } from '../metadata/transparent-wrapper.js';
import { reportError } from '../shared/report-error.js';
import { acceptedDefaults, invokeAgent, SettingsCache } from './agent.js';
import { declareMethodAgent } from './agent-declarations.js';
import type { AgentDefaults } from './agent-settings.js';

export const AGENT_METHOD_KEY = Symbol.for('svc.metadata.agent-method');

export interface AgentMethodOptions extends AgentDefaults {
  /** The agent's name, as under `svc.agentic.agents`; default `Class.method`. */
  readonly name?: string;
}

/** One agent per decorated method; its name is known at once, or at the first call with a receiver (standard mode without `name`). */
class MethodAgent {
  private cache: SettingsCache | undefined;

  constructor(
    private readonly defaults: AgentDefaults,
    name: string | undefined,
  ) {
    if (name) this.declare(name);
  }

  named(): boolean {
    return this.cache !== undefined;
  }

  declare(name: string): void {
    declareMethodAgent(name, this.defaults);
    this.cache = new SettingsCache(name, this.defaults, 'method');
  }

  /** Invokes under the declared name, or under `name` for this call only (a call without a receiver does not name the agent). */
  invoke(self: unknown, method: AnyFunction, args: unknown[], name?: string): unknown {
    const cache = this.cache ?? new SettingsCache(name ?? 'agent', this.defaults, 'method');
    return invokeAgent(cache, () => method.apply(self, args), args);
  }
}

export function AgentMethod(options: AgentMethodOptions = {}): DualDecorator {
  const name = typeof options?.name === 'string' && options.name ? options.name : undefined;
  const defaults = acceptedDefaults(name ?? 'method', options, '@AgentMethod options');
  return (target, keyOrContext, descriptor) => {
    if (isStandardContext(keyOrContext)) {
      const method = String(keyOrContext.name);
      const isStatic = keyOrContext.static === true;
      if (keyOrContext.metadata) keyOrContext.metadata[AGENT_METHOD_KEY] = [...((keyOrContext.metadata[AGENT_METHOD_KEY] as unknown[]) ?? []), { ...options, method }];
      if (typeof target !== 'function') return undefined;
      const agent = new MethodAgent(defaults, name);
      return wrap(target as AnyFunction, agent, (self) => {
        const owner = self == null ? undefined : isStatic ? (self as AnyFunction).name : (self as { constructor?: { name?: string } }).constructor?.name;
        return owner ? { name: `${owner}.${method}`, final: true } : { name: method, final: false };
      });
    }
    const owner = typeof target === 'function' ? target.name : target.constructor.name;
    const qualified = `${owner}.${String(keyOrContext)}`;
    Reflect.defineMetadata(AGENT_METHOD_KEY, options, target as object, keyOrContext as string | symbol);
    if (typeof (descriptor as PropertyDescriptor | undefined)?.value !== 'function') return descriptor;
    const agent = new MethodAgent(defaults, name ?? qualified);
    (descriptor as PropertyDescriptor).value = wrap((descriptor as PropertyDescriptor).value as AnyFunction, agent, () => ({ name: qualified, final: true }));
    return descriptor;
  };
}

/** The wrapper in place of the method, indistinguishable from it (as @AgentOperation's, src/metadata/decorators.ts). */
function wrap(method: AnyFunction, agent: MethodAgent, nameOf: (self: unknown) => { name: string; final: boolean }): AnyFunction {
  const wrapped = {
    method(this: unknown, ...args: unknown[]): unknown {
      let name: string | undefined;
      if (!agent.named()) {
        try {
          const found = nameOf(this);
          if (found.final) agent.declare(found.name);
          else name = found.name;
        } catch (error) {
          reportError('@AgentMethod', error);
          return method.apply(this, args);
        }
      }
      return agent.invoke(this, method, args, name);
    },
  }.method;
  return transparentWrapper(method, wrapped, '@AgentMethod wrapper');
}
