/**
 * get_service_health: the first call of an agent workflow. Current service status with its
 * reasons, per-operation metrics over the recent minutes (svc.health.recent-minutes) with ELEVATED flags, dependency states
 * and SLO budgets.
 *
 * `format=json` returns the same content as pretty JSON text and as `structured`:
 * { service, status, timestamp, reasons: string[],
 *   operations: [{ name, requestCount, errorRate, p50Ms, p99Ms, throughputPerMinute, elevated,
 *                  elevatedReasons: string[], baseline: { latencyP50Ms, latencyP99Ms, errorRate } | null }],
 *   dependencies: [{ name, state, errorRate, averageLatencyMs, calls }],
 *   slos: [{ name, compliance, budgetRemaining, burnRate }] }
 * Rates and budgets are fractions (0.025 for 2.5 %), latencies milliseconds.
 */
import type { HealthSummary, OperationHealth } from '../../analysis/health-aggregator.js';
import { FORMAT, READ_ONLY, textResult, type ToolDefinition } from '../tool-definition.js';
import { formatArgument } from './operation-argument.js';
import { blocks, columns, headerLine, ms, multiple, percent, plural, section } from '../text-layout.js';


export const getServiceHealth: ToolDefinition = {
  name: 'get_service_health',
  title: 'Service health',
  description:
    'Current health of the service: STATUS (HEALTHY, DEGRADED or CRITICAL) with its reasons, each operation (error rate, p50, p99, ELEVATED when off baseline), each dependency (state, error rate, average latency) and each SLO (budget remaining, burn rate). Call this first.',
  permission: 'READ',
  parameters: {
    format: FORMAT,
  },
  required: [],
  annotations: READ_ONLY,
  handler(args, { services }) {
    const format = formatArgument(args.format);
    const summary = services.engine.healthSummary();
    if (format === 'text') return textResult(healthText(summary, services.engine.health.recentMinutes));
    const json = healthJson(summary);
    return textResult(JSON.stringify(json, null, 2), json);
  },
};

function healthText(summary: HealthSummary, recentMinutes: number): string {
  // Elevated operations first: they are what the agent came for.
  const operations = [...summary.operations].sort((a, b) => Number(b.elevated) - Number(a.elevated));
  return blocks(
    headerLine(`SERVICE HEALTH: ${summary.service}`, `STATUS: ${summary.status}`, summary.timestamp),
    section(`OPERATIONS (${plural(operations.length, 'operation')}, last ${plural(recentMinutes, 'minute')})`, columns(operations.map(operationCells))),
    section(
      'DEPENDENCIES',
      columns(summary.dependencies.map((d) => [d.name, d.state, `err ${percent(d.errorRate)}`, `avg ${ms(d.averageLatencyMs)}`, plural(d.calls, 'call')])),
    ),
    section('SLOs', columns(summary.slos.map((s) => [s.name, s.compliance, `budget ${percent(s.budgetRemaining)}`, `burn ${multiple(s.burnRate)}`]))),
    section('REASONS', summary.reasons, 'none: everything within baseline'),
  );
}

function operationCells(op: OperationHealth): string[] {
  if (op.requestCount === 0) return [op.operation, '0 req', 'idle'];
  const cells = [op.operation, `${op.requestCount} req`, `err ${percent(op.errorRate)}`, `p50 ${ms(op.p50)}`, `p99 ${ms(op.p99)}`];
  if (op.elevated) cells.push(`ELEVATED (${op.elevatedReasons.join('; ')})`);
  return cells;
}

function healthJson(summary: HealthSummary) {
  return {
    service: summary.service,
    status: summary.status,
    timestamp: summary.timestamp,
    reasons: [...summary.reasons],
    operations: summary.operations.map((op) => ({
      name: op.operation,
      requestCount: op.requestCount,
      errorRate: op.errorRate,
      p50Ms: op.p50,
      p99Ms: op.p99,
      throughputPerMinute: op.throughputPerMinute,
      elevated: op.elevated,
      elevatedReasons: [...op.elevatedReasons],
      baseline: op.baseline ? { latencyP50Ms: op.baseline.latencyP50Ms, latencyP99Ms: op.baseline.latencyP99Ms, errorRate: op.baseline.errorRate } : null,
    })),
    dependencies: summary.dependencies.map((d) => ({ name: d.name, state: d.state, errorRate: d.errorRate, averageLatencyMs: d.averageLatencyMs, calls: d.calls })),
    slos: summary.slos.map((s) => ({ name: s.name, compliance: s.compliance, budgetRemaining: s.budgetRemaining, burnRate: s.burnRate })),
  };
}
