/**
 * Everything svc knows about the service, from configuration and decorators: topology,
 * dependencies, consumers and operations. Decorators keep arriving while the app's modules
 * load, so the topology is rebuilt when the decorator registry has changed since the last read.
 */
import type { ConfigProblem } from '../config/config-source.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import { type BuiltTopology, buildTopology, type NamingInputs } from './build-topology.js';
import type { DecoratorRegistry } from './decorator-registry.js';
import { OperationCatalog } from './operation-catalog.js';
import type { TopologyRegistry } from './topology-registry.js';

export class ServiceMetadata {
  readonly operations: OperationCatalog;
  private built: BuiltTopology | undefined;
  private builtVersion = -1;

  constructor(
    readonly config: ResolvedConfig,
    readonly decorators: DecoratorRegistry,
    private readonly naming: NamingInputs = {},
    private readonly report: (problem: ConfigProblem) => void = () => {},
    /** A registry filled by hand (svc assembled without the preload); it replaces the built topology. */
    private readonly fixedTopology?: TopologyRegistry,
  ) {
    this.operations = new OperationCatalog(config, decorators, report);
  }

  /** Increments whenever a decorator declares something; consumers rebuild derived caches then. */
  get version(): number {
    return this.decorators.version;
  }

  topology(): BuiltTopology {
    if (this.fixedTopology) return { registry: this.fixedTopology, sources: new Map(), problems: [] };
    if (!this.built || this.builtVersion !== this.decorators.version) {
      this.builtVersion = this.decorators.version;
      this.built = buildTopology(this.config, this.decorators, this.naming);
      for (const problem of this.built.problems) this.report(problem);
    }
    return this.built;
  }
}
