/**
 * get_incident_context: the complete diagnosis of an operation's incident (data from
 * src/incidents/incident-context.ts, laid out here).
 *
 * Bounded (src/mcp/bounded-output.ts): free-text fields (summary, change descriptions and the
 * probable cause's reason, action
 * descriptions, causes and resolutions, service health reasons) are cut at 1/16 of
 * `svc.mcp.max-output-bytes` with a marker, names at 256 characters, and the lists that grow with
 * the service (affected operations, this operation first and then worst first; affected
 * dependencies and consumers; service health reasons; suggested actions, HIGH first; changes;
 * similar incidents) are paged like every listing tool, each list in turn (no list waits for
 * another: the actions and changes matter as much as the long lists), and a cut list ends with
 * `… 940 more affected operations left out; call get_incident_context with operation_name="..." and page=2`.
 *
 * WHAT IS HAPPENING gains a `Guardrails:` line when agents inside the app (src/agentic) were
 * stopped by a guardrail while running in this operation in the last hour: how many trips, then the
 * latest three (time, agent, guardrail, limit and observed value), cut like the other free text.
 *
 * In a fleet with an outlier replica (docs/state.md, Fleet view) a REPLICAS block names it (at most
 * three, the outliers on this operation first, each line cut at 1,000 characters); the figures
 * above it are this replica's own.
 */
import type { GuardrailTrip } from '../../agentic/agent-activity.js';
import type { AnalysisReads } from '../../analysis/analysis-reads.js';
import { durationText } from '../../analysis/operation-baseline.js';
import { PATTERN_DESCRIPTIONS } from '../../analysis/pattern-matcher.js';
import type { FleetSnapshot } from '../../fleet/fleet-view.js';
import type { Outlier } from '../../fleet/outliers.js';
import type { ChangeLine, IncidentContext, PatternLine } from '../../incidents/incident-context.js';
import { callFor, cutField, fieldChars, maxOutputBytes, operationLabel, type PageRequest, pageText, type ShownPart, shownName, type TextListing } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { againstBaseline, blocks, fields, isoTime, ms, percent, plural, section } from '../text-layout.js';
import { textResult } from '../tool-definition.js';
import { operationName, page } from '../tool-params.js';
import { readIncident } from '../views/incident-view.js';
import { outlierText } from './fleet-lines.js';
import { operationsWorstFirst } from './worst-first.js';

export const getIncidentContext = defineTool({
  name: 'get_incident_context',
  title: 'Incident context',
  description:
    'Complete diagnosis of an operation: what is happening (error rate and latency against baselines, anomaly score, patterns), what changed (deployments, config changes), what is affected, suggested actions with priority and approval needs, and similar past incidents. Call after get_service_health shows a problem. Long lists are paged: their last item names the call for the next page.',
  permission: 'READ',
  readOnly: true,
  params: { operation_name: operationName(), page: page() },
  handler(args, { services }) {
    const operation = args.operation_name;
    const maxBytes = maxOutputBytes(services);
    const request: PageRequest = { tool: 'get_incident_context', maxBytes, page: args.page, call: callFor('get_incident_context', { operation_name: operation }) };
    const { context, trips, fleet } = readIncident(services, operation);
    const text = boundedContext(request, context, services.analysis);
    const withTrips = trips.length ? withGuardrailTrips(text, trips, fieldChars(maxBytes)) : text;
    const replicas = services.fleet && replicasBlock(fleet, operation);
    return textResult(replicas ? `${withTrips}\n\n${replicas}` : withTrips);
  },
});

/**
 * REPLICAS, in a fleet with an outlier replica: the outliers on this operation first. The figures
 * above are this replica's own; get_service_health shows the fleet's.
 */
function replicasBlock(fleet: FleetSnapshot | undefined, operation: string): string | undefined {
  if (!fleet?.outliers.length) return undefined;
  const onThis = (o: Outlier) => o.reasons.some((r) => r.operation === operation);
  const outliers = [...fleet.outliers].sort((a, b) => Number(onThis(b)) - Number(onThis(a)));
  return section(
    `REPLICAS (${plural(fleet.replicas.length, 'replica')}; the figures above are this replica's own)`,
    outliers.slice(0, 3).map((o) => cutField(`${shownName(o.replica)}${onThis(o) ? '' : ' (on other operations)'}: ${outlierText(o)}`, 1000)),
  );
}

/** The context as shown: with its one-line summary, every field cut to fit. */
interface ShownContext extends IncidentContext {
  readonly summary: string;
}

/** `GET /orders/{id}: error_rate_spike; error rate 12.00%, p50 40ms; service DEGRADED`: what opened the incident first. */
function summaryOf(context: IncidentContext): string {
  const what = context.openedBy ?? (context.patterns.length ? `no open incident; ${context.patterns.join(', ')} now` : 'no open incident');
  return `${context.operation}: ${what}; error rate ${percent(context.errorRate)}, p50 ${context.trafficSeen ? ms(context.p50) : 'n/a'}; service ${context.serviceStatus}`;
}

function boundedContext(request: PageRequest, context: IncidentContext, analysis: AnalysisReads): string {
  const chars = fieldChars(request.maxBytes);
  const base: ShownContext = {
    ...context,
    summary: cutField(summaryOf(context), chars),
    operation: shownName(context.operation),
    onCallChannel: shownName(context.onCallChannel),
    runbookUrl: cutField(context.runbookUrl, chars),
    causeReason: context.causeReason === undefined ? undefined : cutField(context.causeReason, chars),
    lastDeployment: context.lastDeployment && { ...context.lastDeployment, version: shownName(context.lastDeployment.version) },
  };
  const changes = context.changes.map((c) => ({ ...c, kind: shownName(c.kind), description: cutField(c.description, chars) }));
  const actions = context.actions.map((a) => ({ ...a, name: shownName(a.name), description: cutField(a.description, chars) }));
  const similar = context.similar.map((s) => ({ id: shownName(s.id), cause: cutField(s.cause, chars), resolution: cutField(s.resolution, chars) }));
  const operations = affectedWorstFirst(context, analysis);

  // Lines as formatIncidentContext shows them, to size the page; inline lists are joined by two characters.
  const listings: TextListing[] = [
    { noun: 'affected operation', items: operations.map((name) => shownName(name)), overhead: 2 },
    { noun: ['affected dependency', 'affected dependencies'], items: context.affectedDependencies.map((name) => shownName(name)), overhead: 2 },
    { noun: 'service health reason', items: context.serviceReasons.map((r) => cutField(r, chars)), overhead: 2 },
    {
      noun: 'suggested action',
      items: actions.map((a) => `[${a.priority}] ${a.name} - ${a.description}${a.requiresApproval ? ' [NEEDS APPROVAL]' : ''}`),
      kinds: actions.map((a) => a.priority),
    },
    { noun: 'change', items: changes.map((c) => changeLine(c, base.causeReason)) },
    { noun: 'affected consumer', items: context.affectedConsumers.map((name) => shownName(name)), overhead: 2 },
    { noun: 'similar past incident', items: similar.map((s) => `${s.id}: cause ${s.cause}; resolution ${s.resolution}`) },
  ];
  return pageText(request, listings, (shown, parts) => {
    const slice = <T>(list: readonly T[], i: number) => list.slice(parts[i]!.range.start, parts[i]!.range.end);
    const text = formatIncidentContext({
      ...base,
      affectedOperations: shown[0]!,
      affectedDependencies: shown[1]!,
      serviceReasons: shown[2]!,
      actions: slice(actions, 3),
      changes: slice(changes, 4),
      affectedConsumers: shown[5]!,
      similar: slice(similar, 6),
    });
    return withMarkers(withMarkers(withMarkers(text, 'SUGGESTED ACTIONS', parts[3]!), 'WHAT CHANGED', parts[4]!), 'SIMILAR PAST INCIDENTS', parts[6]!);
  }).text;
}

/** The incident's operation first, then the others worst first. */
function affectedWorstFirst(context: IncidentContext, analysis: AnalysisReads): string[] {
  const health = context.affectedOperations.filter((name) => name !== context.operation).map((name) => ({ name, health: analysis.operationHealth(name) }));
  health.sort((a, b) => (a.health && b.health ? operationsWorstFirst(a.health, b.health) : a.health ? -1 : b.health ? 1 : 0));
  return [...(context.affectedOperations.includes(context.operation) ? [context.operation] : []), ...health.map((h) => h.name)];
}

/**
 * Puts a list's page markers into its section of the formatted context: the earlier-pages marker
 * before the section's items (its last lines), the left-out marker after them.
 */
function withMarkers(text: string, title: string, part: ShownPart): string {
  if (!part.before && !part.after) return text;
  const blocks = text.split('\n\n');
  const index = blocks.findIndex((block) => block.split('\n')[0] === title);
  if (index < 0) return text;
  let lines = blocks[index]!.split('\n');
  const count = part.range.end - part.range.start;
  if (count === 0 && lines.at(-1) === '  none') lines = lines.slice(0, -1);
  const first = lines.length - count;
  blocks[index] = [...lines.slice(0, first), ...(part.before ? [`  ${part.before}`] : []), ...lines.slice(first), ...(part.after ? [`  ${part.after}`] : [])].join('\n');
  return blocks.join('\n\n');
}

const SHOWN_TRIPS = 3;

function tripText(t: GuardrailTrip): string {
  const observed =
    t.guardrail === 'cost_budget'
      ? `$${t.observed.toFixed(4)} against $${t.limit.toFixed(4)}`
      : t.guardrail === 'loop'
        ? `${t.observed} identical calls of ${t.tool ?? 'a tool'} in a row, threshold ${t.limit}`
        : `step ${t.observed} refused, max ${t.limit}`;
  return `${isoTime(t.time)} agent ${shownName(t.agent)} stopped by ${t.guardrail} (${observed}; invocation ${t.invocationId})`;
}

/** Adds the `Guardrails:` line after the last field of WHAT IS HAPPENING, aligned with the other fields. */
function withGuardrailTrips(text: string, trips: readonly GuardrailTrip[], chars: number): string {
  const shown = trips.slice(0, SHOWN_TRIPS).map(tripText);
  const more = trips.length > SHOWN_TRIPS ? `; and ${trips.length - SHOWN_TRIPS} earlier` : '';
  const value = cutField(`${plural(trips.length, 'trip')} in the last hour: ${shown.join('; ')}${more}`, chars);
  const blocks = text.split('\n\n');
  const index = blocks.findIndex((block) => block.startsWith('WHAT IS HAPPENING'));
  if (index < 0) return text;
  const lines = blocks[index]!.split('\n');
  const width = /^( {2}Operation:\s+)/.exec(lines[1] ?? '')?.[1]?.length ?? 18;
  lines.push(`  ${'Guardrails:'.padEnd(Math.max(12, width - 2))}${value}`);
  blocks[index] = lines.join('\n');
  return blocks.join('\n\n');
}

/**
 * `latency_degradation (since 12:00:03Z: Sustained latency elevation above baseline)`,
 * `error_rate_spike forming, 6 s of evidence`, `cold_start (earlier in the episode: ...)`.
 */
function patternText(line: PatternLine, nowMs: number): string {
  const since = line.sinceMs === undefined ? '' : isoTime(line.sinceMs).slice(11);
  if (line.state === 'forming') return `${line.pattern} forming, ${durationText(Math.max(0, nowMs - (line.sinceMs ?? nowMs)))} of evidence`;
  const when = line.state === 'now' ? (since ? `since ${since}` : 'now') : 'earlier in the episode';
  return `${line.pattern} (${when}: ${PATTERN_DESCRIPTIONS[line.pattern]})`;
}

/** One WHAT CHANGED line: `<time> <kind>: <description>`, flagged as the probable cause or as an action taken. */
export function changeLine(change: ChangeLine, causeReason: string | undefined): string {
  const flag = change.probableCause ? `  PROBABLE CAUSE (${causeReason ?? 'closest change'})` : change.actionTaken ? '  ACTION TAKEN (not a cause)' : '';
  return `${isoTime(change.timestamp)} ${change.kind}: ${change.description}${flag}`;
}

const SHOWN_REPLICAS = 8;

/** `2 replicas: web-1:81:a3f0, web-2:77:19cc`: the fleet's replicas that detected the incident, the first few. */
function seenOn(replicas: readonly string[]): string {
  const more = replicas.length > SHOWN_REPLICAS ? ` and ${replicas.length - SHOWN_REPLICAS} more` : '';
  return `${plural(replicas.length, 'replica')}: ${replicas
    .slice(0, SHOWN_REPLICAS)
    .map((r) => shownName(r, 128))
    .join(', ')}${more}`;
}

/** get_incident_context's text layout (spec "Incident"), of a context whose fields are already cut to fit. */
export function formatIncidentContext(context: ShownContext): string {
  const changed = [
    context.lastDeployment
      ? `Last deploy: ${context.lastDeployment.version} at ${isoTime(context.lastDeployment.timestamp)}${context.lastDeployment.probableCause ? '  PROBABLE CAUSE' : ''}`
      : 'Last deploy: unknown',
    ...context.changes.map((c) => changeLine(c, context.causeReason)),
  ];
  const escalation = `Escalation level: ${context.escalationLevel.toUpperCase()}${context.onCallChannel && context.escalationLevel !== 'auto_resolve' ? ` (${context.onCallChannel})` : ''}`;
  return blocks(
    `INCIDENT ${context.id ?? 'none (no open incident for this operation)'}`,
    fields([['SEVERITY', context.severity], ['TIME', isoTime(context.time)], ['SUMMARY', context.summary], ...(context.seenOn.length ? ([['SEEN ON', seenOn(context.seenOn)]] as const) : [])]).join(
      '\n',
    ),
    section(
      'WHAT IS HAPPENING',
      fields([
        ['Operation', operationLabel(context.operation)],
        ['Error rate', againstBaseline(percent(context.errorRate), context.baseline, 'errorRate', percent)],
        ['Latency P50', againstBaseline(ms(context.p50), context.baseline, 'p50', ms)],
        ['Latency P99', againstBaseline(ms(context.p99), context.baseline, 'p99', ms)],
        ['Anomaly score', `${context.anomalyScore.toFixed(2)}${context.peakAnomalyScore > context.anomalyScore ? ` (peak ${context.peakAnomalyScore.toFixed(2)})` : ''}`],
        ['Service health', `${context.serviceStatus}${context.serviceReasons.length ? ` (${context.serviceReasons.join('; ')})` : ''}`],
        ['Patterns', context.patternLines.length ? context.patternLines.map((p) => patternText(p, context.readAt)).join('; ') : 'none'],
      ]),
    ),
    section('WHAT CHANGED', changed),
    section(
      'WHAT IS AFFECTED',
      fields([
        ['Scope', context.scope],
        ['User-facing', context.userFacing ? 'YES' : 'NO'],
        ['Operations', context.affectedOperations.join(', ') || 'none'],
        ['Dependencies', context.affectedDependencies.join(', ') || 'none'],
        ['Consumers', context.affectedConsumers.join(', ') || 'none'],
      ]),
    ),
    section('SUGGESTED ACTIONS', [
      escalation,
      ...(context.runbookUrl ? [`Runbook: ${context.runbookUrl}`] : []),
      `Retryable: ${context.retryable ? 'YES' : 'NO'}; safe to restart: ${context.safeToRestart ? 'YES' : 'NO'}`,
      ...context.actions.map((a) => `[${a.priority}] ${a.name} - ${a.description}${a.requiresApproval ? ' [NEEDS APPROVAL]' : ''}`),
    ]),
    section(
      'SIMILAR PAST INCIDENTS',
      context.similar.map((s) => `${s.id}: cause ${s.cause}; resolution ${s.resolution}`),
    ),
  );
}
