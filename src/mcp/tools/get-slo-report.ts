/**
 * get_slo_report: every SLO's compliance, budget and burn, worst first (VIOLATED, AT_RISK,
 * HEALTHY, INSUFFICIENT_DATA, then by budget remaining), with the multiwindow burn rates behind the fast and slow
 * burn flags. Latency SLOs show their threshold as a duration and the fraction of requests under it.
 *
 * Bounded (src/mcp/bounded-output.ts): the SUMMARY counts every SLO; the SLO blocks that fit
 * `svc.mcp.max-output-bytes` follow, worst first, and a cut report ends with
 * `… 180 more SLOs (2 at risk, 178 healthy) left out; call get_slo_report with page=2`.
 *
 * `format=json` returns the same content as pretty JSON text and as `structured`, paged the same way:
 * { service, generated, total, summary: { healthy, atRisk, violated },
 *   page, pages, leftOut: { slos }, nextPage: string | null,
 *   slos: [{ name, operation, type, compliance, target, actual, budgetRemaining, burnRate,
 *            totalRequests, failedRequests, windowMs, latencyThresholdMs: number | null,
 *            burnRates: { oneHour, fiveMinutes, sixHours, thirtyMinutes }, fastBurn, slowBurn,
 *            minEvents, observedMs, windowEvents }] }
 * target, actual and budgetRemaining are fractions; for LATENCY_P99, actual is the fraction of
 * requests at or under the threshold; `leftOut.slos` counts the SLOs not on this page.
 * Below the SLO's min-events, compliance is INSUFFICIENT_DATA and Actual reads
 * `insufficient data (3 of 100 events), no verdict`. The Budget line says what the budget is taken
 * of: the events in the window, or those expected over it at the rate observed so far.
 *
 * In a fleet the SLOs are computed from counts summed over the replicas (docs/state.md, Fleet
 * view), with a FLEET line (`fleet` in JSON).
 */
import type { OperationHealth } from '../../analysis/health-aggregator.js';
import type { SloCompliance, SloStatus } from '../../analysis/slo-tracker.js';
import { callFor, maxOutputBytes, type PageRequest, pageJson, pageText, shownName } from '../bounded-output.js';
import { defineTool } from '../define-tool.js';
import { blocks, duration, fields, isoTime, ms, multiple, percent, section } from '../text-layout.js';
import { textResult } from '../tool-definition.js';
import { format, page } from '../tool-params.js';
import { readSlos } from '../views/slo-view.js';
import { rank, sloKind } from './worst-first.js';

export const getSloReport = defineTool({
  name: 'get_slo_report',
  title: 'SLO report',
  description:
    'Compliance report of every SLO, worst first: HEALTHY, AT_RISK, VIOLATED or INSUFFICIENT_DATA (too few events for a verdict), target and actual, error budget remaining, burn rate (1.0x spends the budget exactly by the end of the window), 1h/5m and 6h/30m burn rates with fast and slow burn flags, request and failure counts. A long report is paged: its last line names the call for the next page.',
  permission: 'READ',
  readOnly: true,
  params: { format: format(), page: page() },
  handler(args, { services }) {
    const request: PageRequest = {
      tool: 'get_slo_report',
      maxBytes: maxOutputBytes(services),
      page: args.page,
      call: callFor('get_slo_report', { format: args.format === 'json' ? 'json' : undefined }),
    };
    const { statuses, generated, recentOf, fleet } = readSlos(services);
    const service = services.analysis.serviceName;
    if (args.format === 'text') {
      const text = reportText(request, service, recentOf, statuses, generated);
      return textResult(fleet ? `${text}\n\n${fleet.note}` : text);
    }
    const json = reportJson(request, service, statuses, generated);
    if (fleet) (json as Record<string, unknown>).fleet = fleet;
    return textResult(JSON.stringify(json, null, 2), json);
  },
});

function countBy(statuses: readonly SloStatus[]) {
  const count = (compliance: SloCompliance) => statuses.filter((s) => s.compliance === compliance).length;
  return { healthy: count('HEALTHY'), atRisk: count('AT_RISK'), violated: count('VIOLATED') };
}

type RecentOf = (operation: string) => OperationHealth | undefined;

function reportText(request: PageRequest, service: string, recentOf: RecentOf, statuses: readonly SloStatus[], generated: number): string {
  const { healthy, atRisk, violated } = countBy(statuses);
  const head = [
    `SLO REPORT: ${shownName(service)}`,
    ...fields([
      ['Generated', isoTime(generated)],
      ['Total SLOs', String(statuses.length)],
    ]),
    `SUMMARY: ${healthy} healthy, ${atRisk} at risk, ${violated} violated`,
  ].join('\n');
  const listing = {
    noun: 'SLO',
    items: statuses.map((s) => section(`[${s.compliance}] ${shownName(s.name)} (${shownName(s.operationName)}, ${s.type}, window ${duration(s.windowMs)})`, sloFields(recentOf, s))),
    kinds: statuses.map((s) => sloKind(s.compliance)),
    ranks: statuses.map((s) => rank(s.compliance === 'VIOLATED' || s.compliance === 'AT_RISK')),
    // Blocks are separated by a blank line.
    overhead: 2,
  };
  return pageText(request, [listing], ([shown]) => blocks(head, ...shown!)).text;
}

function sloFields(recentOf: RecentOf, s: SloStatus): string[] {
  const latency = s.type === 'LATENCY_P99' && s.latencyThresholdMs !== undefined;
  // The SLO counts requests against the threshold; the recent p99 shows the duration it is at now.
  const recentP99 = recentOf(s.operationName);
  const target = latency ? `p99 <= ${ms(s.latencyThresholdMs)} (${percent(s.target)} of requests)` : `${percent(s.target)} available`;
  const actual = latency ? `${percent(s.actual)} under ${ms(s.latencyThresholdMs)}${recentP99?.requestCount ? `, recent p99 ${ms(recentP99.p99)}` : ''}` : `${percent(s.actual)} available`;
  const insufficient = s.compliance === 'INSUFFICIENT_DATA';
  const events = Math.round(s.windowEvents).toLocaleString('en-US');
  const budgetOf = s.observedMs >= s.windowMs ? `${events} events in the window` : `${events} events expected over the window at the rate of the last ${elapsed(s.observedMs)}`;
  return fields([
    ['Target', target],
    ['Actual', insufficient ? `insufficient data (${s.totalRequests} of ${s.minEvents} events), no verdict` : actual],
    ['Budget', `${percent(s.budgetRemaining)} remaining of ${budgetOf}`],
    ['Burn', multiple(s.burnRate)],
    ['Requests', String(s.totalRequests)],
    ['Failed', String(s.failedRequests)],
    ['Burn 1h/5m', `${multiple(s.burnRates.oneHour)} / ${multiple(s.burnRates.fiveMinutes)} (fast burn: ${s.fastBurn ? 'YES' : 'no'})`],
    ['Burn 6h/30m', `${multiple(s.burnRates.sixHours)} / ${multiple(s.burnRates.thirtyMinutes)} (slow burn: ${s.slowBurn ? 'YES' : 'no'})`],
  ]);
}

/** `38 s`, `12 min`, `5 h`, `3 d`: time watched, rounded down to its unit. */
function elapsed(durationMs: number): string {
  const seconds = Math.floor(durationMs / 1000);
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 2 * 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

function reportJson(request: PageRequest, service: string, statuses: readonly SloStatus[], generated: number) {
  const items = statuses.map((s) => ({
    name: s.name,
    operation: s.operationName,
    type: s.type,
    compliance: s.compliance,
    target: s.target,
    actual: s.actual,
    budgetRemaining: s.budgetRemaining,
    burnRate: s.burnRate,
    totalRequests: s.totalRequests,
    failedRequests: s.failedRequests,
    windowMs: s.windowMs,
    latencyThresholdMs: s.latencyThresholdMs ?? null,
    burnRates: { ...s.burnRates },
    fastBurn: s.fastBurn,
    slowBurn: s.slowBurn,
    minEvents: s.minEvents,
    observedMs: s.observedMs,
    windowEvents: s.windowEvents,
  }));
  return pageJson(request, [{ key: 'slos', items, ranks: statuses.map((s) => rank(s.compliance === 'VIOLATED' || s.compliance === 'AT_RISK')) }], ([slos], paging) => ({
    service: shownName(service),
    generated: isoTime(generated),
    total: statuses.length,
    summary: countBy(statuses),
    ...paging,
    slos,
  }));
}
