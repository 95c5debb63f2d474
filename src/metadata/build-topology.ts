/**
 * Topology, dependencies and consumers from configuration and decorators: configuration wins per
 * property where a source (property, env or file) gave it; decorator values fill the rest;
 * defaults last. Decorator values are checked with the same types as configuration.
 */

import type { ConfigProblem, Source } from '../config/config-source.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import { keySpec } from '../config/schema.js';
import { ValueError } from '../config/value-types.js';
import type { Tier } from '../shared/enums.js';
import type { DecoratorRegistry } from './decorator-registry.js';
import { type Consumer, type Dependency, TopologyRegistry } from './topology-registry.js';

/** Parses a decorator parameter with the type of its configuration key; bad values are reported and dropped. */
export function decoratorValue<T>(path: string, value: unknown, where: string, parameter: string, problems: ConfigProblem[]): T | undefined {
  if (value === undefined) return undefined;
  const spec = keySpec(path);
  try {
    return spec.type.parse(value) as T;
  } catch (error) {
    if (!(error instanceof ValueError)) throw error;
    problems.push({ level: 'error', key: parameter, where, message: `${error.message}; accepted: ${spec.type.accepts}; ignored` });
    return undefined;
  }
}

export interface NamingInputs {
  /** `OTEL_SERVICE_NAME` (or `service.name` in `OTEL_RESOURCE_ATTRIBUTES`): configuration, so it wins. */
  readonly configuredServiceName?: string;
  /** The application's own name (package.json `name`), the fallback of the spec. */
  readonly applicationName?: string;
}

export interface BuiltTopology {
  readonly registry: TopologyRegistry;
  readonly sources: ReadonlyMap<string, Source>;
  readonly problems: ConfigProblem[];
}

const TOPOLOGY_FIELDS = [
  ['team', 'topology.team', 'team'],
  ['tier', 'topology.tier', 'tier'],
  ['domain', 'topology.domain', 'domain'],
  ['onCallChannel', 'topology.on-call-channel', 'onCallChannel'],
  ['repoUrl', 'topology.repo-url', undefined],
] as const;

const DEPENDENCY_FIELDS = [
  ['type', 'type', 'type'],
  ['criticality', 'criticality', 'criticality'],
  ['protocol', 'protocol', 'protocol'],
  ['timeoutMs', 'timeout-ms', 'timeoutMs'],
  ['circuitBreaker', 'circuit-breaker', 'circuitBreaker'],
  ['fallback', 'fallback', 'fallback'],
  ['healthEndpoint', 'health-endpoint', 'healthEndpoint'],
] as const;

const CONSUMER_FIELDS = [
  ['pattern', 'pattern', 'pattern'],
  ['slaLatencyMs', 'sla-latency-ms', 'slaLatencyMs'],
] as const;

export function buildTopology(config: ResolvedConfig, decorators: DecoratorRegistry, naming: NamingInputs = {}): BuiltTopology {
  const registry = new TopologyRegistry();
  const sources = new Map<string, Source>();
  const problems: ConfigProblem[] = [];
  const declared = decorators.observable;

  const service = naming.configuredServiceName || declared?.options.service || naming.applicationName || 'unknown_service:node';
  registry.setService(service);
  for (const [field, path, parameter] of TOPOLOGY_FIELDS) {
    const configured = config.resolved<string>(path);
    const fromDecorator = parameter && declared ? decoratorValue<string>(path, declared.options[parameter], declared.where, `@AgentObservable.${parameter}`, problems) : undefined;
    // A rejected configured value takes the default; the decorator does not step in for it.
    const useDecorator = configured.source.kind === 'default' && !config.isRejected(path) && fromDecorator !== undefined;
    const value = useDecorator ? fromDecorator : configured.value;
    sources.set(`topology.${field}`, useDecorator ? { kind: 'decorator', where: declared!.where } : configured.source);
    if (field === 'tier') registry.setTier(value as Tier);
    else if (field === 'team') registry.setTeam(value);
    else if (field === 'domain') registry.setDomain(value);
    else if (field === 'onCallChannel') registry.setOnCallChannel(value);
    else registry.setRepoUrl(value);
  }

  for (const dependency of mergeByName(config, 'dependencies', decorators.dependencies, DEPENDENCY_FIELDS, '@DeclareDependency', problems)) {
    registry.registerDependency({ criticality: 'required', ...dependency } as Dependency);
  }
  for (const consumer of mergeByName(config, 'consumers', decorators.consumers, CONSUMER_FIELDS, '@DeclareConsumer', problems)) {
    registry.registerConsumer(consumer as unknown as Consumer);
  }
  return { registry, sources, problems };
}

type FieldTable = readonly (readonly [string, string, string])[];

/**
 * Merges configured list items with decorator declarations of the same (case-insensitive) name.
 * Configured fields win; a decorator-only entry is added as declared.
 */
function mergeByName(
  config: ResolvedConfig,
  list: 'dependencies' | 'consumers',
  declarations: readonly { options: object; where: string }[],
  fields: FieldTable,
  decoratorName: string,
  problems: ConfigProblem[],
): Record<string, unknown>[] {
  const merged = new Map<string, Record<string, unknown>>();
  for (const declaration of declarations) {
    const options = declaration.options as Record<string, unknown>;
    const name = decoratorValue<string>(`${list}[].name`, options.name, declaration.where, `${decoratorName}.name`, problems);
    if (!name) continue;
    const entry: Record<string, unknown> = { name };
    for (const [field, key, parameter] of fields) {
      const value = decoratorValue(`${list}[].${key}`, options[parameter], declaration.where, `${decoratorName}.${parameter}`, problems);
      if (value !== undefined) entry[field] = value;
    }
    merged.set(name.toLowerCase(), entry);
  }
  for (let index = 0; index < config.listLength(list); index++) {
    const name = config.member<string>(list, index, 'name')?.value;
    if (name === undefined) continue;
    const entry = merged.get(name.toLowerCase()) ?? { name };
    for (const [field, key] of fields) {
      const configured = config.member(list, index, key);
      if (configured) entry[field] = configured.value;
      else if (entry[field] === undefined && keySpec(`${list}[].${key}`).default !== undefined) entry[field] = keySpec(`${list}[].${key}`).default;
    }
    merged.set(name.toLowerCase(), entry);
  }
  return [...merged.values()];
}
