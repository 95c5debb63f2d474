/**
 * svc's method decorators never change what frameworks see. A class is decorated twice, the same
 * way, once with and once without the svc decorator (above, below or between decorators that
 * write as NestJS, TypeORM and class-validator do), in legacy mode (`Reflect.decorate`, which is
 * what TypeScript's emitted `__decorate` calls) and in standard mode (the TC39 call sequence):
 * name, length, own properties, prototype and every reflect-metadata key of each method, and the
 * metadata keyed on the class and property, are the same in both.
 */
import 'reflect-metadata';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_METHOD_KEY, AgentMethod } from '../../src/agentic/agent-method.js';
import { decoratorRegistry } from '../../src/metadata/decorator-registry.js';
import { AgentOperation, METADATA_KEYS } from '../../src/metadata/decorators.js';

afterEach(() => {
  decoratorRegistry().active = false;
});

// biome-ignore lint/suspicious/noExplicitAny: decorators are called as compiled code calls them
type Any = any;
type LegacyDecorator = (target: object, key: string | symbol, descriptor?: PropertyDescriptor) => Any;
type StandardDecorator = (value: Any, context: Any) => Any;

/** Every svc decorator that applies to methods, with the metadata key it writes. */
const SVC_METHOD_DECORATORS: Record<string, readonly [() => Any, symbol]> = {
  '@AgentOperation()': [() => AgentOperation(), METADATA_KEYS.operation],
  '@AgentOperation({ name: web operation })': [() => AgentOperation({ name: 'GET /identity/{id}', retryable: true }), METADATA_KEYS.operation],
  '@AgentOperation({ name: internal operation })': [() => AgentOperation({ name: 'identity.internal', idempotent: true }), METADATA_KEYS.operation],
  '@AgentMethod()': [() => AgentMethod(), AGENT_METHOD_KEY],
  '@AgentMethod({ name, guardrails })': [() => AgentMethod({ name: 'identity-agent', maxSteps: 5, loopThreshold: 2 }), AGENT_METHOD_KEY],
};
const SVC_KEYS: readonly unknown[] = [METADATA_KEYS.operation, AGENT_METHOD_KEY];

const OWN_SYMBOL = Symbol('framework.own');
const METADATA_SYMBOL = Symbol('framework.metadata');

function makeClass() {
  return class Identity {
    find(id: string, page: number): string {
      return `${id}:${page}`;
    }
    async save(item: { id: string }, force?: boolean): Promise<string> {
      return `${item.id}${force ? '!' : ''}`;
    }
    *rows(count: number): Generator<number> {
      for (let i = 0; i < count; i++) yield i;
    }
  };
}
type IdentityClass = ReturnType<typeof makeClass>;
const METHODS = ['find', 'save', 'rows'] as const;

/** Writes on the method as NestJS does (`@Get`, `@HttpCode`, `SetMetadata`): reflect-metadata on `descriptor.value`, plus own properties. */
function writesOnMethod(tag: string): LegacyDecorator {
  return (_target, _key, descriptor) => {
    const method = descriptor!.value as Any;
    Reflect.defineMetadata(`framework:${tag}`, { tag }, method);
    Reflect.defineMetadata(METADATA_SYMBOL, [...(Reflect.getMetadata(METADATA_SYMBOL, method) ?? []), tag], method);
    method[`visible_${tag}`] = tag;
    method[OWN_SYMBOL] = tag;
    Object.defineProperty(method, `hidden_${tag}`, { value: tag, enumerable: false, writable: false, configurable: false });
    Object.defineProperty(method, `accessor_${tag}`, { get: () => tag, enumerable: true, configurable: true });
    return descriptor;
  };
}

/** Reads what decorators below it wrote on the method, as a decorator above NestJS's would. */
function readsMethod(seen: unknown[]): LegacyDecorator {
  return (_target, _key, descriptor) => {
    const method = descriptor!.value as Any;
    seen.push({ keys: Reflect.getOwnMetadataKeys(method), name: method.name, length: method.length, visible: method.visible_low });
  };
}

/** Writes keyed on (prototype, key) and (constructor, key), as `emitDecoratorMetadata`, `@Param()`, TypeORM and class-validator do. */
const writesOnProperty: LegacyDecorator = (target, key) => {
  Reflect.defineMetadata('design:paramtypes', [String, Number], target, key);
  Reflect.defineMetadata('route-args', { 0: { index: 0, data: 'id' } }, target.constructor, key);
};

/** The decorator lists, outermost first as written above the method; `'svc'` marks the svc decorator's place. */
const ORDERS: Record<string, (seen: unknown[]) => (LegacyDecorator | 'svc')[]> = {
  'svc above': (seen) => [readsMethod(seen), 'svc', writesOnMethod('high'), writesOnMethod('low'), writesOnProperty],
  'svc below': (seen) => [readsMethod(seen), writesOnMethod('high'), writesOnMethod('low'), writesOnProperty, 'svc'],
  'svc between': (seen) => [readsMethod(seen), writesOnMethod('high'), 'svc', writesOnMethod('low'), writesOnProperty],
};

/** What a framework can observe of a function. */
function observe(fn: Any) {
  return {
    name: fn.name,
    length: fn.length,
    ownKeys: Reflect.ownKeys(fn),
    properties: Object.fromEntries(
      Reflect.ownKeys(fn)
        .filter((key) => key !== 'prototype')
        .map((key) => {
          const { get, set, ...rest } = Object.getOwnPropertyDescriptor(fn, key)!;
          return [String(key), { ...rest, accessor: get ? get.call(fn) : set ? 'setter' : undefined }];
        }),
    ),
    prototypeProperty: Object.getOwnPropertyDescriptor(fn, 'prototype') ? { ...Object.getOwnPropertyDescriptor(fn, 'prototype'), value: undefined } : undefined,
    functionPrototype: Object.getPrototypeOf(fn),
    extensible: Object.isExtensible(fn),
    metadata: Reflect.getOwnMetadataKeys(fn).map((key) => [key, Reflect.getOwnMetadata(key, fn)]),
  };
}

/** The metadata keyed on the class and the property, but svc's own key (legacy svc writes it there). */
function observeProperty(cls: IdentityClass, key: string) {
  return {
    onPrototype: Reflect.getOwnMetadataKeys(cls.prototype, key)
      .filter((k) => !SVC_KEYS.includes(k))
      .map((k) => [k, Reflect.getOwnMetadata(k, cls.prototype, key)]),
    onConstructor: Reflect.getOwnMetadataKeys(cls, key).map((k) => [k, Reflect.getOwnMetadata(k, cls, key)]),
  };
}

function legacyDecorate(decorators: Any[]): { cls: IdentityClass; originals: Record<string, Any> } {
  const cls = makeClass();
  const originals: Record<string, Any> = {};
  for (const key of METHODS) {
    originals[key] = (cls.prototype as Any)[key];
    const descriptor = Object.getOwnPropertyDescriptor(cls.prototype, key)!;
    Object.defineProperty(cls.prototype, key, Reflect.decorate(decorators, cls.prototype, key, descriptor) as PropertyDescriptor);
  }
  return { cls, originals };
}

describe.each(Object.entries(SVC_METHOD_DECORATORS))('%s', (_label, [svcDecorator, svcKey]) => {
  describe.each(Object.entries(ORDERS))('legacy decorators, %s', (_order, order) => {
    function decorated(withSvc: boolean) {
      const seen: unknown[] = [];
      const svc = svcDecorator();
      const list = order(seen).flatMap((decorator) => (decorator !== 'svc' ? [decorator] : withSvc ? [svc] : []));
      return { ...legacyDecorate(list), seen };
    }

    it.each(METHODS)('%s keeps name, length, own properties, prototype and every reflect-metadata key', (key) => {
      const plain = decorated(false);
      const svc = decorated(true);
      const method = (svc.cls.prototype as Any)[key];
      expect(method).not.toBe(svc.originals[key]); // the svc decorator did wrap it
      expect(observe(method)).toEqual(observe((plain.cls.prototype as Any)[key]));
      expect(observeProperty(svc.cls, key)).toEqual(observeProperty(plain.cls, key));
      expect(Reflect.getOwnMetadata(svcKey, svc.cls.prototype, key)).toBeDefined();
      // A decorator above saw the same method as without svc.
      expect(svc.seen).toEqual(plain.seen);
      if (key === 'rows') expect(method.prototype).toBe(svc.originals.rows.prototype);
    });

    it('the wrapped methods still behave as the methods, with svc active', async () => {
      decoratorRegistry().active = true;
      const { cls } = decorated(true);
      const instance = new cls();
      expect(instance.find('a', 2)).toBe('a:2');
      await expect(instance.save({ id: 'b' }, true)).resolves.toBe('b!');
      expect([...instance.rows(3)]).toEqual([0, 1, 2]);
      expect(cls.prototype.save).toBeInstanceOf(Object.getPrototypeOf(async () => {}).constructor);
    });
  });

  describe.each(['svc above', 'svc below', 'svc between'])('standard decorators, %s', (order) => {
    /** Another standard decorator: marks the function and writes `context.metadata`, as a TC39 framework decorator would. */
    function marks(tag: string): StandardDecorator {
      return (value, context) => {
        context.metadata[`framework:${tag}`] = [...(context.metadata[`framework:${tag}`] ?? []), String(context.name)];
        value[`visible_${tag}`] = tag;
        value[OWN_SYMBOL] = tag;
        Object.defineProperty(value, `hidden_${tag}`, { value: tag, enumerable: false });
        Reflect.defineMetadata(`framework:${tag}`, tag, value);
      };
    }
    /** Another standard decorator that replaces the method, keeping what the method showed. */
    const replaces: StandardDecorator = (value) => {
      const replacement = {
        method(this: unknown, ...args: unknown[]) {
          return value.apply(this, args);
        },
      }.method;
      Object.defineProperties(replacement, { name: { value: value.name }, length: { value: value.length } });
      (replacement as Any).replaced = true;
      return replacement;
    };
    function seenBy(seen: unknown[]): StandardDecorator {
      return (value) => {
        seen.push({ name: value.name, length: value.length, visible: value.visible_low, replaced: value.replaced, keys: Reflect.getOwnMetadataKeys(value) });
      };
    }

    /** Applies decorators (outermost first) the way TC39 decorators are applied to each method of a fresh class. */
    function decorated(withSvc: boolean) {
      const cls = makeClass();
      const seen: unknown[] = [];
      const svc = svcDecorator();
      const list: (StandardDecorator | 'svc')[] =
        order === 'svc above'
          ? [seenBy(seen), 'svc', marks('high'), replaces, marks('low')]
          : order === 'svc below'
            ? [seenBy(seen), marks('high'), replaces, marks('low'), 'svc']
            : [seenBy(seen), marks('high'), 'svc', replaces, marks('low')];
      const metadata: Record<PropertyKey, unknown> = {};
      for (const key of METHODS) {
        let value = (cls.prototype as Any)[key];
        for (const decorator of [...list].reverse()) {
          if (decorator === 'svc' && !withSvc) continue;
          const context = { kind: 'method', name: key, static: false, private: false, metadata, addInitializer: () => {}, access: { has: () => true, get: (o: Any) => o[key] } };
          value = (decorator === 'svc' ? svc : decorator)(value, context) ?? value;
        }
        Object.defineProperty(cls.prototype, key, { value, writable: true, configurable: true, enumerable: false });
      }
      return { cls, seen, metadata };
    }

    it.each(METHODS)('%s keeps name, length, own properties, prototype and reflect-metadata; context.metadata is shared', (key) => {
      const plain = decorated(false);
      const svc = decorated(true);
      expect(observe((svc.cls.prototype as Any)[key])).toEqual(observe((plain.cls.prototype as Any)[key]));
      expect(svc.seen).toEqual(plain.seen);
      const { [svcKey]: operations, ...others } = svc.metadata;
      expect(others).toEqual(plain.metadata);
      expect((operations as { method: string }[]).map((o) => o.method)).toEqual([...METHODS]);
    });

    it('the wrapped methods still behave as the methods, with svc active', async () => {
      decoratorRegistry().active = true;
      const { cls } = decorated(true);
      const instance = new cls();
      expect(instance.find('a', 2)).toBe('a:2');
      await expect(instance.save({ id: 'b' })).resolves.toBe('b');
      expect([...instance.rows(2)]).toEqual([0, 1]);
    });
  });
});

describe('@AgentOperation on what is not a method', () => {
  it('legacy: on an accessor or a field it declares the operation and leaves the member as it is', () => {
    class Holder {
      get total(): number {
        return 5;
      }
      field = 1;
    }
    const accessor = Object.getOwnPropertyDescriptor(Holder.prototype, 'total')!;
    const decorated = Reflect.decorate([AgentOperation({ name: 'holder.total' })], Holder.prototype, 'total', accessor) as PropertyDescriptor;
    expect(decorated).toEqual(accessor);
    expect(Reflect.decorate([AgentOperation({ name: 'holder.field' })], Holder.prototype, 'field')).toBeUndefined();
    expect(decoratorRegistry().operations.has('holder.total')).toBe(true);
    expect(decoratorRegistry().operations.has('holder.field')).toBe(true);
  });

  it('standard: on a field it returns no initializer', () => {
    const context = { kind: 'field', name: 'handler', static: false, private: false, metadata: {}, addInitializer: () => {} };
    expect(AgentOperation({ name: 'holder.handler' })(undefined, context)).toBeUndefined();
  });
});
