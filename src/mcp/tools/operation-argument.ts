/** Checks an `operation_name` argument against the operations svc knows, naming a few when it is unknown. */
import { didYouMean } from '../../config/did-you-mean.js';
import { ToolError } from '../tool-definition.js';
import type { ToolServices } from '../tool-services.js';

export function requireKnownOperation(services: Pick<ToolServices, 'engine' | 'metadata'>, name: string): string {
  const known = new Set([...services.engine.health.operations(), ...services.metadata.operations.names()]);
  if (known.has(name)) return name;
  const suggestion = didYouMean(name, known);
  const some = [...known].slice(0, 10);
  throw new ToolError(
    `unknown operation "${name}"${suggestion ? `; did you mean "${suggestion}"?` : ''}; known operations: ${some.length ? some.join(', ') : 'none yet (no traffic seen)'}${known.size > some.length ? ', ...' : ''}`,
  );
}
