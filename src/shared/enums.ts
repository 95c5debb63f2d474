/**
 * The spec's enumerations. Annotation values are upper case (`ServiceTier.CRITICAL`); inside svc
 * every value is kept in its lower-case configuration spelling (`critical`), which is also what
 * appears on spans and in events.
 */
export const ServiceTier = { CRITICAL: 'CRITICAL', STANDARD: 'STANDARD', INTERNAL: 'INTERNAL', EXPERIMENTAL: 'EXPERIMENTAL' } as const;
export type ServiceTier = (typeof ServiceTier)[keyof typeof ServiceTier];
export const TIERS = ['critical', 'standard', 'internal', 'experimental'] as const;
export type Tier = (typeof TIERS)[number];

/** The annotation enum has no REST_API or GRPC value; configuration has both (nine values). */
export const DependencyType = {
  INTERNAL_SERVICE: 'INTERNAL_SERVICE',
  EXTERNAL_API: 'EXTERNAL_API',
  DATABASE: 'DATABASE',
  MESSAGE_BROKER: 'MESSAGE_BROKER',
  CACHE: 'CACHE',
  OBJECT_STORE: 'OBJECT_STORE',
  IDENTITY_PROVIDER: 'IDENTITY_PROVIDER',
} as const;
export type DependencyType = (typeof DependencyType)[keyof typeof DependencyType];
export const DEPENDENCY_TYPES = ['database', 'rest_api', 'grpc', 'message_broker', 'cache', 'object_store', 'identity_provider', 'internal_service', 'external_api'] as const;
export type DependencyKind = (typeof DEPENDENCY_TYPES)[number];

export const DependencyCriticality = { REQUIRED: 'REQUIRED', DEGRADED: 'DEGRADED', OPTIONAL: 'OPTIONAL' } as const;
export type DependencyCriticality = (typeof DependencyCriticality)[keyof typeof DependencyCriticality];
export const CRITICALITIES = ['required', 'degraded', 'optional'] as const;
export type Criticality = (typeof CRITICALITIES)[number];

export const EscalationLevel = {
  AUTO_RESOLVE: 'AUTO_RESOLVE',
  NOTIFY_TEAM: 'NOTIFY_TEAM',
  PAGE_ONCALL: 'PAGE_ONCALL',
  INCIDENT_COMMANDER: 'INCIDENT_COMMANDER',
} as const;
export type EscalationLevel = (typeof EscalationLevel)[keyof typeof EscalationLevel];
export const ESCALATION_LEVELS = ['auto_resolve', 'notify_team', 'page_oncall', 'incident_commander'] as const;
export type Escalation = (typeof ESCALATION_LEVELS)[number];

export const ConsumptionPattern = {
  SYNCHRONOUS: 'SYNCHRONOUS',
  ASYNCHRONOUS: 'ASYNCHRONOUS',
  BATCH: 'BATCH',
  STREAMING: 'STREAMING',
} as const;
export type ConsumptionPattern = (typeof ConsumptionPattern)[keyof typeof ConsumptionPattern];
export const CONSUMPTION_PATTERNS = ['synchronous', 'asynchronous', 'batch', 'streaming'] as const;
export type Consumption = (typeof CONSUMPTION_PATTERNS)[number];
export const CONSUMPTION_ALIASES = { sync: 'synchronous', async: 'asynchronous' } as const;

export const PERMISSIONS = ['READ', 'DIAGNOSE', 'REMEDIATE', 'ADMIN'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** JWS algorithms an access token may be signed with (svc.mcp.oauth.algorithms): public-key ones only. */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
export type AsymmetricAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];

export const BASELINE_SOURCES = ['static', 'rolling'] as const;
export const AGENT_TYPES = ['single', 'orchestrator', 'worker', 'evaluator', 'critic', 'router', 'react'] as const;

/** The OpenTelemetry instrumentations svc can set up (auto-instrumentations-node's, named without `@opentelemetry/instrumentation-`). */
export const INSTRUMENTATION_NAMES = [
  'http',
  'undici',
  'express',
  'koa',
  'nestjs-core',
  'hapi',
  'restify',
  'graphql',
  'grpc',
  'socket.io',
  'pg',
  'mysql',
  'mysql2',
  'mongodb',
  'mongoose',
  'tedious',
  'oracledb',
  'cassandra-driver',
  'redis',
  'ioredis',
  'memcached',
  'amqplib',
  'kafkajs',
  'aws-sdk',
  'openai',
  'pino',
  'winston',
  'bunyan',
  'connect',
  'router',
  'knex',
  'dataloader',
  'generic-pool',
  'lru-memoizer',
  'cucumber',
  'aws-lambda',
  'dns',
  'net',
  'runtime-node',
  'fs',
  'host-metrics',
] as const;
export type InstrumentationName = (typeof INSTRUMENTATION_NAMES)[number];
