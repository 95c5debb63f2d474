/**
 * Maps a client span to a dependency (DESIGN "Names"): a declared dependency whose name equals
 * (case-insensitively) `peer.service`, `server.address`, `db.system.name`, `db.system`,
 * `db.namespace`, `messaging.system` or `rpc.service`, or whose `health-endpoint` has the span's
 * host and port. Other client spans are undeclared dependencies, named after the first of those
 * attributes (host:port for plain HTTP), tracked up to `limits.max-dependencies`.
 */
import type { Attributes } from '@opentelemetry/api';
import type { Dependency } from '../metadata/topology-registry.js';
import { DEPENDENCY, SEMCONV } from '../shared/attribute-names.js';

export interface MatchedDependency {
  readonly name: string;
  readonly declared: Dependency | undefined;
  /** The `svc.dependency.*` attributes, built once. */
  readonly attributes: Attributes;
}

const NAME_ATTRIBUTES = [SEMCONV.peerService, SEMCONV.serverAddress, SEMCONV.dbSystemName, SEMCONV.dbSystem, SEMCONV.dbNamespace, SEMCONV.messagingSystem, SEMCONV.rpcService] as const;

/** Attributes that name an undeclared dependency better than its address does. */
const UNDECLARED_NAME_ATTRIBUTES = [SEMCONV.peerService, SEMCONV.dbSystemName, SEMCONV.dbSystem, SEMCONV.messagingSystem, SEMCONV.rpcService] as const;

const MAX_MEMOISED_LOOKUPS = 1000;
const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * A declared dependency's attributes. Optional text left unset (protocol, fallback: "" by
 * default) is left out rather than exported empty: an absent attribute reads as "not declared".
 */
function declaredAttributes(dependency: Dependency): Attributes {
  const attributes: Attributes = {
    [DEPENDENCY.name]: dependency.name,
    [DEPENDENCY.declared]: true,
    [DEPENDENCY.type]: dependency.type,
    [DEPENDENCY.criticality]: dependency.criticality,
    [DEPENDENCY.timeoutMs]: dependency.timeoutMs,
    [DEPENDENCY.circuitBreaker]: dependency.circuitBreaker,
  };
  if (dependency.protocol) attributes[DEPENDENCY.protocol] = dependency.protocol;
  if (dependency.fallback) attributes[DEPENDENCY.fallback] = dependency.fallback;
  return Object.freeze(attributes);
}

export class DependencyMatcher {
  private readonly byName = new Map<string, MatchedDependency>();
  private readonly lookups = new Map<string, MatchedDependency | null>();
  private readonly byEndpoint = new Map<string, Map<string, MatchedDependency>>();
  private readonly undeclared = new Map<string, MatchedDependency>();
  /** Undeclared dependencies known by address, so a repeat call builds no `host:port` string. */
  private readonly undeclaredByAddress = new Map<string, Map<unknown, MatchedDependency>>();
  private readonly overflow: MatchedDependency;
  private overflowCount = 0;

  constructor(
    dependencies: readonly Dependency[],
    private readonly maxUndeclared: number,
    private readonly onOverflow: (count: number) => void = () => {},
  ) {
    for (const dependency of dependencies) {
      const matched: MatchedDependency = { name: dependency.name, declared: dependency, attributes: declaredAttributes(dependency) };
      this.byName.set(dependency.name.toLowerCase(), matched);
      const endpoint = parseEndpoint(dependency.healthEndpoint);
      if (endpoint) {
        let ports = this.byEndpoint.get(endpoint.host);
        if (!ports) this.byEndpoint.set(endpoint.host, (ports = new Map()));
        // keyed by the string and the number, as instrumentations write either
        ports.set(endpoint.port, matched);
        ports.set(Number(endpoint.port) as unknown as string, matched);
      }
    }
    this.overflow = { name: 'undeclared-overflow', declared: undefined, attributes: Object.freeze({ [DEPENDENCY.name]: 'undeclared-overflow', [DEPENDENCY.declared]: false }) };
  }

  /** Every undeclared dependency seen so far. */
  undeclaredNames(): string[] {
    return [...this.undeclared.keys()];
  }

  match(attributes: Attributes): MatchedDependency | undefined {
    for (const key of NAME_ATTRIBUTES) {
      const value = attributes[key];
      if (typeof value !== 'string') continue;
      const found = this.declaredNamed(value);
      if (found) return found;
    }
    const host = attributes[SEMCONV.serverAddress];
    const port = attributes[SEMCONV.serverPort];
    if (typeof host === 'string' && port !== undefined) {
      const found = this.byEndpoint.get(host)?.get(port as string);
      if (found) return found;
    }
    return this.trackUndeclared(attributes, host, port);
  }

  /** Case-insensitive lookup, memoised per raw value so the common case allocates nothing. */
  private declaredNamed(value: string): MatchedDependency | undefined {
    const cached = this.lookups.get(value);
    if (cached !== undefined) return cached ?? undefined;
    const found = this.byName.get(value.toLowerCase());
    if (this.lookups.size < MAX_MEMOISED_LOOKUPS) this.lookups.set(value, found ?? null);
    return found;
  }

  private trackUndeclared(attributes: Attributes, host: unknown, port: unknown): MatchedDependency | undefined {
    let name: string | undefined;
    for (const key of UNDECLARED_NAME_ATTRIBUTES) {
      const value = attributes[key];
      if (typeof value === 'string' && value !== '') {
        name = value;
        break;
      }
    }
    // An empty address names nothing: no dependency called "" (or ":443").
    if (name === undefined && typeof host === 'string' && host !== '') {
      const known = this.undeclaredByAddress.get(host)?.get(port);
      if (known) return known;
      name = port === undefined ? host : `${host}:${port}`;
      const matched = this.undeclaredNamed(name);
      if (matched !== this.overflow) {
        let ports = this.undeclaredByAddress.get(host);
        if (!ports) this.undeclaredByAddress.set(host, (ports = new Map()));
        ports.set(port, matched);
      }
      return matched;
    }
    return name === undefined ? undefined : this.undeclaredNamed(name);
  }

  private undeclaredNamed(name: string): MatchedDependency {
    const known = this.undeclared.get(name);
    if (known) return known;
    if (this.undeclared.size >= this.maxUndeclared) {
      this.onOverflow(++this.overflowCount);
      return this.overflow;
    }
    const matched: MatchedDependency = { name, declared: undefined, attributes: Object.freeze({ [DEPENDENCY.name]: name, [DEPENDENCY.declared]: false }) };
    this.undeclared.set(name, matched);
    return matched;
  }
}

function parseEndpoint(endpoint: string): { host: string; port: string } | undefined {
  if (!endpoint) return undefined;
  try {
    const url = new URL(endpoint);
    return { host: url.hostname, port: url.port || DEFAULT_PORTS[url.protocol] || '' };
  } catch {
    return undefined;
  }
}
