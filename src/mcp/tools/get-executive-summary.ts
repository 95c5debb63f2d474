/**
 * get_executive_summary: the service's state in about 300 tokens, for a language model's context.
 *
 * TOP ISSUES lists at most five ELEVATED operations, worst first: by error rate above baseline,
 * then by p99 relative to baseline p99. Operation names are cut at 60 characters, so the text
 * stays bounded however many operations are elevated (under 400 tokens, as characters / 4, with
 * 50 elevated operations; see test/mcp/reporting-tools.test.ts, and with 1,000 in
 * test/mcp/bounded-tools.test.ts). It takes no page: it is a summary, get_service_health lists.
 *
 * Baselines shown are configured or learned, never made up: the error-rate baseline only where an
 * expected error rate is set (rule 9). Operations still learning a baseline are counted on the
 * OPERATIONS line with their samples (at most three named). Dependencies with no call in their
 * window are stale: named apart, not as problems.
 *
 * In a fleet the figures are the fleet's; a REPLICAS line counts replicas and names outliers, and a
 * FLEET line says how fresh the merge is.
 */
import type { OperationHealth } from '../../analysis/health-aggregator.js';
import type { FleetSnapshot } from '../../fleet/fleet-view.js';
import { cutField } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { headerLine, isoTime, listSome, ms, percent, plural, withBaseline } from '../text-layout.js';
import { textResult } from '../tool-definition.js';
import { outlierText } from './fleet-lines.js';
import { operationsWorstFirst } from './worst-first.js';

const TOP_ISSUES = 5;
const MAX_NAME = 60;

export const getExecutiveSummary = defineTool({
  name: 'get_executive_summary',
  title: 'Executive summary',
  description:
    'Compact summary of the service (about 300 tokens) for a language-model context: status and why, the top five elevated operations with baselines, SLO budget, operation count and request volume.',
  permission: 'READ',
  readOnly: true,
  handler(_args, { services }) {
    const fleet = services.fleet?.current();
    const summary = services.analysis.healthSummary(fleet);
    const elevated = summary.operations.filter((op) => op.elevated).sort(operationsWorstFirst);
    const slos = summary.slos;
    const atRisk = slos.filter((s) => s.compliance === 'AT_RISK').length;
    const violated = slos.filter((s) => s.compliance === 'VIOLATED').length;
    const insufficient = slos.filter((s) => s.compliance === 'INSUFFICIENT_DATA').length;
    const unwell = summary.dependencies.filter((d) => d.state !== 'healthy' && !d.stale);
    const stale = summary.dependencies.filter((d) => d.state !== 'healthy' && d.stale);
    const learning = summary.operations.filter((op) => op.baselineState === 'learning' && op.requestCount > 0);

    const problems = [
      elevated.length && `${elevated.length} of ${plural(summary.operations.length, 'operation')} elevated`,
      violated && `${plural(violated, 'SLO')} violated`,
      atRisk && `${plural(atRisk, 'SLO')} at risk`,
      unwell.length &&
        `${plural(unwell.length, 'dependency', 'dependencies')} not healthy (${listSome(
          unwell.map((d) => `${cutField(d.name, MAX_NAME)} ${d.state}`),
          3,
        )})`,
    ].filter((p): p is string => typeof p === 'string');
    const staleNote = stale.length
      ? ` Stale, not counted: ${listSome(
          stale.map((d) => `${cutField(d.name, MAX_NAME)} last ${d.state}, no calls since ${isoTime(d.lastCallAt)}`),
          3,
        )}.`
      : '';
    const sentence =
      summary.status === 'HEALTHY'
        ? `HEALTHY: ${withinBaseline(summary.operations.length, learning.length)}, no SLO at risk.${staleNote}`
        : `${summary.status}: ${problems.length ? problems.join('; ') : cutField(summary.reasons[0] ?? 'see get_service_health', 200)}.${staleNote}`;
    const learningNote = learning.length
      ? `; learning a baseline: ${listSome(
          learning.map((op) => `${cutField(op.operation, MAX_NAME)} (${plural(op.samples, 'sample')})`),
          3,
        )}`
      : '';

    const issues = elevated.slice(0, TOP_ISSUES).map((op, i) => `  ${i + 1}. ${issueLine(op)}`);
    if (elevated.length > TOP_ISSUES) issues.push(`  (${elevated.length - TOP_ISSUES} more elevated)`);

    const lowest = slos.reduce<(typeof slos)[number] | undefined>((low, s) => (low === undefined || s.budgetRemaining < low.budgetRemaining ? s : low), undefined);
    const sloLine = lowest
      ? `${slos.filter((s) => s.compliance === 'HEALTHY').length} healthy, ${atRisk} at risk, ${violated} violated${insufficient ? `, ${insufficient} with insufficient data` : ''}; lowest ${percent(lowest.budgetRemaining)} remaining (${cutField(lowest.name, MAX_NAME)})`
      : 'no SLOs defined';
    const requests = summary.operations.reduce((sum, op) => sum + op.requestCount, 0);

    return textResult(
      [
        'EXECUTIVE SUMMARY',
        headerLine(`Service: ${cutField(summary.service, MAX_NAME)}`, summary.status, summary.timestamp),
        `STATUS: ${sentence}`,
        'TOP ISSUES',
        ...(issues.length ? issues : ['  none']),
        `SLO BUDGET: ${sloLine}`,
        `OPERATIONS: ${summary.operations.length} tracked, ${requests} requests in the last ${services.analysis.recentMinutes} minutes${learningNote}`,
        ...(services.fleet ? [replicasLine(fleet), services.fleet.note()] : []),
      ].join('\n'),
    );
  },
});

/** `REPLICAS: 3, 1 outlier (pod-b: POST /orders error rate ...)`. */
function replicasLine(fleet: FleetSnapshot | undefined): string {
  if (!fleet) return 'REPLICAS: not merged (see FLEET)';
  const outliers = fleet.outliers.map((o) => `${cutField(o.replica, MAX_NAME)}: ${cutField(outlierText(o).slice('OUTLIER: '.length), 200)}`);
  return `REPLICAS: ${fleet.replicas.length}${outliers.length ? `, ${plural(outliers.length, 'outlier')} (${listSome(outliers, 2)})` : ', no outlier'}`;
}

/** "all 4 operations within baseline", or with learning ones "3 of 4 operations within baseline, 1 learning". */
function withinBaseline(total: number, learning: number): string {
  return learning ? `${total - learning} of ${plural(total, 'operation')} within baseline, ${learning} learning` : `all ${plural(total, 'operation')} within baseline`;
}

function issueLine(op: OperationHealth): string {
  const base = op.baseline;
  return [
    `${cutField(op.operation, MAX_NAME)}:`,
    `err ${withBaseline(percent(op.errorRate), base?.errorRate === undefined ? undefined : percent(base.errorRate))},`,
    `p50 ${withBaseline(ms(op.p50), base?.latencyP50Ms === undefined ? undefined : ms(base.latencyP50Ms))},`,
    `p99 ${withBaseline(ms(op.p99), base?.latencyP99Ms === undefined ? undefined : ms(base.latencyP99Ms))}`,
  ].join(' ');
}
