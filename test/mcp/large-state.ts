/**
 * A service with a lot of state, for the tests that tools' output stays bounded: 1,000
 * operations (60 elevated, the worst inserted last), 40 dependencies (the unhealthy one last),
 * 200 SLOs (the violated ones last), a full audit trail and a full session with long texts.
 * Tools are called as the tool server calls them, with every service built from configuration
 * (`svc.mcp.max-output-bytes` among it).
 */
import { type Attributes, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { parseConfigText } from '../../src/config/file-source.js';
import { ResolvedConfig } from '../../src/config/resolved-config.js';
import { incidentResponseFromConfig } from '../../src/incidents/incident-response.js';
import { toolServices } from '../../src/mcp/start-tool-server.js';
import type { ToolContext, ToolDefinition, ToolResult } from '../../src/mcp/tool-definition.js';
import { ServiceMetadata } from '../../src/metadata/service-metadata.js';
import { engineHarness } from '../support/engine-harness.js';
import { newRegistry } from '../support/registry.js';
import { toolErrorOf } from './tool-harness.js';

export const OPERATIONS = 1000;
export const operationName = (i: number) => `GET /api/v1/catalog/items-${String(i).padStart(4, '0')}`;
/** Elevated by latency: every 20th operation from 7 (50 of them). */
export const slowOperation = (i: number) => i % 20 === 7;
/** Elevated by errors: the last ten, operation 999 failing every request, 990 one in ten. */
export const failingOperation = (i: number) => i >= 990;
export const WORST_OPERATION = operationName(999);
export const DEPENDENCIES = 40;
export const WORST_DEPENDENCY = 'dependency-39';
export const SLOS = 200;
export const WORST_SLO = 'slo-199';

const BASELINE = { latencyP50Ms: 20, latencyP99Ms: 80, errorRate: 0.01 };

/** A config with `yaml` (svc.yml content) over the defaults. */
export function configOf(yaml = ''): ResolvedConfig {
  const read = parseConfigText(yaml, 'test svc.yml');
  const config = new ResolvedConfig([read.entries], [...read.problems]);
  if (config.problems.length) throw new Error(config.problems.map((p) => p.message).join('; '));
  return config;
}

/** Tools over a fresh engine, with full services, called as an operator (READ, DIAGNOSE, REMEDIATE). */
export function serviceWithTools(yaml = '', { fresh = false } = {}) {
  const staticBaselines = new Map(Array.from({ length: OPERATIONS }, (_, i) => [operationName(i), BASELINE]));
  const harness = engineHarness({ serviceName: 'catalog', staticBaselines });
  // A process past its warm-up, whose latency counts toward health, unless the test wants a fresh one.
  if (!fresh) harness.clock.advance(60_000);
  const config = configOf(yaml);
  const metadata = new ServiceMetadata(config, newRegistry());
  const services = toolServices(config, harness.engine, metadata, incidentResponseFromConfig(config, harness.engine, metadata));
  const caller = { agentName: 'ops-bot', role: 'operator', permissions: new Set(['READ', 'DIAGNOSE', 'REMEDIATE'] as const), credential: 'token:ops-bot', tokenAgent: 'ops-bot' };
  const context: ToolContext = { caller, services };
  const tracer = new TracerProvider({ spanProcessors: [harness.engine.createSpanProcessor()] }).getTracer('large-state');
  return {
    ...harness,
    /** A failed `GET <route>` request whose span carries `attributes` (error.type, status code). */
    failure(route: string, latencyMs: number, attributes: Attributes): void {
      const start = harness.clock.now();
      const span = tracer.startSpan(`GET ${route}`, { kind: SpanKind.SERVER, startTime: start, attributes: { 'http.request.method': 'GET', 'http.route': route, ...attributes } });
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(start + latencyMs);
    },
    config,
    services,
    caller,
    async callTool(tool: ToolDefinition, args: Record<string, string> = {}): Promise<ToolResult> {
      return tool.handler(args, context);
    },
    /** A call by an agent of another name (names may be long: the output must stay bounded). */
    async callToolAs(agentName: string, tool: ToolDefinition, args: Record<string, string> = {}): Promise<ToolResult> {
      return tool.handler(args, { ...context, caller: { ...caller, agentName } });
    },
    toolError: (tool: ToolDefinition, args: Record<string, string> = {}) => toolErrorOf(tool, args, context),
  };
}

/**
 * SLO options for state built in one instant of the fake clock: a one-second window (so the budget
 * is taken of the events counted) and a verdict from the first event.
 */
export const FAST_SLO = { windowMs: 1000, minEvents: 1 } as const;

/** 1,000 operations, 40 dependencies, 200 SLOs; the worst of each comes last. `slow` picks the operations elevated by latency. */
export function largeService(yaml = '', slow: (i: number) => boolean = slowOperation) {
  const h = serviceWithTools(yaml);
  for (let i = 0; i < SLOS; i++) {
    // slo-199 watches the operation that always fails; slo-198 the one failing 90 %.
    h.engine.sloTracker.register({ name: `slo-${i}`, operationName: operationName(i < SLOS - 2 ? i : OPERATIONS - SLOS + i), type: 'AVAILABILITY', target: 0.5, ...FAST_SLO });
  }
  for (let i = 0; i < OPERATIONS; i++) {
    const route = operationName(i).slice('GET '.length);
    const requests = failingOperation(i) ? 10 : 5;
    for (let r = 0; r < requests; r++) h.request(route, slow(i) ? 100 : 20, failingOperation(i) && r < i - 989);
  }
  for (let d = 0; d < DEPENDENCIES; d++) for (let c = 0; c < 10; c++) h.call(`dependency-${d}`, 5, d === DEPENDENCIES - 1);
  return h;
}

/** `count` characters of text that says where it is cut: `<label> 0123456789...`. */
export function longText(label: string, count: number): string {
  return `${label} ${'0123456789'.repeat(Math.ceil(count / 10))}`.slice(0, count);
}

export function bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export const AUDIT_ENTRIES = 500;
export const SESSION_ENTRIES = 500;
export const LONG = 8192;

/** A full audit trail (every tenth refused) and a full session, each text 8192 characters and numbered. */
export function withTrailAndSession(h: ReturnType<typeof serviceWithTools>) {
  for (let i = 0; i < AUDIT_ENTRIES; i++) {
    h.services.audit.record({
      agentName: 'ops-bot',
      role: 'operator',
      action: `enable_fallback:${operationName(i)}`,
      reason: longText(`reason ${i}`, LONG),
      approvedBy: undefined,
      approver: undefined,
      approval: 'not_required',
      outcome: i % 10 === 0 ? 'refused' : 'success',
      detail: longText(`result ${i}`, LONG),
    });
    h.clock.advance(10);
  }
  const session = h.services.sessions.create('INC-20260101-0001', 'ops-bot', 'token:ops-bot');
  for (let i = 0; i < SESSION_ENTRIES; i++) {
    h.services.sessions.add(session.id, { type: i % 4 === 0 ? 'DIAGNOSIS' : 'OBSERVATION', agentName: 'triage-bot', role: 'diagnostician', content: longText(`entry ${i}\nline two`, LONG) });
    h.clock.advance(10);
  }
  return session.id;
}

export const CUSTOM_ACTIONS = 40;

/** Every operation elevated, 40 custom actions and 10 changes with 8 KB texts: an incident context with a lot to say. */
export function crowdedIncident() {
  const h = largeService('', () => true);
  for (let i = 0; i < CUSTOM_ACTIONS; i++) {
    h.services.remediation.registerAction({
      name: `custom-action-${String(i).padStart(2, '0')}`,
      description: longText(`does ${i}`, LONG),
      requiresApproval: i % 2 === 0,
      handler: () => longText(`ran ${i}`, LONG),
    });
  }
  for (let i = 0; i < 10; i++) h.engine.changes.record('config_change', longText(`change ${i}`, LONG));
  // The worst operation keeps failing for 40 s: a sustained error-rate spike, which the detectors name.
  const worst = operationName(OPERATIONS - 1).slice('GET '.length);
  for (let t = 0; t < 80; t++) {
    h.request(worst, 20, true);
    h.clock.advance(500);
  }
  return h;
}
