/**
 * `@svc/register/api`: decorators, enums, and the programmatic API for services that assemble
 * svc themselves instead of (or besides) the preload.
 */
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
