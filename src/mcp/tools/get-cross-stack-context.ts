/**
 * get_cross_stack_context: one backend operation seen from the user's side and the server's.
 *
 * FRONTEND reads the browser telemetry svc received (src/frontend/, `svc.frontend.*`) over the
 * last 15 minutes: the route the calls came from with its criticality, page load and API call
 * P50s against the baselines the browser SDK sent, the route's journey step and the journey's
 * funnel completion against its baseline, frontend anomalies and affected users (distinct
 * sessions). Fewer than 5 samples is "insufficient data", never a figure. Without frontend
 * telemetry (disabled, nothing received yet, or no browser call reached the operation) the
 * section says which, and the tool answers with the backend, SLO and correlation sections.
 *
 * Bounded (src/mcp/bounded-output.ts): names are cut at 256 characters, and an operation with more
 * SLOs than fit `svc.mcp.max-output-bytes` has its SLO STATUS paged, worst first, ending with
 * `… 30 more SLOs (30 healthy) left out; call get_cross_stack_context with ... page=2`.
 */
import type { OperationHealth } from '../../analysis/health-aggregator.js';
import { type CrossStackView, type FrontendTelemetry, MIN_SAMPLES, median, WINDOW_MS } from '../../frontend/frontend-telemetry.js';
import { callFor, maxOutputBytes, operationLabel, pageText, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { againstBaseline, blocks, columns, fields, listSome, ms, multiple, percent, plural, section, withBaseline } from '../text-layout.js';
import { textResult } from '../tool-definition.js';
import { operationName, page, requireKnownOperation } from '../tool-params.js';
import { sloKind, slosWorstFirst } from './worst-first.js';

export const getCrossStackContext = defineTool({
  name: 'get_cross_stack_context',
  title: 'Cross-stack context',
  description:
    'Frontend and backend context of one backend operation: user experience (when browser telemetry is connected), backend error rate and latency against baselines with a deviation flag, the SLOs of the operation, and how browser traces correlate with backend spans.',
  readOnly: true,
  params: { operation_name: operationName({ known: false }), page: page() },
  handler(args, { services }) {
    const { analysis } = services;
    const operation = args.operation_name;
    // An operation with an SLO but no traffic yet is known too: its SLO section still says something.
    if (!analysis.hasSlo(operation)) requireKnownOperation(services, operation);
    const health = analysis.operationHealth(operation);
    const slos = analysis
      .sloStatuses()
      .filter((s) => s.operationName === operation)
      .sort(slosWorstFirst);
    const request = { tool: 'get_cross_stack_context', maxBytes: maxOutputBytes(services), page: args.page, call: callFor('get_cross_stack_context', { operation_name: operation }) };
    const sloLines = columns(
      slos.map((s) => [shownName(s.name), s.type, s.compliance, `budget ${percent(s.budgetRemaining)} remaining`, `burn ${multiple(s.burnRate)}`]),
      60,
    );

    const view = services.frontend?.crossStack(operation);
    const { text } = pageText(request, [{ noun: 'SLO', items: sloLines, kinds: slos.map((s) => sloKind(s.compliance)) }], ([shown]) =>
      blocks(
        `CROSS-STACK CONTEXT: ${operationLabel(operation)}`,
        section('FRONTEND (User Experience)', frontendLines(services.frontend, view, operation)),
        section(
          'BACKEND',
          health ? backendFields(health, services.analysis.recentMinutes, correlatedTraces(view)) : ['No requests recorded yet.', ...fields([['Correlated traces', correlatedTraces(view)]])],
        ),
        section('SLO STATUS', shown!, 'no SLO defined for this operation'),
        section('CORRELATION', correlationLines(services.frontend, view, operation)),
      ),
    );
    return textResult(text);
  },
});

function backendFields(op: OperationHealth, recentMinutes: number, traces: string): string[] {
  const base = op.baseline;
  const deviation =
    op.requestCount === 0
      ? `normal (no requests in the last ${recentMinutes} minutes)`
      : op.elevated
        ? `ELEVATED (${op.elevatedReasons.join('; ')})`
        : op.baselineState === 'learning'
          ? `learning (${op.samples} samples)`
          : 'normal';
  return fields([
    ['Operation', operationLabel(op.operation)],
    ['Requests', `${op.requestCount} in the last ${recentMinutes} minutes`],
    ['Error rate', againstBaseline(percent(op.errorRate), base, 'errorRate', percent)],
    ['P50', againstBaseline(ms(op.p50), base, 'p50', ms)],
    ['P99', againstBaseline(ms(op.p99), base, 'p99', ms)],
    ['Deviation', deviation],
    ['Correlated traces', traces],
  ]);
}

const WINDOW = `the last ${WINDOW_MS / 60_000} minutes`;

/** A P50 with its baseline, or "insufficient data" below MIN_SAMPLES. */
function p50Line(values: readonly number[], baselineMs: number | undefined, noun: string): string {
  const baseline = baselineMs === undefined ? undefined : ms(baselineMs);
  if (values.length < MIN_SAMPLES) return withBaseline(`insufficient data (${plural(values.length, noun)} in ${WINDOW}; ${MIN_SAMPLES} needed)`, baseline);
  return `${withBaseline(ms(median(values)), baseline)}, ${plural(values.length, noun)}`;
}

function frontendLines(frontend: FrontendTelemetry | undefined, view: CrossStackView | undefined, operation: string): string[] {
  if (!frontend || !view)
    return [
      'No frontend telemetry connected: svc.frontend.enabled is false, so no browser SDK reports to this service;',
      'page loads, API call timings, journeys, funnels and affected users are not available.',
    ];
  const summary = frontend.summary();
  if (summary.spansReceived === 0)
    return [
      `No frontend telemetry received yet: the listener${frontend.listeningAt ? ` at ${frontend.listeningAt}` : ''} has had no browser spans,`,
      'so page loads, API call timings, journeys, funnels and affected users are not available.',
    ];
  if (view.calls === 0) {
    const others = frontend.linkedOperations().map((o) => `${shownName(o.operation, 80)} (${o.calls})`);
    return [
      `Browser telemetry is connected (${plural(summary.spansInWindow, 'span')} in ${WINDOW} from ${listSome(
        summary.apps.map((a) => shownName(a.name, 80)),
        3,
      )}),`,
      `but no browser API call reached ${shownName(operation)} in ${WINDOW}.`,
      `Operations browsers called: ${listSome(others, 5)}.`,
    ];
  }
  const [top, ...otherRoutes] = view.routes;
  const route = view.route;
  const app = view.app;
  const lines: (readonly [string, string])[] = [];
  if (app) {
    const parts = [[app.name, app.version].filter(Boolean).join(' '), app.environment, app.team && `team ${app.team}`, app.domain && `domain ${app.domain}`].filter(Boolean) as string[];
    if (app.samplingRate !== undefined && app.samplingRate < 1) parts.push(`sessions sampled at ${percent(app.samplingRate, 0)}: counts are of sampled sessions`);
    lines.push(['App', parts.map((p) => shownName(p, 120)).join(', ')]);
  }
  const also = otherRoutes.length
    ? `; also ${listSome(
        otherRoutes.map((r) => `${shownName(r.route, 80)} (${r.calls})`),
        3,
      )}`
    : '';
  lines.push(['Route', `${shownName(top!.route, 120)}${route?.businessCriticality ? ` (${shownName(route.businessCriticality, 40)})` : ''}, ${top!.calls} of ${plural(view.calls, 'call')}${also}`]);
  lines.push(['Page load P50', p50Line(view.pageLoadDurationsMs, route?.pageLoadP50Ms, 'page load')]);
  const failed = view.failedCalls ? `, ${view.failedCalls} failed (${percent(view.failedCalls / view.calls, 1)})` : ', none failed';
  lines.push(['API call P50', `${p50Line(view.apiCallDurationsMs, route?.apiCallP50Ms, 'call')}${view.apiCallDurationsMs.length >= MIN_SAMPLES ? failed : ''}`]);
  const journey = view.journey;
  if (journey) {
    lines.push(['Journey', `${shownName(journey.name, 80)}, step ${journey.step} of ${journey.steps}`]);
    const ended = journey.completed + journey.abandoned;
    const baseline = journey.baselineCompletionRate === undefined ? undefined : percent(journey.baselineCompletionRate, 1);
    const where = [...journey.abandonedAtStep].sort((a, b) => b[1] - a[1]).map(([step, count]) => `${count} at step ${step}`);
    const counts = `${journey.completed} completed, ${journey.abandoned} abandoned${where.length ? ` (${listSome(where, 3)})` : ''}`;
    const avg =
      journey.avgDurationMs === undefined
        ? ''
        : `; avg duration ${withBaseline(ms(journey.avgDurationMs), journey.baselineAvgDurationS === undefined ? undefined : ms(journey.baselineAvgDurationS * 1000))}`;
    lines.push([
      'Funnel completion',
      ended < MIN_SAMPLES
        ? `${withBaseline(`insufficient data (${plural(ended, 'journey')} ended in ${WINDOW}; ${MIN_SAMPLES} needed)`, baseline)}: ${counts}`
        : `${withBaseline(percent(journey.completed / ended, 1), baseline)}: ${counts}${avg}`,
    ]);
  } else lines.push(['Journey', 'the route is not a step of a configured journey']);
  lines.push(['Anomalies', view.anomalies.length ? view.anomalies.map((a) => `${a.pattern} ${a.count}`).join(', ') : `none in ${WINDOW}`]);
  lines.push(['Affected users', `${plural(view.affectedSessions, 'session')} of ${view.sessionsOnRoutes} on these routes in ${WINDOW} (an anomaly or a failed call to this operation)`]);
  const decision = route && decisionText(route);
  if (decision) lines.push(['Decision', decision]);
  return fields(lines);
}

function decisionText(route: NonNullable<CrossStackView['route']>): string | undefined {
  const parts = [
    route.escalationLevel && `escalation ${shownName(route.escalationLevel, 40)}`,
    route.runbookUrl && `runbook ${shownName(route.runbookUrl, 200)}`,
    route.fallbackPage && `fallback page ${shownName(route.fallbackPage, 80)}`,
    route.retryOnFailure !== undefined && `retry on failure ${route.retryOnFailure ? 'yes' : 'no'}`,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : undefined;
}

function correlatedTraces(view: CrossStackView | undefined): string {
  return view ? `${plural(view.correlatedTraces, 'browser trace')} in ${WINDOW}` : 'none (no frontend telemetry connected)';
}

function correlationLines(frontend: FrontendTelemetry | undefined, view: CrossStackView | undefined, operation: string): string[] {
  const how = [
    'Browser trace ids are linked to backend spans by W3C Trace Context: the browser sends a traceparent header',
    'with each API call to an allowed origin, and the backend span continues that trace.',
  ];
  if (!frontend || !view) return [...how, 'No frontend traces are connected yet, so none are linked.'];
  if (view.calls === 0) return [...how, `No browser trace reached ${shownName(operation)} in ${WINDOW}, so none are linked.`];
  return [
    ...how,
    `${plural(view.calls, 'browser API call')} in ${WINDOW} continued in a server span of this operation (${plural(view.correlatedTraces, 'trace')});`,
    `the parent of ${view.parentsReceived} of those server spans is a browser span svc received.`,
  ];
}
