/**
 * The status page's HTML: what the tools read (src/mcp/views), laid out for a person. It computes
 * no figure: each one comes from the view the matching tool reads, formatted by the tools' own
 * helpers (src/mcp/text-layout.ts), and carries its raw value in `data-value` so a test can hold
 * it against the tool's JSON.
 *
 * Bounded like the tools: the operations table shows the MAX_OPERATION_ROWS worst first, charts
 * the MAX_CHARTS worst, the actions and sessions the newest MAX_RECENT; the rest are counted.
 */
import type { OperationHealth } from '../../analysis/health-aggregator.js';
import type { MinuteStats } from '../../analysis/minute-history.js';
import type { SloStatus } from '../../analysis/slo-tracker.js';
import type { AuditEntry } from '../../incidents/audit-trail.js';
import { openedBy } from '../../incidents/incident-tracker.js';
import { moreMarker, shownName } from '../bounded-output.js';
import { againstBaseline, duration, isoTime, ms, multiple, percent, perMinute, plural } from '../text-layout.js';
import type { CallerIdentity } from '../tool-definition.js';
import type { ToolServices } from '../tool-services.js';
import { approvalText } from '../tools/execute-remediation.js';
import { outlierText } from '../tools/fleet-lines.js';
import { changeLine } from '../tools/get-incident-context.js';
import { actorText } from '../tools/get-recent-agent-actions.js';
import { operationKind } from '../tools/worst-first.js';
import { type ApprovalView, mayDecide, readApprovals } from '../views/approval-view.js';
import { readHealth } from '../views/health-view.js';
import { readHistory } from '../views/history-view.js';
import { type IncidentView, readOpenIncidents } from '../views/incident-view.js';
import { readSlos } from '../views/slo-view.js';
import { lineChart } from './charts.js';
import { type Html, html } from './html.js';

export const MAX_OPERATION_ROWS = 50;
export const MAX_CHARTS = 4;
export const MAX_RECENT = 20;
const HISTORY_MINUTES = 60;
const MINUTE_MS = 60_000;
const BUDGET_POINTS = 60;

export interface PageViewer {
  readonly caller: CallerIdentity;
  /** The CSRF token of the viewer's sign-in session; undefined for an anonymous viewer (no forms). */
  readonly csrf: string | undefined;
  /** Whether the server has tokens: without, there is nobody to sign in as. */
  readonly canSignIn: boolean;
}

/** The whole document: head, the header, `main` (what refreshes) and the script. */
export function pageDocument(title: string, body: Html, refreshing: boolean): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><link rel="stylesheet" href="/status-page.css">${refreshing ? html`<script src="/status-page.js" defer></script>` : ''}</head>
<body>${body}</body></html>`.text;
}

export function signInBody(csrf: string, message: string | undefined): Html {
  return html`<main class="sign-in"><h1>Sign in</h1>
<p>This page shows what the service's agents see. Sign in with a tool server token (<code>svc.mcp.tokens</code>, or an OAuth access token where <code>svc.mcp.oauth</code> is set); you see what its role may read.</p>
${message ? html`<p class="notice bad" role="alert">${message}</p>` : ''}
<form method="post" action="/sign-in"><input type="hidden" name="csrf" value="${csrf}"><label for="token">Token</label><input id="token" name="token" type="password" autocomplete="current-password" required maxlength="4096"><button type="submit">Sign in</button></form></main>`;
}

export function pageHeader(service: string, viewer: PageViewer): Html {
  const who = viewer.csrf
    ? html`<form method="post" action="/sign-out" class="who"><span>${viewer.caller.agentName} (${viewer.caller.role})</span><input type="hidden" name="csrf" value="${viewer.csrf}"><button type="submit">Sign out</button></form>`
    : html`<p class="who">anonymous (${viewer.caller.role})${viewer.canSignIn ? html` <a href="/sign-in">Sign in</a>` : ''}</p>`;
  return html`<header><p class="service">${shownName(service)}</p>${who}</header>`;
}

/** `main`: every view the viewer's role may read. */
export function mainSection(services: ToolServices, viewer: PageViewer, notice: string | undefined): Html {
  const noticeLine = notice ? html`<p class="notice" role="status">${notice}</p>` : '';
  if (!viewer.caller.permissions.has('READ'))
    return html`<main id="main">${noticeLine}<p>Role "${viewer.caller.role}" grants no READ: it may read nothing on this page, as its tool calls may not.</p></main>`;
  const health = readHealth(services);
  const decides = viewer.csrf !== undefined && mayDecide(services, viewer.caller);
  return html`<main id="main" data-read-at="${health.summary.timestamp}">${noticeLine}
<section aria-labelledby="status-h"><h1 id="status-h">Status <span class="badge ${health.summary.status}" data-status="${health.summary.status}">${health.summary.status}</span></h1>
<p class="muted">As get_service_health reads it at ${health.summary.timestamp}${health.fleet ? html`; ${health.fleet.note}` : ''}</p>
${health.summary.reasons.length ? html`<ul class="reasons">${health.summary.reasons.map((r) => html`<li>${r}</li>`)}</ul>` : html`<p>No reason for concern: everything within baseline.</p>`}
${health.storeNote ? html`<p class="notice bad">${health.storeNote}</p>` : ''}</section>
${decides ? approvalsSection(readApprovals(services), viewer.csrf!) : ''}
${incidentsSection(readOpenIncidents(services))}
${operationsSection(services, health.operations, health.recentMinutes)}
${slosSection(services, readSlos(services).statuses)}
${dependenciesSection(services, health)}
${actionsSection(services, services.remediation.approvals.mayApprove(viewer.caller))}
${sessionsSection(services)}</main>`;
}

function approvalsSection(approvals: readonly ApprovalView[], csrf: string): Html {
  const card = ({ request, incident, playbook, steps }: ApprovalView) => html`<article class="approval" data-approval="${request.id}">
<h3>${request.id}: ${shownName(request.action)}</h3>
<dl><dt>Asked by</dt><dd>${request.requestedBy}</dd><dt>Why</dt><dd>${request.reason}</dd><dt>Open until</dt><dd>${isoTime(request.expiresAt)}</dd>
<dt>Incident</dt><dd>${incident ? html`${incident.id} on ${shownName(incident.operation)} (${openedBy(incident)})` : 'no open incident this action answers'}</dd>
<dt>Playbook</dt><dd>${steps.length ? steps.map((s) => html`${playbook.name} step ${s.index}: ${s.description}${s.requiresApproval ? ' (requires approval)' : ''}. `) : `${playbook.name} has no step with this action`}</dd>
${request.humanOnly ? html`<dt>Approval</dt><dd>by a person only (svc.mcp.human-approval)</dd>` : ''}</dl>
<form method="post" action="/approvals" class="decide"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="id" value="${request.id}">
<label for="reason-${request.id}">Reason (recorded in the audit trail; required to decline)</label><input id="reason-${request.id}" name="reason" maxlength="500">
<button type="submit" name="decision" value="approve">Approve</button> <button type="submit" name="decision" value="decline" class="secondary">Decline</button></form></article>`;
  return html`<section aria-labelledby="approvals-h"><h2 id="approvals-h">Approval requests (${approvals.length})</h2>${approvals.length ? approvals.map(card) : html`<p>None open.</p>`}</section>`;
}

function incidentsSection(incidents: readonly IncidentView[]): Html {
  const card = ({ context: c }: IncidentView) => html`<article class="incident" data-incident="${c.id ?? ''}" data-operation="${c.operation}">
<h3>${c.id}: ${shownName(c.operation)} <span class="badge">${c.severity}</span></h3>
<dl><dt>What</dt><dd>${c.openedBy ?? 'no open incident'}; error rate ${againstBaseline(percent(c.errorRate), c.baseline, 'errorRate', percent)}, p99 ${againstBaseline(ms(c.p99), c.baseline, 'p99', ms)}</dd>
<dt>Since</dt><dd>${isoTime(c.time)}</dd>
<dt>Probable cause</dt><dd>${
    c.causeReason
      ? changeOf(
          c.changes.find((ch) => ch.probableCause),
          c.causeReason,
        )
      : 'none found among the recent changes'
  }</dd>
<dt>Affected</dt><dd>${c.scope}, user-facing ${c.userFacing ? 'YES' : 'NO'}; operations: ${c.affectedOperations.map((o) => shownName(o)).join(', ') || 'none'}; dependencies: ${c.affectedDependencies.join(', ') || 'none'}; consumers: ${c.affectedConsumers.join(', ') || 'none'}</dd>
<dt>Escalation</dt><dd>${c.escalationLevel}${c.onCallChannel ? ` (${c.onCallChannel})` : ''}</dd></dl>
<h4>Suggested actions</h4><ul>${c.actions.map((a) => html`<li>[${a.priority}] ${shownName(a.name)}: ${a.description}${a.requiresApproval ? html` <strong>needs approval</strong>` : ''}</li>`)}</ul>
<h4>Timeline</h4><ol class="timeline">${c.changes.map((ch) => html`<li class="${ch.actionTaken ? 'action' : ch.probableCause ? 'cause' : ''}">${changeLine(ch, c.causeReason)}</li>`)}</ol></article>`;
  return html`<section aria-labelledby="incidents-h"><h2 id="incidents-h">Open incidents (${incidents.length})</h2>${incidents.length ? incidents.map(card) : html`<p>None open.</p>`}</section>`;
}

function changeOf(change: { kind: string; description: string; timestamp: number } | undefined, reason: string): string {
  return change ? `${change.kind} at ${isoTime(change.timestamp)}: ${change.description} (${reason})` : reason;
}

function figure(name: string, value: number, text: string): Html {
  return html`<td data-figure="${name}" data-value="${value}">${text}</td>`;
}

function operationsSection(services: ToolServices, operations: readonly OperationHealth[], recentMinutes: number): Html {
  const shown = operations.slice(0, MAX_OPERATION_ROWS);
  const row = (op: OperationHealth) => html`<tr data-operation="${op.operation}"><th scope="row">${shownName(op.operation)}</th>
${figure('throughputPerMinute', op.throughputPerMinute, perMinute(op.throughputPerMinute))}${figure('requestCount', op.requestCount, String(op.requestCount))}
${figure('errorRate', op.errorRate, againstBaseline(percent(op.errorRate), op.baseline, 'errorRate', percent))}
${figure('p50Ms', op.p50, againstBaseline(ms(op.p50), op.baseline, 'p50', ms))}${figure('p99Ms', op.p99, againstBaseline(ms(op.p99), op.baseline, 'p99', ms))}
<td>${op.elevated ? html`<strong>ELEVATED</strong> ${op.elevatedReasons.join('; ')}` : operationKind(op)}</td></tr>`;
  const left = operations.length - shown.length;
  const charts = operations.slice(0, MAX_CHARTS).map((op) => operationChart(services, op.operation));
  return html`<section aria-labelledby="operations-h"><h2 id="operations-h">Operations (${plural(operations.length, 'operation')}, last ${plural(recentMinutes, 'minute')})</h2>
<div class="scroll"><table><thead><tr><th scope="col">Operation</th><th scope="col">Rate</th><th scope="col">Requests</th><th scope="col">Error rate (baseline)</th><th scope="col">p50 (baseline)</th><th scope="col">p99 (baseline)</th><th scope="col">State</th></tr></thead>
<tbody>${shown.map(row)}</tbody></table></div>${left > 0 ? html`<p class="muted">${moreMarker('operation', operations.slice(MAX_OPERATION_ROWS).map(operationKind), 'get_service_health pages through them all')}</p>` : ''}
<h3>Last hour, worst first</h3><div class="charts">${charts}</div></section>`;
}

function operationChart(services: ToolServices, operation: string): Html {
  const view = readHistory(services, operation);
  // One slot per minute of the hour, the current one last; minutes the history lacks had no traffic.
  const slots: (MinuteStats | undefined)[] = new Array(HISTORY_MINUTES).fill(undefined);
  if (view) {
    const last = Math.floor(view.now / MINUTE_MS);
    for (const m of view.history.series(view.now, HISTORY_MINUTES)) {
      const slot = HISTORY_MINUTES - 1 - (last - Math.floor(m.minuteStart / MINUTE_MS));
      if (slot >= 0 && slot < HISTORY_MINUTES) slots[slot] = m;
    }
  }
  const traffic = (pick: (m: MinuteStats) => number) => slots.map((m) => (m && m.count > 0 ? pick(m) : undefined));
  return html`<div class="chart-group"><h4>${shownName(operation)}</h4>
${lineChart('Requests per minute', [{ label: 'requests', values: slots.map((m) => m?.count ?? 0), tone: 'main' }], (v) => String(Math.round(v)))}
${lineChart('Error rate', [{ label: 'error rate', values: traffic((m) => m.errorRate), tone: 'bad' }], (v) => percent(v, 1))}
${lineChart(
  'Latency p50 and p99',
  [
    { label: 'p99', values: traffic((m) => m.p99), tone: 'bad' },
    { label: 'p50', values: traffic((m) => m.p50), tone: 'main' },
  ],
  ms,
)}</div>`;
}

function slosSection(services: ToolServices, statuses: readonly SloStatus[]): Html {
  const row = (s: SloStatus) => html`<tr data-slo="${s.name}"><th scope="row">${shownName(s.name)}</th><td>${s.compliance}</td>
${figure('budgetRemaining', s.budgetRemaining, percent(s.budgetRemaining))}${figure('burnRate', s.burnRate, multiple(s.burnRate))}
<td>${multiple(s.burnRates.oneHour)} / ${multiple(s.burnRates.fiveMinutes)}${s.fastBurn ? ' FAST' : ''}</td><td>${multiple(s.burnRates.sixHours)} / ${multiple(s.burnRates.thirtyMinutes)}${s.slowBurn ? ' SLOW' : ''}</td><td>${duration(s.windowMs)}</td></tr>`;
  const charts = statuses
    .slice(0, MAX_CHARTS)
    .map((s) =>
      lineChart(
        `${shownName(s.name)}: budget remaining over its ${duration(s.windowMs)} window`,
        [{ label: 'budget remaining', values: services.analysis.sloBudgetCurve(s.name, BUDGET_POINTS).map((p) => p.budgetRemaining), tone: 'main' }],
        (v) => percent(v, 1),
        1,
      ),
    );
  return html`<section aria-labelledby="slos-h"><h2 id="slos-h">SLOs (${statuses.length})</h2>
${statuses.length ? html`<div class="scroll"><table><thead><tr><th scope="col">SLO</th><th scope="col">Compliance</th><th scope="col">Budget remaining</th><th scope="col">Burn</th><th scope="col">Burn 1h / 5m</th><th scope="col">Burn 6h / 30m</th><th scope="col">Window</th></tr></thead><tbody>${statuses.map(row)}</tbody></table></div><div class="charts">${charts}</div>` : html`<p>No SLO is configured.</p>`}</section>`;
}

function dependenciesSection(services: ToolServices, health: ReturnType<typeof readHealth>): Html {
  const breakers = services.analysis.circuitBreakerStatuses();
  const replicas = health.replicas;
  return html`<section aria-labelledby="deps-h"><h2 id="deps-h">Dependencies and circuit breakers</h2>
<div class="scroll"><table><thead><tr><th scope="col">Dependency</th><th scope="col">State</th><th scope="col">Error rate</th><th scope="col">Average</th><th scope="col">Calls (${duration(health.dependencyWindowMs)})</th></tr></thead>
<tbody>${health.dependencies.map((d) => html`<tr data-dependency="${d.name}"><th scope="row">${shownName(d.name)}</th><td>${d.state}${d.stale ? ' (stale)' : ''}</td>${figure('errorRate', d.errorRate, percent(d.errorRate))}${figure('averageLatencyMs', d.averageLatencyMs, ms(d.averageLatencyMs))}<td>${d.calls}</td></tr>`)}</tbody></table></div>
${breakers.length ? html`<ul>${breakers.map((b) => html`<li data-breaker="${b.name}">Circuit breaker ${shownName(b.name)} (${shownName(b.dependency)}): <strong>${b.state}</strong> since ${isoTime(b.since)}, ${plural(b.failureCount, 'failure')}</li>`)}</ul>` : html`<p>No circuit breaker is registered.</p>`}
${replicas ? html`<h3>Replicas (${replicas.replicas.length})</h3><ul>${replicas.replicas.map((r) => html`<li>${shownName(r.id)}${r.self ? ' (this replica)' : ''}: ${r.status}, last seen ${isoTime(r.seenAt)}${r.outlier ? `; ${outlierText(r.outlier)}` : ''}</li>`)}</ul>` : ''}</section>`;
}

function actionsSection(services: ToolServices, mayApprove: boolean): Html {
  const entries = services.audit.recent(MAX_RECENT);
  const line = (e: AuditEntry) =>
    html`<li class="${e.outcome}">${isoTime(e.timestamp)} ${e.outcome.toUpperCase()} ${shownName(e.action)} by ${actorText(e, mayApprove)}; reason: ${e.reason}; approval: ${approvalText(e, mayApprove)}</li>`;
  return html`<section aria-labelledby="actions-h"><h2 id="actions-h">Recent agent actions</h2>${entries.length ? html`<ol class="timeline">${entries.map(line)}</ol>` : html`<p>None recorded.</p>`}</section>`;
}

function sessionsSection(services: ToolServices): Html {
  const sessions = services.sessions.list().slice(-MAX_RECENT).reverse();
  return html`<section aria-labelledby="sessions-h"><h2 id="sessions-h">Open sessions (${services.sessions.list().length})</h2>${
    sessions.length
      ? html`<ul>${sessions.map((s) => html`<li>${s.id} on incident ${s.incidentId}, opened ${isoTime(s.created)} by ${shownName(s.createdBy)}, ${plural(s.entries.length, 'entry', 'entries')}</li>`)}</ul>`
      : html`<p>None.</p>`
  }</section>`;
}
