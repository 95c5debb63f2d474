/**
 * Starting svc in a process: configuration, metadata, the SDK with svc's span processor, the
 * Resource topology, the deployment event and the shutdown hooks. Never throws: a failure is
 * reported and the application runs on without svc.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { diag, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { declaredAgentNames } from '../agentic/agent-declarations.js';
import { agentEnvironment } from '../agentic/agent-environment.js';
import { configuredAgentsNeverDeclared, configuredAgentWhere } from '../agentic/configured-agents.js';
import type { AnalysisEngine } from '../analysis/analysis-engine.js';
import type { ChangeEntry, ChangeTracker } from '../analysis/change-tracker.js';
import { systemClock } from '../analysis/clock.js';
import { type ConfigProblem, formatProblem } from '../config/config-source.js';
import { type LoadConfigOptions, loadConfig } from '../config/load-config.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import { startupChecks } from '../config/startup-checks.js';
import type { FleetView } from '../fleet/fleet-view.js';
import { startFleet } from '../fleet/start-fleet.js';
import type { FrontendListener } from '../frontend/frontend-listener.js';
import type { FrontendTelemetry } from '../frontend/frontend-telemetry.js';
import { frontendTelemetry, startFrontendListener } from '../frontend/start-frontend.js';
import { type IncidentResponse, incidentResponseFromConfig } from '../incidents/incident-response.js';
import type { ToolServer } from '../mcp/tool-server.js';
import { toolServerProblems } from '../mcp/tool-server-config.js';
import { decoratorRegistry } from '../metadata/decorator-registry.js';
import { ServiceMetadata } from '../metadata/service-metadata.js';
import { MCP_INSTRUMENTATION_SCOPE } from '../shared/attribute-names.js';
import { INSTRUMENTATION_NAMES } from '../shared/enums.js';
import { printable } from '../shared/printable.js';
import { reportError } from '../shared/report-error.js';
import type { OpenedState } from '../store/open-state.js';
import { type DeploymentInfo, deploymentAttributes, deploymentDescription, deploymentEventBody, deploymentFromConfig, emitDeploymentInfo } from '../telemetry/deployment-info.js';
import { EventLog } from '../telemetry/event-log.js';
import { watchFailedAttempts } from '../telemetry/export-attempts.js';
import { instrumentationSet } from '../telemetry/instrumentation-set.js';
import { startTelemetry } from '../telemetry/sdk.js';
import { installShutdownHooks, settledWithin } from '../telemetry/shutdown-hooks.js';
import { TelemetryLoss } from '../telemetry/telemetry-loss.js';
import { TopologyResource } from '../telemetry/topology-resource.js';
import { runtime } from './runtime.js';
import { Engine } from './service-engine.js';
import { analysisState, attachState, closeState, flushState, openStateFromConfig, type PersistedParts, restoreState } from './state-persistence.js';

/** Topology reaches the Resource at the first request, or this long after start. */
const TOPOLOGY_SETTLE_MS = 1000;
/** How often telemetry the exporters failed to deliver is counted up on stderr. */
const LOSS_REPORT_INTERVAL_MS = 5 * 60_000;

export interface StartOptions extends LoadConfigOptions {
  /** Remove the consumed `-Dsvc.*` tokens from `process.argv` (default true when `args` is not given). */
  readonly consumeArgs?: boolean;
}

export interface Svc {
  readonly config: ResolvedConfig;
  readonly metadata: ServiceMetadata;
  /** The analysis engine; undefined when svc.enabled=false. */
  readonly engine: Engine | undefined;
  readonly deployment: DeploymentInfo;
  readonly enabled: boolean;
  shutdown(): Promise<void>;
}

/** `configuration loaded: 12 from svc.yml:…, 2 from env, 1 from -D properties`, part of the start's deployment record. */
function configurationDescription(config: ResolvedConfig): string {
  const counts = new Map<string, number>();
  for (const entry of config.entries()) if (entry.source.kind !== 'default') counts.set(entry.source.kind, (counts.get(entry.source.kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, count]) => `${count} from ${kind === 'property' ? '-D properties' : kind}`);
  return `configuration loaded: ${parts.length ? parts.join(', ') : 'defaults only'}`;
}

/** The process's start is one change: the deployment, with the configuration it loaded. */
export function recordStart(changes: ChangeTracker, deployment: DeploymentInfo, config: ResolvedConfig): ChangeEntry {
  const configuration = configurationDescription(config);
  return changes.record('deployment', `${deploymentDescription(deployment)}; ${configuration}`, { ...deploymentEventBody(deployment), configuration }, Date.parse(deployment.timestamp));
}

function printProblem(problem: ConfigProblem): void {
  process.stderr.write(`${formatProblem(problem)}\n`);
}

/** One line to OTel diag and stderr, like reportError: the line telemetry loss is reported with. */
function reportTelemetryLoss(line: string): void {
  diag.warn(`svc: ${line}`);
  process.stderr.write(`svc: ${line}\n`);
}

function serviceNameFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_SERVICE_NAME) return env.OTEL_SERVICE_NAME;
  const pair = (env.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',').find((p) => p.trim().startsWith('service.name='));
  return pair ? decodeURIComponent(pair.slice(pair.indexOf('=') + 1).trim()) : undefined;
}

/** The `name` of the package.json nearest to the main script (else the working directory). */
function applicationName(mainScript: string | undefined, cwd: string): string | undefined {
  let dir = mainScript ? dirname(resolve(cwd, mainScript)) : cwd;
  for (;;) {
    try {
      const name = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name;
      if (typeof name === 'string' && name) return name;
    } catch {
      // no readable package.json here: look further up
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Configured agents that no code declared or invoked by the time the app serves (rule 7 applies by exact name). */
function undeclaredAgentProblems(config: ResolvedConfig): ConfigProblem[] {
  return configuredAgentsNeverDeclared(config, declaredAgentNames()).map((name) => ({
    level: 'warning',
    key: `svc.agentic.agents.${name}`,
    where: configuredAgentWhere(config, name),
    message: `no agent named "${printable(name, 100)}" was declared (agent(), @AgentMethod) or invoked by the time the app served; its guardrails apply to nothing until one is`,
  }));
}

/** What the tool server reads and acts on, as start-up built it. */
interface ToolServerParts {
  readonly config: ResolvedConfig;
  readonly engine: AnalysisEngine;
  readonly metadata: ServiceMetadata;
  readonly response: IncidentResponse;
  readonly frontend: FrontendTelemetry | undefined;
  readonly state: OpenedState | undefined;
  readonly restored: Promise<void>;
  readonly fleet: FleetView | undefined;
}

/**
 * Starts the tool server with what this process holds: its tool registry, its agents' activity,
 * and its set of own ports (not traced as the app's). src/mcp reaches the process's state only
 * through these callbacks.
 */
async function launchToolServer(parts: ToolServerParts): Promise<ToolServer> {
  // Loaded here, not with svc: the tool server's modules are not on the way to the app's first response.
  const { startToolServer } = await import('../mcp/start-tool-server.js');
  const running = runtime();
  const { state } = parts;
  const server = await startToolServer(parts.config, parts.engine, parts.metadata, parts.response, {
    tools: running.tools,
    agents: agentEnvironment().activity,
    restored: parts.restored,
    ...(parts.frontend && { frontend: parts.frontend }),
    ...(state && { store: () => state.writer.status() }),
    ...(parts.fleet && { fleet: parts.fleet }),
    onPortBound: (port) => running.ownPorts.add(port),
    onPortReleased: (port) => running.ownPorts.delete(port),
    // Exported with the app's telemetry; the span processor skips this scope (not an operation).
    tracer: trace.getTracer(MCP_INSTRUMENTATION_SCOPE),
  });
  running.toolServer = server;
  return server;
}

export function start(options: StartOptions = {}): Svc | undefined {
  try {
    return startOrThrow(options);
  } catch (error) {
    reportError('start', error);
    return undefined;
  }
}

function startOrThrow(options: StartOptions): Svc {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const loaded = loadConfig(options);
  if (options.consumeArgs ?? options.args === undefined) {
    for (const index of [...loaded.consumedArgs].reverse()) process.argv.splice(index + 2, 1);
  }
  const { config } = loaded;
  for (const problem of config.problems) printProblem(problem);

  const metadata = new ServiceMetadata(config, decoratorRegistry(), { configuredServiceName: serviceNameFromEnv(env), applicationName: applicationName(process.argv[1], cwd) }, printProblem);
  const enabled = config.get<boolean>('enabled');
  const deployment = deploymentFromConfig(config, new Date());
  const topology = new TopologyResource();
  let agentsChecked = !enabled;
  const settleTopology = (): void => {
    try {
      topology.settle(metadata.topology().registry);
      if (!agentsChecked) {
        agentsChecked = true;
        for (const problem of undeclaredAgentProblems(config)) printProblem(problem);
      }
    } catch (error) {
      reportError('settling topology', error);
    }
  };

  // The checks between keys, the very ones `svc check` runs: SLOs, the tool server's credentials and bind address.
  const checks = startupChecks(config, metadata.operations, toolServerProblems);
  for (const problem of checks.problems) printProblem(problem);

  const events = new EventLog();
  // Reports name configured SLOs, operations and token entries: printed like config problems.
  const engine = enabled
    ? Engine.fromConfig(config, metadata, {
        emit: (name, severity, body) => events.emit(name, severity, body),
        report: (message) => process.stderr.write(`svc: ${printable(message, 1200)}\n`),
        slos: checks.slos,
      })
    : undefined;
  // Browser telemetry: its processor runs after svc's, which names the operation it links to.
  const frontend = engine && config.get<boolean>('frontend.enabled') ? frontendTelemetry(config, systemClock) : undefined;
  const processors = engine ? [engine.createSpanProcessor(metadata, settleTopology), ...(frontend ? [frontend.spanProcessor] : [])] : [];
  const resource = topology.resource.merge(resourceFromAttributes(deploymentAttributes(deployment)));
  const loss = new TelemetryLoss({ report: reportTelemetryLoss, reportIntervalMs: LOSS_REPORT_INTERVAL_MS, clock: systemClock });
  const running = runtime();
  const ownPorts = running.ownPorts;
  const instrumentations = instrumentationSet({
    configured: config.get<string[]>('telemetry.instrumentations'),
    middlewareSpans: config.get<boolean>('telemetry.middleware-spans'),
    env,
    isOwnPort: (port) => ownPorts.has(port),
    onUnknownName: (variable, name) => process.stderr.write(`svc: ${variable} names "${printable(name, 100)}", which is no instrumentation; accepted: ${INSTRUMENTATION_NAMES.join(', ')}\n`),
    onFailure: (name, error) => reportError(`setting up the ${name} instrumentation`, error),
  });
  const telemetry = startTelemetry({ resource, spanProcessors: processors, loss, instrumentations });
  const stopLossReports = loss.startReporting();
  const stopWatchingAttempts = watchFailedAttempts(loss.tallies);
  decoratorRegistry().active = enabled;
  if (enabled) agentEnvironment().config = config;
  running.engine = engine;
  const stopHeapSampling = engine?.startHeapSampling(config.get<number>('patterns.heap-sample-interval'));
  if (engine) recordStart(engine.changes, deployment, config);
  // State that survives restarts (docs/state.md); replicas of one service name share it.
  const reportState = (line: string): void => void process.stderr.write(`svc: ${printable(line, 1200)}\n`);
  const namespace = serviceNameFromEnv(env) ?? applicationName(process.argv[1], cwd) ?? 'unknown_service:node';
  const state = engine ? openStateFromConfig(config, namespace, cwd, env, reportState) : undefined;
  // Incidents open, and remediation acts, whether or not the tool server runs.
  const response = engine ? incidentResponseFromConfig(config, engine, metadata) : undefined;
  if (response) {
    for (const action of running.pendingActions.splice(0)) response.remediation.registerAction(action);
    running.remediation = response.remediation;
  }
  // What the tools hold goes to the store, and the previous run's state is read back (bounded by svc.store.timeout).
  const persisted: PersistedParts | undefined = engine && { changes: engine.changes, analysis: analysisState(engine), ...response };
  if (state && persisted) attachState(state, persisted);
  const restored = state && persisted ? restoreState(state, persisted, config.get<number>('store.timeout'), reportState) : Promise.resolve();
  // On Redis, replicas of one service form a fleet: the tools show it (docs/state.md, Fleet view).
  const fleet = engine && state ? startFleet(config, engine, state, reportState) : undefined;

  setTimeout(settleTopology, TOPOLOGY_SETTLE_MS).unref();
  process.once('beforeExit', settleTopology);
  const shutdownTimeoutMs = config.get<number>('telemetry.shutdown-timeout');
  // The end of the process also writes the state changes still queued (SQLite's first batch even at a bare process.exit()).
  // The fleet's last summary goes out before the store's connection closes.
  const closeStateAndFleet = async (): Promise<void> => {
    await fleet?.link.stop();
    if (state) await closeState(state);
  };
  const removeHooks = installShutdownHooks(telemetry, {
    timeoutMs: shutdownTimeoutMs,
    // telemetry that cannot be delivered is not waited for (docs/telemetry.md, Shutdown)
    undeliverable: () => loss.undeliverable(),
    alongside: state && { forceFlush: () => flushState(state), shutdown: closeStateAndFleet },
    onEnd: () => {
      if (state) void flushState(state);
      loss.reportAtEnd();
    },
  });

  if (enabled && config.get<boolean>('deployment.emit-on-startup')) emitDeploymentInfo(events, deployment);
  // A refused tool server was reported above, with why, by startupChecks.
  if (engine && response) {
    const parts: ToolServerParts = { config, engine, metadata, response, frontend, state, restored, fleet: fleet?.view };
    running.launchToolServer = () => launchToolServer(parts);
  }
  // A refused tool server was reported above, with why, by startupChecks. It starts once the
  // app's main module has run (launchToolServer says why).
  if (config.get<boolean>('mcp.enabled') && !checks.toolServerRefused) {
    setImmediate(() => {
      running.launchToolServer?.().catch((error: unknown) => {
        process.stderr.write(`svc: ${printable(error instanceof Error ? error.message : String(error), 1200)}\n`);
      });
    });
  }

  let frontendListener: FrontendListener | undefined;
  if (frontend) {
    startFrontendListener(config, frontend, ownPorts).then(
      (listener) => (frontendListener = listener),
      (error: unknown) => process.stderr.write(`svc: ${printable(error instanceof Error ? error.message : String(error), 1200)}\n`),
    );
  }

  return {
    config,
    metadata,
    engine,
    deployment,
    enabled,
    async shutdown() {
      settleTopology();
      removeHooks();
      stopHeapSampling?.();
      await running.toolServer?.stop();
      running.toolServer = undefined;
      await frontendListener?.stop();
      await settledWithin(closeStateAndFleet(), shutdownTimeoutMs);
      decoratorRegistry().active = false;
      if (agentEnvironment().config === config) agentEnvironment().config = undefined;
      if (running.engine === engine) {
        running.engine = undefined;
        running.remediation = undefined;
        running.launchToolServer = undefined;
      }
      stopLossReports();
      await settledWithin(telemetry.shutdown(), shutdownTimeoutMs, loss.undeliverable());
      stopWatchingAttempts();
      loss.reportAtEnd();
    },
  };
}
