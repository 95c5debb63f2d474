/**
 * Topology on the OpenTelemetry Resource (also when `svc.enabled=false`).
 *
 * Decorators run after the SDK started, yet their topology belongs on the Resource. So the
 * Resource holds promise-valued attributes (exporters wait for them) that `settle` fills once:
 * at the first incoming request, or `settleAfterMs` after start, whichever comes first, with
 * configuration winning over decorators. Decorators that run later still reach span metadata,
 * but not the Resource.
 */
import type { AttributeValue } from '@opentelemetry/api';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import type { TopologyRegistry } from '../metadata/topology-registry.js';
import { RESOURCE } from '../shared/attribute-names.js';

type Value = AttributeValue | undefined;

export class TopologyResource {
  readonly resource: Resource;
  private readonly resolvers = new Map<string, (value: Value) => void>();
  private settled = false;

  constructor() {
    const attributes: Record<string, Promise<Value>> = {};
    for (const key of Object.values(RESOURCE)) {
      if (key === RESOURCE.serviceVersion) continue;
      attributes[key] = new Promise<Value>((resolve) => this.resolvers.set(key, resolve));
    }
    this.resource = resourceFromAttributes(attributes);
  }

  get isSettled(): boolean {
    return this.settled;
  }

  /** Fills the attributes from the registry; later calls do nothing. */
  settle(registry: TopologyRegistry): void {
    if (this.settled) return;
    this.settled = true;
    const { topology } = registry;
    const nonEmpty = (value: string): Value => (value === '' ? undefined : value);
    const names = (items: { name: string }[]): Value => (items.length ? items.map((i) => i.name) : undefined);
    const values: Record<string, Value> = {
      [RESOURCE.serviceName]: topology.service,
      [RESOURCE.team]: nonEmpty(topology.team),
      [RESOURCE.tier]: topology.tier,
      [RESOURCE.domain]: nonEmpty(topology.domain),
      [RESOURCE.onCallChannel]: nonEmpty(topology.onCallChannel),
      [RESOURCE.repoUrl]: nonEmpty(topology.repoUrl),
      [RESOURCE.dependencies]: names(registry.dependencies()),
      [RESOURCE.consumers]: names(registry.consumers()),
    };
    for (const [key, resolve] of this.resolvers) resolve(values[key]);
  }
}
