/**
 * Checks the `operation_name` and `format` arguments the same way in every tool that takes them.
 * Errors name a few known operations (names cut at 120 characters), never all of them.
 */

import { didYouMean } from '../../config/did-you-mean.js';
import { canonicalOperationName } from '../../operation-name.js';
import { shownName } from '../bounded-output.js';
import { listSome } from '../text-layout.js';
import { ToolError } from '../tool-definition.js';
import type { ToolServices } from '../tool-services.js';

/** The trimmed `operation_name`; when empty, an error naming operations that have traffic. */
export function operationNameArgument(services: Pick<ToolServices, 'engine'>, value: string | undefined): string {
  const operation = value?.trim();
  if (!operation) throw new ToolError(`operation_name is required; known operations: ${listSome(services.engine.health.operations().map(shortName))}`);
  return canonicalOperationName(operation);
}

/** The `format` argument: `text` (default) or `json`. */
export function formatArgument(value: string | undefined): 'text' | 'json' {
  const format = value ?? 'text';
  if (format !== 'text' && format !== 'json') throw new ToolError(`format must be text or json; got "${format}" (omit it for text)`);
  return format;
}

/** `given` in the canonical spelling (`{id}`, whichever way the agent wrote it), when some operation has that name. */
export function requireKnownOperation(services: Pick<ToolServices, 'engine' | 'metadata'>, given: string): string {
  const name = canonicalOperationName(given);
  const known = new Set([...services.engine.health.operations(), ...services.metadata.operations.names()]);
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
