/**
 * get_service_health: the first call of an agent workflow. Current service status with its
 * reasons, per-operation metrics over the recent minutes (svc.health.recent-minutes) with ELEVATED flags, dependency states
 * and SLO budgets.
 *
 * An operation with neither a configured nor a learned baseline says `learning (3 samples)`: it is
 * never ELEVATED by its figures until its learned normal forms. A dependency line counts the calls of its window
 * (`svc.dependency-health.window`); one with no call in it says `stale, no calls since <time>`: its
 * last state is shown but no longer counts toward the status.
 *
 * Bounded (src/mcp/bounded-output.ts): each list is worst first (operations ELEVATED, then within
 * baseline, then idle; dependencies unhealthy, degraded, healthy; SLOs VIOLATED, AT_RISK, HEALTHY;
 * reasons CRITICAL ones first) and a page takes the next items of each list in turn while they
 * fit `svc.mcp.max-output-bytes`, the problems of every list before the rest. A cut list ends with
 * `… 940 more operations (3 elevated, 937 within baseline) left out; call get_service_health with page=2`.
 *
 * AGENTS, only when agents inside the app (src/agentic) were active in the last hour: per agent,
 * invocations, failures, guardrail trips (by guardrail), steps per invocation p50/p99 and cost, over
 * the last 60 minutes; agents with trips or failures first, then by trips, failures, invocations.
 *
 * STATE STORE, a last line only when the state store is degraded, fell back to memory, did not
 * load the previous run's state or dropped writes (store-note.ts); `store` in JSON, the same text.
 *
 * In a fleet (docs/state.md, Fleet view) operations and SLOs are the fleet's, merged from every
 * replica's histograms; REPLICAS lists each replica (id, own status, last seen, start, OUTLIER with
 * why), outliers first, paged like the other lists; an outlier is a reason and makes the status
 * DEGRADED at least; a FLEET line says how fresh the merge is or why the figures are this
 * replica's own. JSON adds `replicas: [{ id, self, status, reason, lastSeen, startedAt,
 * outlier: { operations, reasons: [{ operation, kind, value, rest, requests, restRequests }] } | null }]`
 * and `fleet: { merged, mergedAt, replicas, note }`.
 *
 * `format=json` returns the same content as pretty JSON text and as `structured`, paged the same way:
 * { service, status, timestamp, page, pages, leftOut: { reasons, operations, dependencies, slos[, agents] },
 *   nextPage: string | null, reasons: string[],
 *   operations: [{ name, routeInferred (the name's route was inferred from paths), requestCount, errorRate, p50Ms, p99Ms, throughputPerMinute, elevated,
 *                  elevatedReasons: string[], baseline: { latencyP50Ms, latencyP99Ms, errorRate: number | null,
 *                  sources: { p50, p99, errorRate: 'configured' | 'learned' | 'learning' | 'unjudged' }, learnedOverMs,
 *                  frozenSince, acceptAt: string | null } | null, baselineState: 'configured' | 'learned' | 'learning',
 *                  samples, deviation: { patterns, since: string | null, outage, score, forming: [{ pattern, since }] } | null }],
 *   dependencies: [{ name, state, errorRate, averageLatencyMs, calls, windowMs, stale, lastCallAt }],
 *   slos: [{ name, compliance, budgetRemaining, burnRate }],
 *   agents (only with active agents): [{ name, invocations, failures, guardrailTrips,
 *            tripsByGuardrail: { max_steps, loop, cost_budget }, stepsP50, stepsP99: number | null, costUsd, windowMinutes }] }
 * Rates and budgets are fractions (0.025 for 2.5 %), latencies milliseconds; `leftOut` counts, per
 * array, the items not on this page. Each baseline figure is the configured one or the learned
 * normal's (src/analysis/operation-baseline.ts), null while learning or, for the error rate, when
 * unjudged (`expected-error-rate: -1`). `frozenSince` / `acceptAt`: a deviation keeps the normal from
 * learning since then, and becomes normal at `acceptAt` if it lasts. `calls` are within the last
 * `windowMs`; `lastCallAt` is ISO 8601 UTC.
 */

import { type AgentSummary, GUARDRAILS, WINDOW_MINUTES } from '../../agentic/agent-activity.js';
import type { DependencySummary, HealthSummary, OperationHealth, SloSummary } from '../../analysis/health-aggregator.js';
import type { OperationBaseline } from '../../analysis/operation-baseline.js';
import type { ColdStart } from '../../analysis/pattern-matcher.js';
import type { ReplicaInfo } from '../../fleet/fleet-view.js';
import { INFERRED_ROUTE, isInferredOperationName } from '../../shared/operation-name.js';
import { callFor, cutField, maxOutputBytes, type PageRequest, pageJson, pageText, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { blocks, ColumnLines, duration, headerLine, isoTime, listSome, ms, multiple, percent, plural, section } from '../text-layout.js';
import { textResult } from '../tool-definition.js';
import { format, page } from '../tool-params.js';
import { readHealth } from '../views/health-view.js';
import { replicaCells, replicaJson, replicaKind, replicaRank } from './fleet-lines.js';
import { operationKind, rank, sloKind } from './worst-first.js';

/** Columns are padded to at most this width, so one long name does not widen every line. */
const MAX_COLUMN = 60;
const MAX_REASON_CHARS = 512;

export const getServiceHealth = defineTool({
  name: 'get_service_health',
  title: 'Service health',
  description:
    'Current health of the service: STATUS (HEALTHY, DEGRADED or CRITICAL) with its reasons, each operation (error rate, p50, p99, ELEVATED when off baseline), each dependency (state, error rate, average latency) and each SLO (budget remaining, burn rate) and, when the app runs agents of its own, each agent (invocations, failures, guardrail trips, steps, cost in the last hour), worst first. A long answer is paged: its last line per list names the call for the next page. Call this first.',
  permission: 'READ',
  readOnly: true,
  params: { format: format(), page: page() },
  handler(args, { services }) {
    const request: PageRequest = {
      tool: 'get_service_health',
      maxBytes: maxOutputBytes(services),
      page: args.page,
      call: callFor('get_service_health', { format: args.format === 'json' ? 'json' : undefined }),
    };
    const view = readHealth(services);
    const { summary, operations, dependencies, slos, agents, replicas } = view;
    if (args.format === 'text') {
      const text = healthText(request, summary, operations, dependencies, slos, view.recentMinutes, view.dependencyWindowMs, agents, replicas);
      return textResult(blocks(text, view.fleet?.note, view.storeNote));
    }
    const json = healthJson(request, summary, operations, dependencies, slos, view.dependencyWindowMs, agents, replicas?.replicas);
    if (view.fleet) (json as Record<string, unknown>).fleet = view.fleet;
    if (view.storeNote) (json as Record<string, unknown>).store = view.storeNote;
    return textResult(JSON.stringify(json, null, 2), json);
  },
});

function healthText(
  request: PageRequest,
  summary: HealthSummary,
  operations: readonly OperationHealth[],
  dependencies: readonly DependencySummary[],
  slos: readonly SloSummary[],
  recentMinutes: number,
  windowMs: number,
  agents: readonly AgentSummary[],
  fleet: { replicas: readonly ReplicaInfo[]; now: number } | undefined,
): string {
  const replicaListing = fleet && {
    noun: 'replica',
    items: ColumnLines.measured(
      fleet.replicas.map((r) => replicaCells(r, fleet.now)),
      MAX_COLUMN,
    ),
    kinds: fleet.replicas.map(replicaKind),
    ranks: fleet.replicas.map(replicaRank),
  };
  const reasons = summary.reasons.map((r) => cutField(r, MAX_REASON_CHARS));
  const agentListing = {
    noun: 'agent',
    items: ColumnLines.measured(agents.map(agentCells), MAX_COLUMN),
    kinds: agents.map(agentKind),
    ranks: agents.map((a) => rank(agentKind(a) !== 'active')),
  };
  const { text } = pageText(
    request,
    [
      {
        noun: 'operation',
        items: new ColumnLines(operations.length, (i) => operationCells(operations[i]!), operationWidths(operations)),
        kinds: operations.map(operationKind),
        ranks: operations.map((op) => rank(op.elevated)),
      },
      {
        noun: ['dependency', 'dependencies'],
        items: ColumnLines.measured(
          dependencies.map((d) => dependencyCells(d, windowMs)),
          MAX_COLUMN,
        ),
        kinds: dependencies.map((d) => (d.stale ? `stale ${d.state}` : d.state)),
        ranks: dependencies.map((d) => rank(d.state !== 'healthy' && !d.stale)),
      },
      {
        noun: 'SLO',
        items: ColumnLines.measured(
          slos.map((s) => [shownName(s.name), s.compliance, `budget ${percent(s.budgetRemaining)}`, `burn ${multiple(s.burnRate)}`]),
          MAX_COLUMN,
        ),
        kinds: slos.map((s) => sloKind(s.compliance)),
        ranks: slos.map((s) => rank(s.compliance !== 'HEALTHY')),
      },
      { noun: 'reason', items: reasons },
      ...(agents.length ? [agentListing] : []),
      ...(replicaListing ? [replicaListing] : []),
    ],
    ([operationLines, dependencyLines, sloLines, reasonLines, ...rest]) => {
      const agentLines = agents.length ? rest.shift() : undefined;
      const replicaLines = replicaListing && rest.shift();
      return blocks(
        headerLine(`SERVICE HEALTH: ${shownName(summary.service)}`, `STATUS: ${summary.status}`, summary.timestamp),
        section(`OPERATIONS (${plural(operations.length, 'operation')}, last ${plural(recentMinutes, 'minute')}${inferredNote(operations)})`, operationLines!),
        section('DEPENDENCIES', dependencyLines!),
        section('SLOs', sloLines!),
        agentLines && section(`AGENTS (${plural(agents.length, 'agent')}, last ${plural(WINDOW_MINUTES, 'minute')})`, agentLines),
        replicaLines && section(`REPLICAS (${plural(fleet!.replicas.length, 'replica')}, own status each)`, replicaLines, 'none read yet'),
        section('REASONS', reasonLines!, noReasons(operations)),
      );
    },
  );
  return text;
}

/** Said once in the OPERATIONS title when a listed name's route was inferred from paths. */
function inferredNote(operations: readonly OperationHealth[]): string {
  return operations.some((op) => isInferredOperationName(op.operation)) ? `; names with {param:<kind>}: ${INFERRED_ROUTE}` : '';
}

/**
 * What an empty REASONS says: every operation within its baseline, or, while some are learning
 * one, that those are judged only for an outage (docs/analysis.md "Baselines").
 */
function noReasons(operations: readonly OperationHealth[]): string {
  const learning = operations.filter((op) => operationKind(op) === 'learning').map((op) => shownName(op.operation));
  if (learning.length === 0) return 'none: everything within baseline';
  const which = learning.length === operations.length ? 'no operation has a baseline yet' : `${plural(learning.length, 'operation')} still learning a baseline`;
  return `none, but ${which} (${listSome(learning, 3)}): until one forms, only an outage is judged for ${learning.length === 1 ? 'it' : 'them'}`;
}

/**
 * The operations' column widths without formatting every row (a page shows few of them): names
 * and the cell after the latencies are measured; a number's cell is as wide as its largest value
 * formats, taken per format of `ms` (below 10 ms `9.0ms`, below 1 s `45ms`, seconds `1.20s`), as
 * within one a larger value is never shorter. As `columns` does, no width exceeds MAX_COLUMN.
 */
function operationWidths(operations: readonly OperationHealth[]): number[] {
  let name = 0;
  let requests = 0;
  let errorRate = 0;
  let after = 0;
  const p50 = [-1, -1, -1];
  const p99 = [-1, -1, -1];
  for (const op of operations) {
    name = Math.max(name, shownName(op.operation).length);
    if (op.requestCount === 0) continue;
    requests = Math.max(requests, op.requestCount);
    errorRate = Math.max(errorRate, op.errorRate);
    p50[msFormat(op.p50)] = Math.max(p50[msFormat(op.p50)]!, op.p50);
    p99[msFormat(op.p99)] = Math.max(p99[msFormat(op.p99)]!, op.p99);
    const sixth = flagOf(op) ?? (op.coldStart && coldStartText(op.coldStart));
    if (sixth) after = Math.max(after, sixth.length);
  }
  const widest = (label: string, largest: readonly number[]) => Math.max(...largest.map((value) => (value < 0 ? 0 : `${label} ${ms(value)}`.length)));
  return [name, `${requests} req`.length, `err ${percent(errorRate)}`.length, widest('p50', p50), widest('p99', p99), after].map((width) => Math.min(MAX_COLUMN, width));
}

/** Which of `ms`'s formats a latency takes: 0 below 10 ms, 1 below 1 s, 2 seconds. */
function msFormat(value: number): number {
  return value < 10 ? 0 : value < 1000 ? 1 : 2;
}

function operationCells(op: OperationHealth): string[] {
  const name = shownName(op.operation);
  if (op.requestCount === 0) return [name, '0 req', 'idle'];
  const cells = [name, `${op.requestCount} req`, `err ${percent(op.errorRate)}`, `p50 ${ms(op.p50)}`, `p99 ${ms(op.p99)}`];
  const flag = flagOf(op);
  if (flag) cells.push(flag);
  if (op.coldStart) cells.push(coldStartText(op.coldStart));
  return cells;
}

/**
 * ELEVATED with its reasons (and, while a deviation keeps the normal from learning, when it becomes
 * normal if it lasts), or learning with its samples; undefined for an operation within its baseline.
 */
function flagOf(op: OperationHealth): string | undefined {
  if (op.elevated) {
    // Only where a figure is learned: a configured one never moves.
    const acceptAt = op.baselineState === 'learned' ? op.baseline?.acceptAt : undefined;
    const frozen = acceptAt === undefined ? '' : `; normal frozen since ${isoTime(op.baseline!.frozenSince!)}, this level becomes normal at ${isoTime(acceptAt)} if it lasts, or at reset_baseline`;
    return `ELEVATED (${op.elevatedReasons.join('; ')}${frozen})`;
  }
  if (op.baselineState === 'learning') return `learning (${plural(op.samples, 'sample')})`;
  return undefined;
}

/** A fresh process's slow first requests: normal, so shown beside the operation, not as a status. */
function coldStartText(c: ColdStart): string {
  return `cold start: first requests up to ${ms(c.peakMs)} against a ${ms(c.baselineP99Ms)} p99, for ${Math.round(c.durationMs / 1000)}s${c.breached ? ` (over the ${ms(c.limitMs)} limit)` : ''}`;
}

function agentKind(a: AgentSummary): string {
  return a.guardrailTrips > 0 ? 'stopped by guardrails' : a.failures > 0 ? 'failing' : 'active';
}

/** `support-bot  12 invocations  1 failed  2 guardrail trips (loop 2)  steps p50 4, p99 9  cost $0.0123`. */
function agentCells(a: AgentSummary): string[] {
  const trips = GUARDRAILS.filter((g) => a.tripsByGuardrail[g] > 0).map((g) => `${g} ${a.tripsByGuardrail[g]}`);
  return [
    shownName(a.name),
    plural(a.invocations, 'invocation'),
    `${a.failures} failed`,
    a.guardrailTrips ? `${plural(a.guardrailTrips, 'guardrail trip')} (${trips.join(', ')})` : '0 guardrail trips',
    a.stepsP50 === undefined ? 'steps n/a' : `steps p50 ${a.stepsP50}, p99 ${a.stepsP99}`,
    `cost $${a.costUsd.toFixed(4)}`,
  ];
}

function dependencyCells(d: DependencySummary, windowMs: number): string[] {
  const within = `in ${duration(windowMs)}`;
  if (d.stale) return [shownName(d.name), `${d.state} (stale)`, `no calls since ${isoTime(d.lastCallAt)}`, `0 calls ${within}`];
  return [shownName(d.name), d.state, `err ${percent(d.errorRate)}`, `avg ${ms(d.averageLatencyMs)}`, `${plural(d.calls, 'call')} ${within}`];
}

function baselineJson(b: OperationBaseline) {
  return {
    latencyP50Ms: b.latencyP50Ms ?? null,
    latencyP99Ms: b.latencyP99Ms ?? null,
    errorRate: b.errorRate ?? null,
    sources: { p50: b.p50Source, p99: b.p99Source, errorRate: b.errorRateSource },
    learnedOverMs: b.learnedOverMs,
    frozenSince: b.frozenSince === undefined ? null : isoTime(b.frozenSince),
    acceptAt: b.acceptAt === undefined ? null : isoTime(b.acceptAt),
  };
}

function healthJson(
  request: PageRequest,
  summary: HealthSummary,
  operations: readonly OperationHealth[],
  dependencies: readonly DependencySummary[],
  slos: readonly SloSummary[],
  windowMs: number,
  agents: readonly AgentSummary[],
  replicas: readonly ReplicaInfo[] | undefined,
) {
  const replicaListing = replicas && { key: 'replicas', items: replicas.map(replicaJson), ranks: replicas.map(replicaRank) };
  const agentListing = {
    key: 'agents',
    items: agents.map((a) => ({
      name: a.name,
      invocations: a.invocations,
      failures: a.failures,
      guardrailTrips: a.guardrailTrips,
      tripsByGuardrail: { ...a.tripsByGuardrail },
      stepsP50: a.stepsP50 ?? null,
      stepsP99: a.stepsP99 ?? null,
      costUsd: a.costUsd,
      windowMinutes: WINDOW_MINUTES,
    })),
    ranks: agents.map((a) => rank(agentKind(a) !== 'active')),
  };
  return pageJson(
    request,
    [
      { key: 'reasons', items: summary.reasons },
      {
        key: 'operations',
        ranks: operations.map((op) => rank(op.elevated)),
        items: operations.map((op) => ({
          name: op.operation,
          routeInferred: isInferredOperationName(op.operation),
          requestCount: op.requestCount,
          errorRate: op.errorRate,
          p50Ms: op.p50,
          p99Ms: op.p99,
          throughputPerMinute: op.throughputPerMinute,
          elevated: op.elevated,
          elevatedReasons: [...op.elevatedReasons],
          baseline: op.baseline ? baselineJson(op.baseline) : null,
          baselineState: op.baselineState,
          samples: op.samples,
          deviation: op.deviation
            ? {
                patterns: [...op.deviation.patterns],
                since: Number.isNaN(op.deviation.sinceMs) ? null : isoTime(op.deviation.sinceMs),
                outage: op.deviation.outage,
                score: op.deviation.score,
                forming: op.deviation.forming.map((f) => ({ pattern: f.pattern, since: isoTime(f.sinceMs) })),
              }
            : null,
          coldStart: op.coldStart ?? null,
        })),
      },
      {
        key: 'dependencies',
        items: dependencies.map((d) => ({
          name: d.name,
          state: d.state,
          errorRate: d.errorRate,
          averageLatencyMs: d.averageLatencyMs,
          calls: d.calls,
          windowMs,
          stale: d.stale,
          lastCallAt: d.lastCallAt ? isoTime(d.lastCallAt) : null,
        })),
        ranks: dependencies.map((d) => rank(d.state !== 'healthy' && !d.stale)),
      },
      {
        key: 'slos',
        items: slos.map((s) => ({ name: s.name, compliance: s.compliance, budgetRemaining: s.budgetRemaining, burnRate: s.burnRate })),
        ranks: slos.map((s) => rank(s.compliance !== 'HEALTHY')),
      },
      ...(agents.length ? [agentListing] : []),
      ...(replicaListing ? [replicaListing] : []),
    ],
    ([reasons, shownOperations, shownDependencies, shownSlos, ...rest], paging) => ({
      service: shownName(summary.service),
      status: summary.status,
      timestamp: summary.timestamp,
      ...paging,
      reasons,
      operations: shownOperations,
      dependencies: shownDependencies,
      slos: shownSlos,
      ...(agents.length && { agents: rest[0] }),
      ...(replicaListing && { replicas: rest[agents.length ? 1 : 0] }),
    }),
  );
}
