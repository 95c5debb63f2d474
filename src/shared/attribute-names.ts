/**
 * Every attribute name svc writes, in one place: `svc.*` as in the spec and OTel semantic
 * conventions where one exists. Resource attributes carry topology; span attributes carry
 * operation, dependency, baseline, deployment, anomaly and SLO context.
 */
export const RESOURCE = {
  serviceName: 'service.name',
  serviceVersion: 'service.version',
  team: 'svc.topology.team',
  tier: 'svc.topology.tier',
  domain: 'svc.topology.domain',
  onCallChannel: 'svc.topology.on_call_channel',
  repoUrl: 'svc.topology.repo_url',
  dependencies: 'svc.topology.dependencies',
  consumers: 'svc.topology.consumers',
} as const;

export const OPERATION = {
  name: 'svc.operation.name',
  retryable: 'svc.operation.retryable',
  retryAfterMs: 'svc.operation.retry_after_ms',
  idempotent: 'svc.operation.idempotent',
  runbookUrl: 'svc.operation.runbook_url',
  fallbackDescription: 'svc.operation.fallback_description',
  escalationLevel: 'svc.operation.escalation_level',
  safeToRestart: 'svc.operation.safe_to_restart',
  profile: 'svc.operation.profile',
} as const;

export const BASELINE = {
  latencyP50Ms: 'svc.baseline.latency_p50_ms',
  latencyP99Ms: 'svc.baseline.latency_p99_ms',
  errorRate: 'svc.baseline.error_rate',
  source: 'svc.baseline.source',
} as const;

export const DEPENDENCY = {
  name: 'svc.dependency.name',
  declared: 'svc.dependency.declared',
  type: 'svc.dependency.type',
  criticality: 'svc.dependency.criticality',
  protocol: 'svc.dependency.protocol',
  timeoutMs: 'svc.dependency.timeout_ms',
  circuitBreaker: 'svc.dependency.circuit_breaker',
  fallback: 'svc.dependency.fallback',
} as const;

export const DEPLOYMENT = {
  id: 'svc.deployment.id',
  version: 'svc.deployment.version',
  commitSha: 'svc.deployment.commit_sha',
  previousVersion: 'svc.deployment.previous_version',
  strategy: 'svc.deployment.strategy',
  timestamp: 'svc.deployment.timestamp',
} as const;

export const ANOMALY = {
  detected: 'svc.anomaly.detected',
  pattern: 'svc.anomaly.pattern',
  score: 'svc.anomaly.score',
  latencyZScore: 'svc.anomaly.latency_z_score',
} as const;

export const SLO = {
  name: 'svc.slo.name',
  target: 'svc.slo.target',
  budgetRemaining: 'svc.slo.budget_remaining',
  burnRate: 'svc.slo.burn_rate',
} as const;

export const EVENT_NAME = 'event.name';

/** Attributes of other instrumentations that svc reads (stable HTTP, DB, messaging, RPC conventions). */
export const SEMCONV = {
  httpMethod: 'http.request.method',
  httpRoute: 'http.route',
  urlPath: 'url.path',
  httpStatusCode: 'http.response.status_code',
  httpTarget: 'http.target',
  peerService: 'peer.service',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  dbSystemName: 'db.system.name',
  dbSystem: 'db.system',
  dbNamespace: 'db.namespace',
  messagingSystem: 'messaging.system',
  rpcService: 'rpc.service',
} as const;

/**
 * OpenTelemetry GenAI semantic conventions (Development status) for agents inside the app: the
 * `invoke_agent` and `execute_tool` spans of semantic conventions v1.41.0
 * (docs/gen-ai/gen-ai-agent-spans.md), the names of `@opentelemetry/semantic-conventions`
 * 1.45.0's incubating constants (test/agentic/semconv-names.test.ts compares them).
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  agentName: 'gen_ai.agent.name',
  agentId: 'gen_ai.agent.id',
  agentVersion: 'gen_ai.agent.version',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
} as const;

/** Values of `gen_ai.operation.name`. */
export const GEN_AI_OPERATION = {
  invokeAgent: 'invoke_agent',
  executeTool: 'execute_tool',
  runGuardrail: 'run_guardrail',
} as const;

/**
 * The guardrail attributes of the GenAI conventions' development draft
 * (open-telemetry/semantic-conventions-genai, docs/gen-ai/gen-ai-security.md, `run_guardrail`
 * span): not in any released version yet, so svc writes them only on its `run_guardrail` span of a
 * stopped step, beside its own `svc.agent.guardrail.*` (docs/agentic.md).
 */
export const GEN_AI_GUARDRAIL = {
  componentName: 'gen_ai.guardrail.component.name',
  targetType: 'gen_ai.guardrail.target.type',
  targetSubtype: 'gen_ai.guardrail.target.subtype',
  targetId: 'gen_ai.guardrail.target.id',
  verdictType: 'gen_ai.guardrail.verdict.type',
  verdictReason: 'gen_ai.guardrail.verdict.reason',
  actionType: 'gen_ai.guardrail.action.type',
  policyId: 'gen_ai.guardrail.security.policy.id',
} as const;

/** svc's own agent attributes, where the GenAI conventions have none. */
export const AGENT = {
  type: 'svc.agent.type',
  framework: 'svc.agent.framework',
  maxSteps: 'svc.agent.max_steps',
  loopThreshold: 'svc.agent.loop_threshold',
  costBudgetUsd: 'svc.agent.cost_budget_usd',
  steps: 'svc.agent.steps',
  costUsd: 'svc.agent.cost_usd',
  stepNumber: 'svc.agent.step.number',
  stepDescription: 'svc.agent.step.description',
  guardrailName: 'svc.agent.guardrail.name',
  guardrailLimit: 'svc.agent.guardrail.limit',
  guardrailObserved: 'svc.agent.guardrail.observed',
} as const;

export const ERROR_TYPE = 'error.type';

/**
 * The OpenTelemetry MCP semantic conventions (Development status) of semantic conventions v1.41.0
 * (docs/gen-ai/mcp.md, the server span), the names of `@opentelemetry/semantic-conventions` 1.45.0's
 * incubating constants, for the span of every `tools/call` the tool server answers.
 */
export const MCP = {
  methodName: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  sessionId: 'mcp.session.id',
  jsonrpcRequestId: 'jsonrpc.request.id',
  rpcResponseStatusCode: 'rpc.response.status_code',
  networkTransport: 'network.transport',
  networkProtocolName: 'network.protocol.name',
  clientAddress: 'client.address',
  clientPort: 'client.port',
} as const;

/** svc's own attributes of a tool call span, where the conventions have none: who called, and how it ended. */
export const MCP_CALL = {
  agentName: 'svc.mcp.agent.name',
  agentRole: 'svc.mcp.agent.role',
  /** True when a credential vouches for the agent's name (a static token or an OAuth access token), false for anonymous callers. */
  agentVerified: 'svc.mcp.agent.verified',
  outcome: 'svc.mcp.outcome',
} as const;

/**
 * The instrumentation scope of the tool server's spans. The span processor skips spans of this
 * scope: a tool call is svc's work, never one of the app's operations.
 */
export const MCP_INSTRUMENTATION_SCOPE = '@svc/register/mcp';
