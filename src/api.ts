/**
 * `@svc/register/api`: decorators, enums, and the programmatic API for services that assemble
 * svc themselves instead of (or besides) the preload.
 */
import type { ChangeKind } from './analysis/change-tracker.js';
import type { CircuitState, OpossumLike } from './analysis/circuit-breakers.js';
import type { CustomActionDefinition } from './incidents/remediation.js';
import type { ToolDefinition } from './mcp/tool-definition.js';
import { type CustomToolDefinition, type CustomToolHandler, customTool } from './mcp/tool-registry.js';
import { runtime } from './wiring/runtime.js';

export { type Agent, agent, currentRun } from './agentic/agent.js';
export { AgentMethod, type AgentMethodOptions } from './agentic/agent-method.js';
export type { AgentRun, CostUsage, ToolOptions } from './agentic/agent-run.js';
export { GUARDRAIL_EVENT } from './agentic/agent-run.js';
export type { AgentDefaults, AgentSettings } from './agentic/agent-settings.js';
export { type Guardrail, GuardrailError } from './agentic/guardrail-error.js';
export { BUILT_IN_MODEL_PRICES, type ModelPrice, modelPrice, setModelPrice } from './agentic/model-prices.js';
export type { Detection } from './analysis/analysis-engine.js';
export { type Anomaly, AnomalyDetector } from './analysis/anomaly-detector.js';
export { type Baseline, type BaselineProvider, type BaselineSnapshot, CompositeBaselineProvider, type Confidence, DefaultBaselineProvider, StaticBaselineProvider } from './analysis/baseline.js';
export { type ChangeEntry, type ChangeKind, ChangeTracker } from './analysis/change-tracker.js';
export { type CircuitBreakerStatus, CircuitBreakers, type CircuitState, type OpossumLike } from './analysis/circuit-breakers.js';
export { type Clock, FakeClock, systemClock } from './analysis/clock.js';
export { DependencyHealth, type DependencyState, type DependencyStatus } from './analysis/dependency-health.js';
export type { EventSeverity } from './analysis/emit-event.js';
export { HealthAggregator, type HealthSummary, type OperationHealth, type ServiceStatus } from './analysis/health-aggregator.js';
export type { MinuteStats } from './analysis/minute-history.js';
export { INCIDENT_PATTERNS, type IncidentPattern, PATTERN_DESCRIPTIONS, PatternMatcher, type PatternThresholds } from './analysis/pattern-matcher.js';
export { RollingBaselineProvider } from './analysis/rolling-baseline-provider.js';
export { type SloAlert, type SloCompliance, type SloDefinition, type SloStatus, SloTracker, type SloType } from './analysis/slo-tracker.js';
export { type ConfigProblem, formatProblem, type Source, type SourceKind } from './config/config-source.js';
export { type LoadConfigOptions, type LoadedConfig, loadConfig } from './config/load-config.js';
export { ResolvedConfig, type ResolvedValue } from './config/resolved-config.js';
export { envName, type KeySpec, SCHEMA } from './config/schema.js';
export type { AgentObservableOptions, AgentOperationOptions, DeclareConsumerOptions, DeclareDependencyOptions } from './metadata/decorator-options.js';
export { decoratorRegistry } from './metadata/decorator-registry.js';
export { AgentObservable, AgentOperation, DeclareConsumer, DeclareDependency, METADATA_KEYS } from './metadata/decorators.js';
export { OperationCatalog, type OperationMetadata } from './metadata/operation-catalog.js';
export { ServiceMetadata } from './metadata/service-metadata.js';
export { type Consumer, type Dependency, type Topology, TopologyRegistry } from './metadata/topology-registry.js';
export * as attributes from './shared/attribute-names.js';
export type { Consumption, Criticality, DependencyKind, Escalation, Permission, Tier } from './shared/enums.js';
export { ConsumptionPattern, DependencyCriticality, DependencyType, EscalationLevel, ServiceTier } from './shared/enums.js';
export { CatalogBaselineProvider, Engine, type EngineOptions } from './wiring/service-engine.js';

import type { Engine } from './wiring/service-engine.js';

export { type DeploymentInfo, deploymentFromConfig } from './telemetry/deployment-info.js';
export { EventLog } from './telemetry/event-log.js';
export { SvcSpanProcessor, type SvcSpanProcessorOptions } from './telemetry/span-processor.js';
export { type StartOptions, type Svc, start } from './wiring/start.js';

/** The engine of the running preload (undefined before start or with svc.enabled=false). */
export function currentEngine(): Engine | undefined {
  return runtime().engine;
}

export type { CustomActionDefinition, RemediationContext } from './incidents/remediation.js';
export { sha256Hex } from './mcp/authenticator.js';
export { type ArgumentsOf, defineTool, type ToolParam, type ToolParams, type ToolSpec } from './mcp/define-tool.js';
export type { CallerIdentity, ParameterDefinition, ToolContext, ToolDefinition, ToolResult } from './mcp/tool-definition.js';
export { format, id, oneOf, operationName, page, text } from './mcp/tool-params.js';
export { type CustomToolDefinition, type CustomToolHandler, customTool, ToolRegistry } from './mcp/tool-registry.js';
export { AgentError } from './shared/agent-error.js';

/**
 * Registers a custom MCP tool: it appears in tools/list (announced to connected agents when the
 * server already runs) and obeys permissions. Either a tool made with defineTool, whose handler
 * gets checked and parsed arguments, or a definition in the spec's shape with a handler whose
 * string or object result is shown as text. An AgentError thrown by a handler reaches the agent
 * as an `isError` result with its message.
 *
 * @example
 * registerTool({ name: 'get_queue_depth', description: 'Jobs waiting', permission: 'READ', readOnly: true }, () => `${queue.length} jobs`);
 * registerTool(defineTool({ name: 'get_queue', description: 'One queue', readOnly: true, params: { queue: text('Queue name', { required: true }) }, handler: ({ queue }) => `${depth(queue)} jobs` }));
 */
export function registerTool(tool: ToolDefinition): void;
export function registerTool(definition: CustomToolDefinition, handler: CustomToolHandler): void;
export function registerTool(definition: CustomToolDefinition | ToolDefinition, handler?: CustomToolHandler): void {
  if (handler === undefined && typeof (definition as Partial<ToolDefinition>).handler !== 'function')
    throw new Error(`registerTool: give a tool made with defineTool, or a definition and a handler function (tool "${String(definition.name)}")`);
  runtime().tools.register(handler === undefined ? (definition as ToolDefinition) : customTool(definition as CustomToolDefinition, handler));
}

/** Registers a remediation action agents can list and execute (audited; approval if required). */
export function registerRemediationAction(definition: CustomActionDefinition): void {
  const state = runtime();
  if (state.remediation) state.remediation.registerAction(definition);
  else state.pendingActions.push(definition);
}

/** True while an agent has turned on the operation's fallback (built-in action enable_fallback). */
export function isFallbackEnabled(operation: string): boolean {
  return runtime().remediation?.isFallbackEnabled(operation) ?? false;
}

/** Follows an opossum circuit breaker: its state changes become events and remediation can open/close it. */
export function watchCircuitBreaker(breaker: OpossumLike, options: { dependency: string; name?: string }): void {
  runtime().engine?.circuitBreakers.watchOpossum(breaker, options);
}

/** Reports a circuit breaker state from any breaker library. */
export function reportCircuitBreakerState(name: string, state: CircuitState, details: { failureCount?: number; dependency?: string } = {}): void {
  runtime().engine?.circuitBreakers.report(name, state, details);
}

/** The MCP tool server's URL once it listens (undefined before, or when disabled). */
export function toolServerUrl(): string | undefined {
  return runtime().toolServer?.url;
}

/** Starts the MCP tool server of the running preload (it starts by itself unless svc.mcp.enabled=false); resolves with its URL. */
export async function startToolServer(): Promise<string> {
  const state = runtime();
  if (state.toolServer) return state.toolServer.url;
  if (!state.launchToolServer) throw new Error('svc is not running: start it with node --import @svc/register, or start(), with svc.enabled=true');
  return (await state.launchToolServer()).url;
}

/** Stops the MCP tool server; the service and its telemetry go on. */
export async function stopToolServer(): Promise<void> {
  const state = runtime();
  const server = state.toolServer;
  state.toolServer = undefined;
  await server?.stop();
}

/** Records a deployment or configuration change (a feature flag, a rollout) so incident context can name it as a probable cause. */
export function recordChange(kind: ChangeKind, description: string, details: Record<string, string> = {}): void {
  runtime().engine?.changes.record(kind, description, details);
}
