/**
 * `@svc/register/api`: decorators, enums, and the programmatic API for services that assemble
 * svc themselves instead of (or besides) the preload.
 */
import type { Engine } from './analysis/engine.js';
import { runtime } from './runtime.js';

export { AgentObservable, AgentOperation, DeclareConsumer, DeclareDependency, METADATA_KEYS } from './metadata/decorators.js';
export type { AgentObservableOptions, AgentOperationOptions, DeclareConsumerOptions, DeclareDependencyOptions } from './metadata/decorator-options.js';
export { ConsumptionPattern, DependencyCriticality, DependencyType, EscalationLevel, ServiceTier } from './enums.js';
export type { Consumption, Criticality, DependencyKind, Escalation, Permission, Tier } from './enums.js';

export { start, type StartOptions, type Svc } from './start.js';
export { loadConfig, type LoadConfigOptions, type LoadedConfig } from './config/load-config.js';
export { ResolvedConfig, type ResolvedValue } from './config/resolved-config.js';
export { SCHEMA, envName, type KeySpec } from './config/schema.js';
export { formatProblem, type ConfigProblem, type Source, type SourceKind } from './config/config-source.js';

export { TopologyRegistry, type Consumer, type Dependency, type Topology } from './metadata/topology-registry.js';
export { OperationCatalog, type OperationMetadata } from './metadata/operation-catalog.js';
export { ServiceMetadata } from './metadata/service-metadata.js';
export { decoratorRegistry } from './metadata/decorator-registry.js';

export { SvcSpanProcessor, type SvcSpanProcessorOptions } from './telemetry/span-processor.js';
export { EventLog, type EventSeverity } from './telemetry/event-log.js';
export { deploymentFromConfig, type DeploymentInfo } from './telemetry/deployment-info.js';
export * as attributes from './telemetry/attribute-names.js';

export { Engine, CatalogBaselineProvider, type Detection, type EngineOptions } from './analysis/engine.js';
export { FakeClock, systemClock, type Clock } from './analysis/clock.js';
export { CompositeBaselineProvider, DefaultBaselineProvider, StaticBaselineProvider, type Baseline, type BaselineProvider, type BaselineSnapshot, type Confidence } from './analysis/baseline.js';
export { RollingBaselineProvider } from './analysis/rolling-baseline-provider.js';
export { AnomalyDetector, type Anomaly, type AnomalyMode } from './analysis/anomaly-detector.js';
export { PatternMatcher, INCIDENT_PATTERNS, PATTERN_DESCRIPTIONS, type IncidentPattern, type PatternThresholds } from './analysis/pattern-matcher.js';
export { SloTracker, type SloAlert, type SloDefinition, type SloStatus, type SloType, type SloCompliance } from './analysis/slo-tracker.js';
export { HealthAggregator, type HealthSummary, type OperationHealth, type ServiceStatus } from './analysis/health-aggregator.js';
export { DependencyHealth, type DependencyState, type DependencyStatus } from './analysis/dependency-health.js';
export { CircuitBreakers, type CircuitState, type CircuitBreakerStatus, type OpossumLike } from './analysis/circuit-breakers.js';
export { ChangeTracker, type ChangeEntry, type ChangeKind } from './analysis/change-tracker.js';
export type { MinuteStats } from './analysis/minute-history.js';

/** The engine of the running preload (undefined before start or with svc.enabled=false). */
export function currentEngine(): Engine | undefined {
  return runtime().engine;
}
