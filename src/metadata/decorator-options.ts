/** Parameters of the decorators, with the spec's annotation defaults noted per field. */
import type { ConsumptionPattern, DependencyCriticality, DependencyType, EscalationLevel, ServiceTier } from '../shared/enums.js';

export interface AgentObservableOptions {
  /** Default: the application name (`OTEL_SERVICE_NAME`, else package.json `name`). */
  readonly service?: string;
  readonly team: string;
  /** Default STANDARD. */
  readonly tier?: ServiceTier;
  readonly domain?: string;
  readonly onCallChannel?: string;
}

export interface AgentOperationOptions {
  /** Operation name; default `Class.method`, or the route of the request the method handles. */
  readonly name?: string;
  /** Duration with suffix ms, s or m. */
  readonly expectedLatencyP50?: string;
  readonly expectedLatencyP99?: string;
  /** Fraction 0.0 to 1.0. Default 0.0. */
  readonly expectedErrorRate?: number;
  /** Default false. */
  readonly retryable?: boolean;
  /** Suggested retry delay in ms. Default 0. */
  readonly retryAfterMs?: number;
  /** Default false. */
  readonly idempotent?: boolean;
  readonly runbookUrl?: string;
  readonly fallbackDescription?: string;
  /** Default NOTIFY_TEAM. */
  readonly escalationLevel?: EscalationLevel;
  /** Default false. */
  readonly safeToRestart?: boolean;
}

export interface DeclareDependencyOptions {
  readonly name: string;
  readonly type: DependencyType;
  /** Default REQUIRED. */
  readonly criticality?: DependencyCriticality;
  readonly protocol?: string;
  readonly timeoutMs?: number;
  readonly circuitBreaker?: boolean;
  readonly fallback?: string;
  readonly healthEndpoint?: string;
}

export interface DeclareConsumerOptions {
  readonly name: string;
  /** Default SYNCHRONOUS. */
  readonly pattern?: ConsumptionPattern;
  readonly slaLatencyMs?: number;
}
