/**
 * The shared parameter helpers of defineTool (src/mcp/define-tool.ts): every tool that takes an
 * operation name, a format or a page takes it the same way, with the same description, bound and
 * error. Each helper returns a ToolParam: what tools/list shows, whether it is required, and how
 * the handler's value is parsed from the agent's string.
 *
 * @example
 * params: { operation_name: operationName(), format: format(), page: page(), note: text('Free text', { maxLength: 200 }) }
 */
import { didYouMean } from '../config/did-you-mean.js';
import { canonicalOperationName } from '../shared/operation-name.js';
import { PAGE, pageArgument, shownName } from './bounded-output.js';
import type { ToolParam } from './define-tool.js';
import { INPUT_LIMITS } from './input-limits.js';
import { listSome } from './text-layout.js';
import { ToolError } from './tool-definition.js';
import type { ToolServices } from './tool-services.js';

type Value<R extends boolean, T> = R extends true ? T : T | undefined;

interface TextOptions<R extends boolean> {
  /** Default false. A blank value counts as missing. */
  readonly required?: R;
  /** Longest accepted value in characters; default INPUT_LIMITS.argument (8192). */
  readonly maxLength?: number;
}

/** A free string argument, as sent. */
export function text<R extends boolean = false>(description: string, options: TextOptions<R> = {}): ToolParam<Value<R, string>> {
  return {
    type: 'string',
    description,
    required: options.required ?? false,
    ...(options.maxLength !== undefined && { maxLength: options.maxLength }),
    parse: (value) => value as Value<R, string>,
  };
}

/** An id an agent sends back (session, incident, approval): at most INPUT_LIMITS.id characters. */
export function id<R extends boolean = false>(description: string, options: { readonly required?: R } = {}): ToolParam<Value<R, string>> {
  return text(description, { ...options, maxLength: INPUT_LIMITS.id });
}

/** One of a fixed list of values, checked before the handler runs. */
export function oneOf<const V extends string, R extends boolean = false>(values: readonly V[], description: string, options: { readonly required?: R } = {}): ToolParam<Value<R, V>> {
  return { type: 'string', description, enum: values, required: options.required ?? false, parse: (value) => value as Value<R, V> };
}

/** `format`: `text` (the default) or `json` for a structured result. */
export function format(): ToolParam<'text' | 'json'> {
  return {
    type: 'string',
    description: '`text` (default) or `json` for a structured result',
    enum: ['text', 'json'],
    omitted: 'text',
    required: false,
    parse: (value) => (value === 'json' ? 'json' : 'text'),
  };
}

/** `page`: a page of a long answer, from 1 (the default). */
export function page(): ToolParam<number> {
  return { ...PAGE, required: false, parse: (value) => pageArgument(value) };
}

interface OperationNameOptions<R extends boolean> {
  /** Default true. A blank value counts as missing; the message names known operations. */
  readonly required?: R;
  /**
   * Default true: the operation must have had traffic or be declared, else the error suggests
   * the closest known name. With false, the handler gets the canonical name and decides.
   */
  readonly known?: boolean;
}

/**
 * `operation_name`: an operation as get_service_health shows it, in its canonical spelling
 * (`GET /orders/{id}` whichever way the agent wrote it); unknown names get a suggestion.
 */
export function operationName<R extends boolean = true>(options: OperationNameOptions<R> = {}): ToolParam<Value<R, string>> {
  const known = options.known ?? true;
  return {
    type: 'string',
    description: 'Operation name as shown by get_service_health, e.g. "GET /orders/{id}"',
    maxLength: INPUT_LIMITS.operationName,
    required: options.required ?? true,
    whenMissing: ({ services }) => `known operations: ${listSome(services.analysis.operationNames().map(shortName))}`,
    parse: (value, { services }) => {
      const given = value?.trim();
      if (!given) return undefined as Value<R, string>;
      return known ? requireKnownOperation(services, given) : canonicalOperationName(given);
    },
  };
}

/** `given` in the canonical spelling, when some operation has that name; else a ToolError with the closest known name. */
export function requireKnownOperation(services: Pick<ToolServices, 'analysis' | 'metadata' | 'fleet'>, given: string): string {
  const name = canonicalOperationName(given);
  const known = new Set([...services.analysis.operationNames(), ...services.metadata.operations.names(), ...(services.fleet?.current()?.operations ?? [])]);
  if (known.has(name)) return name;
  const suggestion = didYouMean(name, known);
  const some = [...known].slice(0, 10).map(shortName);
  throw new ToolError(
    `unknown operation "${shortName(name)}"${suggestion ? `; did you mean "${shownName(suggestion)}"?` : ''}; known operations: ${some.length ? some.join(', ') : 'none yet (no traffic seen)'}${known.size > some.length ? ', ...' : ''}`,
  );
}

function shortName(name: string): string {
  return shownName(name, 120);
}
