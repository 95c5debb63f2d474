/**
 * get_cross_stack_context: one backend operation seen from the user's side and the server's.
 * The browser SDK is not wired to the backend yet, so the FRONTEND section says that no frontend
 * telemetry is connected and the tool answers with the backend, SLO and correlation sections.
 *
 * Bounded (src/mcp/bounded-output.ts): names are cut at 256 characters, and an operation with more
 * SLOs than fit `svc.mcp.max-output-bytes` has its SLO STATUS paged, worst first, ending with
 * `… 30 more SLOs (30 healthy) left out; call get_cross_stack_context with ... page=2`.
 */
import type { OperationHealth } from '../../analysis/health-aggregator.js';
import { callFor, maxOutputBytes, pageText, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { blocks, columns, fields, ms, multiple, percent, section, withBaseline } from '../text-layout.js';
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
    const { engine } = services;
    const operation = args.operation_name;
    // An operation with an SLO but no traffic yet is known too: its SLO section still says something.
    if (!engine.sloTracker.hasSlo(operation)) requireKnownOperation(services, operation);
    const health = engine.health.getOperationHealth(operation);
    const slos = engine.sloTracker
      .statuses()
      .filter((s) => s.operationName === operation)
      .sort(slosWorstFirst);
    const request = { tool: 'get_cross_stack_context', maxBytes: maxOutputBytes(services), page: args.page, call: callFor('get_cross_stack_context', { operation_name: operation }) };
    const sloLines = columns(
      slos.map((s) => [shownName(s.name), s.type, s.compliance, `budget ${percent(s.budgetRemaining)} remaining`, `burn ${multiple(s.burnRate)}`]),
      60,
    );

    const { text } = pageText(request, [{ noun: 'SLO', items: sloLines, kinds: slos.map((s) => sloKind(s.compliance)) }], ([shown]) =>
      blocks(
        `CROSS-STACK CONTEXT: ${shownName(operation)}`,
        section('FRONTEND (User Experience)', [
          'No frontend telemetry connected: the browser SDK is not reporting to this service,',
          'so page loads, API call timings, journeys, funnels and affected users are not available.',
        ]),
        section('BACKEND', health ? backendFields(health, services.engine.health.recentMinutes) : ['No requests recorded yet.']),
        section('SLO STATUS', shown!, 'no SLO defined for this operation'),
        section('CORRELATION', [
          'Browser trace ids are linked to backend spans by W3C Trace Context: the browser sends a traceparent header',
          'with each API call and the backend span continues that trace. No frontend traces are connected yet, so none are linked.',
        ]),
      ),
    );
    return textResult(text);
  },
});

function backendFields(op: OperationHealth, recentMinutes: number): string[] {
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
    ['Operation', shownName(op.operation)],
    ['Requests', `${op.requestCount} in the last ${recentMinutes} minutes`],
    // Only an expected error rate is a baseline for errors (rule 9).
    ['Error rate', withBaseline(percent(op.errorRate), op.expectedErrorRate === undefined ? undefined : percent(op.expectedErrorRate))],
    ['P50', withBaseline(ms(op.p50), base && ms(base.latencyP50Ms))],
    ['P99', withBaseline(ms(op.p99), base && ms(base.latencyP99Ms))],
    ['Deviation', deviation],
  ]);
}
