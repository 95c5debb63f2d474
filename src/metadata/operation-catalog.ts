/**
 * Operation metadata resolved per property (rules 5 and 6): configuration, then `@AgentOperation`,
 * then the profile the operation names, then hardcoded defaults. The hardcoded defaults are the
 * annotation defaults for a decorated operation and the configuration defaults otherwise (the
 * spec gives both tables). Each result is frozen and cached until a decorator adds something.
 */
import type { ConfigProblem, Source } from '../config/config-source.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import { integerType, ValueError } from '../config/value-types.js';
import type { Escalation } from '../shared/enums.js';
import { canonicalOperationName } from '../shared/operation-name.js';
import { decoratorValue } from './build-topology.js';
import type { AgentOperationOptions } from './decorator-options.js';
import type { DecoratorRegistry } from './decorator-registry.js';

export interface OperationMetadata {
  readonly name: string;
  /** True when configuration or a decorator knows this operation. */
  readonly declared: boolean;
  readonly profile: string | undefined;
  readonly expectedLatencyP50Ms: number | undefined;
  readonly expectedLatencyP99Ms: number | undefined;
  /** Undefined when unset (-1): no error-rate anomaly detection for the operation (rule 9). */
  readonly expectedErrorRate: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number;
  readonly idempotent: boolean;
  readonly runbookUrl: string;
  readonly fallbackDescription: string;
  readonly escalationLevel: Escalation;
  readonly safeToRestart: boolean;
  /** Where each property's value came from. */
  readonly sources: Readonly<Record<string, Source>>;
}

type Field = Exclude<keyof OperationMetadata, 'name' | 'declared' | 'profile' | 'sources'>;

interface FieldRule {
  readonly field: Field;
  /** Configuration key under `operations.<name>.`; undefined for annotation-only fields. */
  readonly key: string | undefined;
  readonly parameter: keyof AgentOperationOptions;
  readonly inProfile: boolean;
  readonly annotationDefault: unknown;
  readonly configDefault: unknown;
}

const RULES: readonly FieldRule[] = [
  { field: 'expectedLatencyP50Ms', key: 'expected-latency-p50', parameter: 'expectedLatencyP50', inProfile: false, annotationDefault: undefined, configDefault: undefined },
  { field: 'expectedLatencyP99Ms', key: 'expected-latency-p99', parameter: 'expectedLatencyP99', inProfile: false, annotationDefault: undefined, configDefault: undefined },
  { field: 'expectedErrorRate', key: 'expected-error-rate', parameter: 'expectedErrorRate', inProfile: false, annotationDefault: 0, configDefault: -1 },
  { field: 'retryable', key: 'retryable', parameter: 'retryable', inProfile: true, annotationDefault: false, configDefault: false },
  { field: 'retryAfterMs', key: undefined, parameter: 'retryAfterMs', inProfile: false, annotationDefault: 0, configDefault: 0 },
  { field: 'idempotent', key: 'idempotent', parameter: 'idempotent', inProfile: true, annotationDefault: false, configDefault: false },
  { field: 'runbookUrl', key: 'runbook-url', parameter: 'runbookUrl', inProfile: true, annotationDefault: '', configDefault: '' },
  { field: 'fallbackDescription', key: 'fallback-description', parameter: 'fallbackDescription', inProfile: true, annotationDefault: '', configDefault: '' },
  { field: 'escalationLevel', key: 'escalation-level', parameter: 'escalationLevel', inProfile: true, annotationDefault: 'notify_team', configDefault: 'auto_resolve' },
  { field: 'safeToRestart', key: 'safe-to-restart', parameter: 'safeToRestart', inProfile: true, annotationDefault: false, configDefault: true },
];

const retryAfterType = integerType(0, 86_400_000);

export class OperationCatalog {
  private readonly cache = new Map<string, OperationMetadata>();
  private cachedVersion: number;
  private overflowReported = false;
  private readonly maxOperations: number;

  constructor(
    private readonly config: ResolvedConfig,
    private readonly decorators: DecoratorRegistry,
    /** Receives problems found in decorator values or profile references, once per operation. */
    private readonly report: (problem: ConfigProblem) => void = () => {},
  ) {
    this.cachedVersion = decorators.version;
    this.maxOperations = config.get<number>('limits.max-operations');
  }

  /** Names known from configuration (operations and SLOs) and decorators, in the canonical spelling. */
  names(): string[] {
    const sloOperations = this.config.names('slos').map((slo) => this.config.member<string>('slos', slo, 'operation-name')!.value);
    return [...new Set([...this.config.names('operations'), ...sloOperations, ...this.decorators.operations.keys()].map(canonicalOperationName))];
  }

  /** The `operations.<key>` of the configuration spelling `name` either way (`{id}` or `:id`). */
  private configKeyOf(name: string): string | undefined {
    return this.config.names('operations').find((key) => key === name || canonicalOperationName(key) === name);
  }

  private declarationOf(name: string): { options: AgentOperationOptions; where: string } | undefined {
    const exact = this.decorators.operations.get(name);
    if (exact) return exact;
    for (const [declared, declaration] of this.decorators.operations) if (canonicalOperationName(declared) === name) return declaration;
    return undefined;
  }

  /**
   * Metadata of `name`. `handler` is the decorated operation that marked the request, used when
   * no decorator declared `name` itself.
   */
  resolve(name: string, handler?: string): OperationMetadata {
    if (this.cachedVersion !== this.decorators.version) {
      this.cache.clear();
      this.cachedVersion = this.decorators.version;
    }
    const cacheKey = handler === undefined || handler === name ? name : `${name}\u0000${handler}`;
    let found = this.cache.get(cacheKey);
    if (found) return found;
    found = this.build(name, handler);
    if (this.cache.size < this.maxOperations) this.cache.set(cacheKey, found);
    else if (!this.overflowReported) {
      this.overflowReported = true;
      this.report({ level: 'warning', key: 'svc.limits.max-operations', where: 'runtime', message: `more than ${this.maxOperations} distinct operations; further ones are resolved without caching` });
    }
    return found;
  }

  private build(given: string, handler: string | undefined): OperationMetadata {
    const problems: ConfigProblem[] = [];
    const name = canonicalOperationName(given);
    const declaration = this.declarationOf(name) ?? (handler ? this.decorators.operations.get(handler) : undefined);
    const configKey = this.configKeyOf(name);
    const configured = configKey !== undefined;
    const profileName = configKey === undefined ? undefined : this.config.member<string>('operations', configKey, 'profile');
    const profile = profileName?.value;
    if (profile !== undefined && !this.config.names('profiles').includes(profile)) {
      problems.push({
        level: 'warning',
        key: `svc.operations.[${configKey}].profile`,
        where: profileName!.source.where,
        message: `no profile named "${profile}" under svc.profiles; only defaults apply`,
      });
    }

    const values: Record<string, unknown> = {};
    const sources: Record<string, Source> = {};
    for (const rule of RULES) {
      const [value, source] = this.resolveField(rule, configKey, profile, declaration, problems);
      values[rule.field] = value;
      sources[rule.field] = source;
    }
    for (const problem of problems) this.report(problem);
    if (values.expectedErrorRate === -1) values.expectedErrorRate = undefined;
    return Object.freeze({ name, declared: configured || declaration !== undefined, profile, ...values, sources: Object.freeze(sources) }) as OperationMetadata;
  }

  private resolveField(
    rule: FieldRule,
    configKey: string | undefined,
    profile: string | undefined,
    declaration: { options: AgentOperationOptions; where: string } | undefined,
    problems: ConfigProblem[],
  ): [unknown, Source] {
    if (rule.key && configKey !== undefined) {
      const configured = this.config.member('operations', configKey, rule.key);
      if (configured) return [configured.value, configured.source];
    }
    const given = declaration?.options[rule.parameter];
    if (declaration && given !== undefined) {
      const parameter = `@AgentOperation.${rule.parameter}`;
      const value = rule.key ? decoratorValue(`operations.*.${rule.key}`, given, declaration.where, parameter, problems) : parseRetryAfter(given, declaration.where, parameter, problems);
      if (value !== undefined) return [value, { kind: 'decorator', where: declaration.where }];
    }
    if (rule.inProfile && profile !== undefined) {
      const fromProfile = this.config.member('profiles', profile, rule.key);
      if (fromProfile) return [fromProfile.value, { kind: 'profile', where: `profile ${profile} (${fromProfile.source.where})` }];
    }
    return [declaration ? rule.annotationDefault : rule.configDefault, { kind: 'default', where: declaration ? 'annotation default' : 'default' }];
  }
}

function parseRetryAfter(value: unknown, where: string, parameter: string, problems: ConfigProblem[]): number | undefined {
  try {
    return retryAfterType.parse(value);
  } catch (error) {
    if (!(error instanceof ValueError)) throw error;
    problems.push({ level: 'error', key: parameter, where, message: `${error.message}; accepted: ${retryAfterType.accepts}; ignored` });
    return undefined;
  }
}
