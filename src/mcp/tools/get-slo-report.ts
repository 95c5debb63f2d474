/**
 * get_slo_report: every SLO's compliance, budget and burn, worst first (VIOLATED, AT_RISK,
 * HEALTHY, then by budget remaining), with the multiwindow burn rates behind the fast and slow
 * burn flags. Latency SLOs show their threshold as a duration and the fraction of requests under it.
 *
 * `format=json` returns the same content as pretty JSON text and as `structured`:
 * { service, generated, total, summary: { healthy, atRisk, violated },
 *   slos: [{ name, operation, type, compliance, target, actual, budgetRemaining, burnRate,
 *            totalRequests, failedRequests, windowMs, latencyThresholdMs: number | null,
 *            burnRates: { oneHour, fiveMinutes, sixHours, thirtyMinutes }, fastBurn, slowBurn }] }
 * target, actual and budgetRemaining are fractions; for LATENCY_P99, actual is the fraction of
 * requests at or under the threshold.
 */
import type { Engine } from '../../analysis/engine.js';
import type { SloCompliance, SloStatus } from '../../analysis/slo-tracker.js';
import { FORMAT, READ_ONLY, textResult, type ToolDefinition } from '../tool-definition.js';
import { formatArgument } from './operation-argument.js';
import { blocks, duration, fields, isoTime, ms, multiple, percent, section } from '../text-layout.js';

const SEVERITY: Record<SloCompliance, number> = { VIOLATED: 0, AT_RISK: 1, HEALTHY: 2 };

export const getSloReport: ToolDefinition = {
  name: 'get_slo_report',
  title: 'SLO report',
  description:
    'Compliance report of every SLO: HEALTHY, AT_RISK or VIOLATED, target and actual, error budget remaining, burn rate (1.0x spends the budget exactly by the end of the window), 1h/5m and 6h/30m burn rates with fast and slow burn flags, request and failure counts.',
  permission: 'READ',
  parameters: {
    format: FORMAT,
  },
  required: [],
  annotations: READ_ONLY,
  handler(args, { services }) {
    const format = formatArgument(args.format);
    const { engine } = services;
    const statuses = engine.sloTracker.statuses().sort((a, b) => SEVERITY[a.compliance] - SEVERITY[b.compliance] || a.budgetRemaining - b.budgetRemaining);
    const generated = engine.clock.now();
    if (format === 'text') return textResult(reportText(engine, statuses, generated));
    const json = reportJson(engine.serviceName, statuses, generated);
    return textResult(JSON.stringify(json, null, 2), json);
  },
};

function countBy(statuses: readonly SloStatus[]) {
  const count = (compliance: SloCompliance) => statuses.filter((s) => s.compliance === compliance).length;
  return { healthy: count('HEALTHY'), atRisk: count('AT_RISK'), violated: count('VIOLATED') };
}

function reportText(engine: Engine, statuses: readonly SloStatus[], generated: number): string {
  const { healthy, atRisk, violated } = countBy(statuses);
  return blocks(
    [
      `SLO REPORT: ${engine.serviceName}`,
      ...fields([
        ['Generated', isoTime(generated)],
        ['Total SLOs', String(statuses.length)],
      ]),
      `SUMMARY: ${healthy} healthy, ${atRisk} at risk, ${violated} violated`,
    ].join('\n'),
    ...statuses.map((s) => section(`[${s.compliance}] ${s.name} (${s.operationName}, ${s.type}, window ${duration(s.windowMs)})`, sloFields(engine, s))),
  );
}

function sloFields(engine: Engine, s: SloStatus): string[] {
  const latency = s.type === 'LATENCY_P99' && s.latencyThresholdMs !== undefined;
  // The SLO counts requests against the threshold; the recent p99 shows the duration it is at now.
  const recentP99 = engine.health.getOperationHealth(s.operationName);
  const target = latency ? `p99 <= ${ms(s.latencyThresholdMs)} (${percent(s.target)} of requests)` : `${percent(s.target)} available`;
  const actual = latency
    ? `${percent(s.actual)} under ${ms(s.latencyThresholdMs)}${recentP99?.requestCount ? `, recent p99 ${ms(recentP99.p99)}` : ''}`
    : `${percent(s.actual)} available`;
  return fields([
    ['Target', target],
    ['Actual', actual],
    ['Budget', `${percent(s.budgetRemaining)} remaining`],
    ['Burn', multiple(s.burnRate)],
    ['Requests', String(s.totalRequests)],
    ['Failed', String(s.failedRequests)],
    ['Burn 1h/5m', `${multiple(s.burnRates.oneHour)} / ${multiple(s.burnRates.fiveMinutes)} (fast burn: ${s.fastBurn ? 'YES' : 'no'})`],
    ['Burn 6h/30m', `${multiple(s.burnRates.sixHours)} / ${multiple(s.burnRates.thirtyMinutes)} (slow burn: ${s.slowBurn ? 'YES' : 'no'})`],
  ]);
}

function reportJson(service: string, statuses: readonly SloStatus[], generated: number) {
  return {
    service,
    generated: isoTime(generated),
    total: statuses.length,
    summary: countBy(statuses),
    slos: statuses.map((s) => ({
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
    })),
  };
}
