/** What tool handlers read and act on: the analysis engine and the service's metadata. */
import type { Engine } from '../analysis/engine.js';
import type { ServiceMetadata } from '../metadata/service-metadata.js';

export interface ToolServices {
  readonly engine: Engine;
  readonly metadata: ServiceMetadata;
}
