/**
 * The service's topology, dependencies and consumers (the spec's "Topology registry" component).
 * Filled from configuration and decorators by `buildTopology`, or by hand when svc is assembled
 * without the preload.
 */
import type { Consumption, Criticality, DependencyKind, Tier } from '../shared/enums.js';

export interface Topology {
  readonly service: string;
  readonly team: string;
  readonly tier: Tier;
  readonly domain: string;
  readonly onCallChannel: string;
  readonly repoUrl: string;
}

export interface Dependency {
  readonly name: string;
  readonly type: DependencyKind;
  readonly criticality: Criticality;
  readonly protocol: string;
  readonly timeoutMs: number;
  readonly circuitBreaker: boolean;
  readonly fallback: string;
  readonly healthEndpoint: string;
}

export interface Consumer {
  readonly name: string;
  readonly pattern: Consumption;
  readonly slaLatencyMs: number;
}

export type DependencyInput = Pick<Dependency, 'name' | 'type' | 'criticality'> & Partial<Dependency>;
export type ConsumerInput = Pick<Consumer, 'name'> & Partial<Consumer>;

export class TopologyRegistry {
  private current: Topology = { service: '', team: '', tier: 'standard', domain: '', onCallChannel: '', repoUrl: '' };
  private readonly dependencyByName = new Map<string, Dependency>();
  private readonly consumerByName = new Map<string, Consumer>();

  get topology(): Topology {
    return this.current;
  }

  setService(service: string): this {
    return this.update({ service });
  }
  setTeam(team: string): this {
    return this.update({ team });
  }
  setTier(tier: Tier): this {
    return this.update({ tier });
  }
  setDomain(domain: string): this {
    return this.update({ domain });
  }
  setOnCallChannel(onCallChannel: string): this {
    return this.update({ onCallChannel });
  }
  setRepoUrl(repoUrl: string): this {
    return this.update({ repoUrl });
  }

  private update(change: Partial<Topology>): this {
    this.current = Object.freeze({ ...this.current, ...change });
    return this;
  }

  /** Registers (or replaces, by case-insensitive name) a dependency. */
  registerDependency(input: DependencyInput): Dependency {
    const dependency: Dependency = Object.freeze({ protocol: '', timeoutMs: 0, circuitBreaker: false, fallback: '', healthEndpoint: '', ...input });
    this.dependencyByName.set(input.name.toLowerCase(), dependency);
    return dependency;
  }

  registerConsumer(input: ConsumerInput): Consumer {
    const consumer: Consumer = Object.freeze({ pattern: 'synchronous', slaLatencyMs: 0, ...input });
    this.consumerByName.set(input.name.toLowerCase(), consumer);
    return consumer;
  }

  dependencies(): Dependency[] {
    return [...this.dependencyByName.values()];
  }

  consumers(): Consumer[] {
    return [...this.consumerByName.values()];
  }

  dependency(name: string): Dependency | undefined {
    return this.dependencyByName.get(name.toLowerCase());
  }
}
