/**
 * Every tool's answer fits svc.mcp.max-output-bytes (8192 by default) with a lot of state:
 * 1,000 operations, 200 SLOs, a full audit trail and session with long texts. Lists show the
 * worst first, say how many were left out and how to ask for them, and page 2 shows the next.
 */
import { describe, expect, it } from 'vitest';
import { BUILT_IN_TOOLS } from '../../src/mcp/built-in-tools.js';
import { INPUT_LIMITS } from '../../src/mcp/input-limits.js';
import type { ToolResult } from '../../src/mcp/tool-definition.js';
import { getCrossStackContext } from '../../src/mcp/tools/get-cross-stack-context.js';
import { getErrorAnalysis } from '../../src/mcp/tools/get-error-analysis.js';
import { getIncidentContext } from '../../src/mcp/tools/get-incident-context.js';
import { getPlaybook } from '../../src/mcp/tools/get-playbook.js';
import { getRecentAgentActions } from '../../src/mcp/tools/get-recent-agent-actions.js';
import { getServiceHealth } from '../../src/mcp/tools/get-service-health.js';
import { getSession } from '../../src/mcp/tools/get-session.js';
import { getSloReport } from '../../src/mcp/tools/get-slo-report.js';
import { getTrendAnalysis } from '../../src/mcp/tools/get-trend-analysis.js';
import { listRemediationActions } from '../../src/mcp/tools/list-remediation-actions.js';
import { verifyRemediationEffect } from '../../src/mcp/tools/verify-remediation-effect.js';
import {
  AUDIT_ENTRIES,
  bytes,
  crowdedIncident,
  DEPENDENCIES,
  LONG,
  largeService,
  longText,
  OPERATIONS,
  operationName,
  SESSION_ENTRIES,
  SLOS,
  serviceWithTools,
  WORST_DEPENDENCY,
  WORST_OPERATION,
  WORST_SLO,
  withTrailAndSession,
} from './large-state.js';
import { lineIndexes, lineWith } from './tool-harness.js';

const BOUND = 8192;
const ELEVATED = 60;

/** The lines of a section (its indented lines up to the next blank line). */
function sectionLines(text: string, title: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(title));
  if (start < 0) throw new Error(`no section ${title} in:\n${text}`);
  const end = lines.indexOf('', start);
  return lines.slice(start + 1, end < 0 ? undefined : end).map((l) => l.slice(2));
}

const isMarker = (line: string) => line.startsWith('… ');
const operationOf = (line: string) => line.split('  ')[0]!;

function expectWithin(result: ToolResult, bound = BOUND): void {
  expect(bytes(result.text)).toBeLessThanOrEqual(bound);
  if (result.structured) expect(bytes(JSON.stringify(result.structured))).toBeLessThanOrEqual(bound);
}

describe('get_service_health with 1,000 operations', () => {
  const h = largeService();

  it('fits the bound, worst first in every list, and says what is left out and how to ask for it', async () => {
    const result = await h.callTool(getServiceHealth);
    expectWithin(result);
    const operations = sectionLines(result.text, 'OPERATIONS (1000 operations, last 5 minutes)');
    const shown = operations.filter((l) => !isMarker(l));
    expect(operationOf(shown[0]!)).toBe(WORST_OPERATION);
    expect(shown[0]).toContain('ELEVATED (error rate 100.0% vs baseline 1.0%)');
    // Page 1 holds only elevated operations here: problems come before anything within baseline.
    expect(shown.every((l) => l.includes('ELEVATED'))).toBe(true);
    expect(operations.at(-1)).toBe(
      `… ${OPERATIONS - shown.length} more operations (${ELEVATED - shown.length} elevated, ${OPERATIONS - ELEVATED} within baseline) left out; call get_service_health with page=2`,
    );

    expect(sectionLines(result.text, 'DEPENDENCIES')[0]).toMatch(new RegExp(`^${WORST_DEPENDENCY} +unhealthy`));
    expect(
      sectionLines(result.text, 'SLOs')
        .slice(0, 2)
        .map((l) => l.split(' ')[0]),
    ).toEqual([WORST_SLO, 'slo-198']);
    expect(sectionLines(result.text, 'REASONS')[0]).toBe('SLO slo-198 violated');
  });

  it('shows the next operations on page 2, and every operation on exactly one page', async () => {
    const first = sectionLines((await h.callTool(getServiceHealth)).text, 'OPERATIONS')
      .filter((l) => !isMarker(l))
      .map(operationOf);
    const second = await h.callTool(getServiceHealth, { page: '2' });
    expectWithin(second);
    const lines = sectionLines(second.text, 'OPERATIONS');
    const pages = Number(/this is page 2 of (\d+)/.exec(lines[0]!)![1]);
    expect(lines[0]).toBe(`… ${first.length} operations on page 1; this is page 2 of ${pages}`);
    const worstFirst = h.engine
      .healthSummary()
      .operations.filter((o) => o.elevated)
      .sort((a, b) => b.errorRate - a.errorRate || b.p99 - a.p99 || (a.operation < b.operation ? -1 : 1))
      .map((o) => o.operation);
    expect(operationOf(lines[1]!)).toBe(worstFirst[first.length]);

    const seen: string[] = [];
    for (let page = 1; page <= pages; page++) {
      const result = await h.callTool(getServiceHealth, { page: String(page) });
      expectWithin(result);
      seen.push(
        ...sectionLines(result.text, 'OPERATIONS')
          .filter((l) => !isMarker(l))
          .map(operationOf),
      );
    }
    expect(seen).toHaveLength(OPERATIONS);
    expect(new Set(seen).size).toBe(OPERATIONS);
    expect((await h.toolError(getServiceHealth, { page: String(pages + 1) })).message).toBe(
      `page ${pages + 1} is past the last page of get_service_health: it has ${pages} pages now; call get_service_health with page=1 (up to page=${pages})`,
    );
  });

  it('pages the JSON the same way, with page, pages, leftOut and nextPage', async () => {
    const result = await h.callTool(getServiceHealth, { format: 'json' });
    expectWithin(result);
    expect(JSON.parse(result.text)).toEqual(result.structured);
    const json = result.structured as {
      page: number;
      pages: number;
      nextPage: string;
      leftOut: Record<string, number>;
      operations: { name: string }[];
      dependencies: { name: string }[];
      slos: { name: string }[];
      reasons: string[];
    };
    expect(json).toMatchObject({ service: 'catalog', status: 'CRITICAL', page: 1, nextPage: '2' });
    expect(json.operations[0]!.name).toBe(WORST_OPERATION);
    expect(json.dependencies[0]!.name).toBe(WORST_DEPENDENCY);
    expect(json.slos[0]!.name).toBe(WORST_SLO);
    expect(json.leftOut).toEqual({
      reasons: h.engine.healthSummary().reasons.length - json.reasons.length,
      operations: OPERATIONS - json.operations.length,
      dependencies: DEPENDENCIES - json.dependencies.length,
      slos: SLOS - json.slos.length,
    });

    const second = (await h.callTool(getServiceHealth, { format: 'json', page: '2' })).structured as typeof json;
    expect(second).toMatchObject({ page: 2, pages: json.pages });
    const names = new Set(json.operations.map((o) => o.name));
    expect(second.operations.some((o) => names.has(o.name))).toBe(false);
    expect(second.operations[0]!.name).not.toBe(WORST_OPERATION);
  });

  it('follows svc.mcp.max-output-bytes', async () => {
    const small = largeService('mcp:\n  max-output-bytes: 2048\n');
    const result = await small.callTool(getServiceHealth);
    expectWithin(result, 2048);
    expect(operationOf(sectionLines(result.text, 'OPERATIONS')[0]!)).toBe(WORST_OPERATION);
    expect(result.text).toMatch(/more operations \(\d+ elevated, 940 within baseline\) left out; call get_service_health with page=2/);
    expectWithin(await small.callTool(getServiceHealth, { format: 'json' }), 2048);
  });

  it('cuts an operation name too long to show, with a marker', async () => {
    const s = serviceWithTools();
    for (let i = 0; i < 5; i++) s.request(`/${'x'.repeat(5000)}`, 20);
    const result = await s.callTool(getServiceHealth);
    expectWithin(result);
    expect(result.text).toContain(`GET /${'x'.repeat(251)}… (5005 characters, cut)  5 req`);
  });
});

describe('get_slo_report with 200 SLOs', () => {
  const h = largeService();

  it('fits the bound, VIOLATED first, counts every SLO and says what is left out', async () => {
    const { text } = await h.callTool(getSloReport);
    expect(bytes(text)).toBeLessThanOrEqual(BOUND);
    expect(text).toContain('Total SLOs: 200\nSUMMARY: 198 healthy, 0 at risk, 2 violated');
    const tags = text.split('\n').filter((l) => l.startsWith('['));
    expect(tags[0]).toBe(`[VIOLATED] ${WORST_SLO} (${WORST_OPERATION}, AVAILABILITY, window 1s)`);
    expect(tags[1]).toMatch(/^\[VIOLATED\] slo-198 /);
    expect(text.split('\n').at(-1)).toBe(`… ${SLOS - tags.length} more SLOs (${SLOS - tags.length} healthy) left out; call get_slo_report with page=2`);

    const second = (await h.callTool(getSloReport, { page: '2' })).text;
    expect(bytes(second)).toBeLessThanOrEqual(BOUND);
    expect(second).toContain(`\n\n… ${tags.length} SLOs on page 1; this is page 2 of `);
    const next = second.split('\n').filter((l) => l.startsWith('['));
    expect(next.some((t) => tags.includes(t))).toBe(false);
    expect(next[0]).toMatch(/^\[HEALTHY\] /);
  });

  it('pages the JSON, with page, pages, leftOut and nextPage', async () => {
    const result = await h.callTool(getSloReport, { format: 'json' });
    expectWithin(result);
    const json = result.structured as { total: number; page: number; pages: number; leftOut: { slos: number }; nextPage: string; slos: { name: string }[] };
    expect(json).toMatchObject({ total: SLOS, page: 1, nextPage: '2', summary: { healthy: 198, atRisk: 0, violated: 2 } });
    expect(json.slos[0]!.name).toBe(WORST_SLO);
    expect(json.leftOut.slos).toBe(SLOS - json.slos.length);
    const last = (await h.callTool(getSloReport, { format: 'json', page: String(json.pages) })).structured as typeof json;
    expect(last.nextPage).toBeNull();
  });
});

describe('get_recent_agent_actions with 500 entries of 8 KB reasons', () => {
  const h = serviceWithTools();
  withTrailAndSession(h);

  it('fits the bound, newest first, cuts long reasons and results, and says what is left out', async () => {
    const { text } = await h.callTool(getRecentAgentActions);
    expect(bytes(text)).toBeLessThanOrEqual(BOUND);
    const lines = text.split('\n');
    expect(lines[0]).toBe(`RECENT AGENT ACTIONS (${AUDIT_ENTRIES})`);
    const shown = lines.slice(1, -1);
    expect(shown[0]).toMatch(/^ {2}\S+ SUCCESS enable_fallback:GET \/api\/v1\/catalog\/items-0499 by ops-bot \(operator\); reason: reason 499 0123/);
    expect(shown[0]).toMatch(/… \(8192 characters, cut\); approval: not_required; result 499 0123.*… \(\d+ characters, cut\)$/);
    const left = AUDIT_ENTRIES - shown.length;
    // Entries 0, 10, 20, ... were refused; the oldest `left` entries are 0 .. left-1.
    const refused = Math.ceil(left / 10);
    expect(lines.at(-1)).toBe(`  … ${left} more actions (${left - refused} succeeded, ${refused} refused) left out; call get_recent_agent_actions with page=2`);

    const second = (await h.callTool(getRecentAgentActions, { page: '2' })).text.split('\n');
    expect(second[1]).toMatch(new RegExp(`^ {2}… ${shown.length} actions on page 1; this is page 2 of \\d+$`));
    expect(second[2]).toContain(`reason: reason ${AUDIT_ENTRIES - 1 - shown.length} `);
  });
});

describe('get_session with 500 entries of 8 KB', () => {
  const h = serviceWithTools();
  const sessionId = withTrailAndSession(h);

  it('fits the bound, newest entry first, content cut with a marker, and says what is left out', async () => {
    const { text } = await h.callTool(getSession, { session_id: sessionId });
    expect(bytes(text)).toBeLessThanOrEqual(BOUND);
    const lines = text.split('\n');
    expect(lines.slice(0, 5)).toEqual([`SESSION ${sessionId}`, 'Incident: INC-20260101-0001', expect.stringMatching(/^Created: +\S+$/), `Entries:  ${SESSION_ENTRIES} (newest first)`, '']);
    expect(lines[5]).toMatch(/^\S+ OBSERVATION by triage-bot \(diagnostician\)$/);
    expect(lines[6]).toBe('  entry 499');
    expect(lines[7]).toMatch(/^ {2}line two 0123.*… \(8192 characters, cut\)$/);
    const shown = lines.filter((l) => / by triage-bot /.test(l)).length;
    const left = SESSION_ENTRIES - shown;
    // Entries 0, 4, 8, ... are diagnoses; the breakdown names the kinds in the order they come, newest first.
    const diagnoses = Math.ceil(left / 4);
    const kinds = (left - 1) % 4 === 0 ? `${diagnoses} DIAGNOSIS, ${left - diagnoses} OBSERVATION` : `${left - diagnoses} OBSERVATION, ${diagnoses} DIAGNOSIS`;
    expect(lines.at(-1)).toBe(`… ${left} more entries (${kinds}) left out; call get_session with session_id=${sessionId} and page=2`);

    const second = (await h.callTool(getSession, { session_id: sessionId, page: '2' })).text;
    expect(bytes(second)).toBeLessThanOrEqual(BOUND);
    expect(second).toContain(`\n\n… ${shown} entries on page 1; this is page 2 of `);
    expect(second).toContain(`\n  entry ${SESSION_ENTRIES - 1 - shown}\n`);
    expect(second).not.toContain('\n  entry 499\n');
  });
});

describe('list_remediation_actions with 40 custom actions of 8 KB descriptions', () => {
  const h = crowdedIncident();

  it('pages text and structured content alike within the bound, built-ins first, descriptions cut', async () => {
    const result = await h.callTool(listRemediationActions, { operation_name: WORST_OPERATION });
    expectWithin(result);
    const names = sectionLines(result.text, 'ACTIONS')
      .filter((l) => /^\S/.test(l) && !isMarker(l))
      .map((l) => l.split('  ')[0]);
    expect(names[0]).toBe(`enable_fallback:${WORST_OPERATION}`);
    expect(result.text).toMatch(/\n {4}does 0 0123\d*… \(8192 characters, cut\)\n/);
    const total = h.services.remediation.actionsFor(WORST_OPERATION).length;
    const left = total - names.length;
    expect(sectionLines(result.text, 'ACTIONS').at(-1)).toBe(`… ${left} more actions (${left} custom) left out; call list_remediation_actions with operation_name="${WORST_OPERATION}" and page=2`);
    const structured = result.structured as { actions: { name: string }[]; page: number; pages: number; leftOut: { actions: number }; nextPage: string };
    expect(structured.actions.map((a) => a.name)).toEqual(names);
    expect(structured).toMatchObject({ operation: WORST_OPERATION, page: 1, leftOut: { actions: left }, nextPage: '2' });

    const second = await h.callTool(listRemediationActions, { operation_name: WORST_OPERATION, page: '2' });
    expectWithin(second);
    const next = (second.structured as typeof structured).actions.map((a) => a.name);
    expect(next[0]).toBe(`custom-action-${String(names.length - 3).padStart(2, '0')}`);
    expect(second.text).toContain(`… ${names.length} actions on page 1; this is page 2 of ${structured.pages}`);
  });
});

describe('get_incident_context with 1,000 elevated operations, 40 custom actions and long changes', () => {
  const h = crowdedIncident();
  const args = { operation_name: WORST_OPERATION };

  it('keeps the layout, fits the bound, and pages each long list', async () => {
    const { text } = await h.callTool(getIncidentContext, args);
    expect(bytes(text)).toBeLessThanOrEqual(BOUND);
    const titles = ['INCIDENT INC-', 'SEVERITY:', 'WHAT IS HAPPENING', 'WHAT CHANGED', 'WHAT IS AFFECTED', 'SUGGESTED ACTIONS', 'SIMILAR PAST INCIDENTS'];
    const indexes = lineIndexes(text, titles);
    expect(indexes.every((i, n) => i >= 0 && i > (indexes[n - 1] ?? -1))).toBe(true);

    const affected = lineWith(text, 'Operations:');
    expect(affected).toMatch(new RegExp(`Operations: +${WORST_OPERATION.replace(/[/]/g, '\\/')}, ${operationName(998).replace(/[/]/g, '\\/')}, `));
    const shownOperations = affected.split(', ').length - 1;
    expect(affected).toMatch(new RegExp(`, … ${OPERATIONS - shownOperations} more affected operations left out; call get_incident_context with operation_name="${WORST_OPERATION}" and page=2$`));

    const changes = sectionLines(text, 'WHAT CHANGED');
    expect(changes[0]).toBe('Last deploy: unknown');
    expect(changes[1]).toMatch(/config_change: change 9 0123\d*… \(8192 characters, cut\)( {2}PROBABLE CAUSE)?$/);
    // Ten configuration changes and the dependency that turned unhealthy, the probable cause.
    const shownChanges = changes.filter((l) => / (config_change|dependency_state): /.test(l)).length;
    expect(changes.at(-1)).toBe(`… ${11 - shownChanges} more changes left out; call get_incident_context with operation_name="${WORST_OPERATION}" and page=2`);

    const actions = sectionLines(text, 'SUGGESTED ACTIONS');
    expect(actions.find((l) => l.startsWith('['))).toMatch(/^\[HIGH\] enable_fallback:/);
    const total = h.services.remediation.actionsFor(WORST_OPERATION).length;
    const shownActions = actions.filter((l) => l.startsWith('[')).length;
    expect(actions.at(-1)).toMatch(new RegExp(`^… ${total - shownActions} more suggested actions \\(${total - shownActions} MEDIUM\\) left out; call get_incident_context`));

    const second = (await h.callTool(getIncidentContext, { ...args, page: '2' })).text;
    expect(bytes(second)).toBeLessThanOrEqual(BOUND);
    expect(sectionLines(second, 'WHAT CHANGED')[1]).toMatch(new RegExp(`^… ${shownChanges} changes? on page 1; this is page 2 of \\d+$`));
    expect(sectionLines(second, 'WHAT CHANGED')[2]).toContain(`config_change: change ${9 - shownChanges} `);
    expect(lineWith(second, 'Operations:')).toContain(`Operations:   … ${shownOperations} affected operations on page 1; this is page 2 of `);
  });

  it('shows every affected operation on exactly one page', async () => {
    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const text = (await h.callTool(getIncidentContext, { ...args, page: String(page) })).text;
      expect(bytes(text)).toBeLessThanOrEqual(BOUND);
      const names = lineWith(text, 'Operations:')
        .replace(/^ *Operations: +/, '')
        .split(', ')
        .filter((n) => !isMarker(n));
      seen.push(...names.filter((n) => n !== 'none'));
      if (!/more affected operations? left out/.test(text)) break;
    }
    expect(seen).toHaveLength(OPERATIONS);
    expect(new Set(seen).size).toBe(OPERATIONS);
  });
});

describe('get_cross_stack_context with 300 SLOs on one operation', () => {
  it('lists the SLOs worst first within the bound and says what is left out', async () => {
    const h = serviceWithTools();
    for (let i = 0; i < 300; i++)
      h.engine.sloTracker.register({ name: `orders-slo-${i}`, operationName: WORST_OPERATION, type: 'AVAILABILITY', target: i === 299 ? 0.999 : 0.5, windowMs: 1000, minEvents: 20 });
    for (let i = 0; i < 20; i++) h.request(WORST_OPERATION.slice(4), 20, i === 0);
    const { text } = await h.callTool(getCrossStackContext, { operation_name: WORST_OPERATION });
    expect(bytes(text)).toBeLessThanOrEqual(BOUND);
    const slos = sectionLines(text, 'SLO STATUS');
    expect(slos[0]).toMatch(/^orders-slo-299 +AVAILABILITY +VIOLATED/);
    expect(slos.at(-1)).toBe(`… ${300 - (slos.length - 1)} more SLOs (${300 - (slos.length - 1)} healthy) left out; call get_cross_stack_context with operation_name="${WORST_OPERATION}" and page=2`);
    expect(text).toContain('\nCORRELATION\n');
  });
});

describe('get_error_analysis with long category names', () => {
  it('cuts category names and pages the categories within a small bound', async () => {
    const h = serviceWithTools('mcp:\n  max-output-bytes: 1024\n');
    // 20 categories (the most kept per operation), category c failing c + 1 times.
    for (let c = 0; c < 20; c++) for (let i = 0; i <= c; i++) h.failure('/pay', 30, { 'error.type': `${String(c).padStart(2, '0')}-${'E'.repeat(5000)}` });
    const { text } = await h.callTool(getErrorAnalysis, { operation_name: 'GET /pay' });
    expect(bytes(text)).toBeLessThanOrEqual(1024);
    const categories = sectionLines(text, 'ERROR CATEGORIES');
    expect(categories[0]).toMatch(/^19-E+… \(5003 characters, cut\) +20 +9\.5%$/);
    expect(categories.at(-1)).toBe(`… ${20 - (categories.length - 1)} more error categories left out; call get_error_analysis with operation_name="GET /pay" and page=2`);
    expect(text.split('\n').at(-1)).toMatch(/^SUGGESTION: /);
    const second = (await h.callTool(getErrorAnalysis, { operation_name: 'GET /pay', page: '2' })).text;
    expect(sectionLines(second, 'ERROR CATEGORIES')[1]).toMatch(new RegExp(`^${String(19 - (categories.length - 1)).padStart(2, '0')}-E+`));
  });
});

describe('every tool with a lot of state and long texts', () => {
  it('answers all 15 tools within the bound, text and structured content', async () => {
    const h = crowdedIncident();
    const sessionId = withTrailAndSession(h);
    const agent = longText('agent', 1000);
    const incidentId = h.services.incidents.openIncident(WORST_OPERATION)!.id;
    h.clock.advance(60_000);
    const calls: [string, Record<string, string>][] = [
      ['get_service_health', {}],
      ['get_service_health', { format: 'json' }],
      ['get_incident_context', { operation_name: WORST_OPERATION }],
      ['list_remediation_actions', { operation_name: WORST_OPERATION }],
      // Arguments at their limits (longer ones are refused before the handler runs).
      ['execute_remediation', { action_name: 'custom-action-01', reason: longText('because', INPUT_LIMITS.reason) }],
      ['get_recent_agent_actions', {}],
      ['get_slo_report', {}],
      ['get_slo_report', { format: 'json' }],
      ['get_executive_summary', {}],
      ['get_trend_analysis', { operation_name: WORST_OPERATION }],
      ['get_cross_stack_context', { operation_name: WORST_OPERATION }],
      ['get_playbook', { operation_name: WORST_OPERATION }],
      ['get_error_analysis', { operation_name: WORST_OPERATION }],
      ['create_session', { incident_id: incidentId }],
      // The full session takes no more entries: the one create_session made does.
      ['add_session_entry', { session_id: 'created above', type: 'ACTION', content: longText('did', INPUT_LIMITS.content) }],
      ['get_session', { session_id: sessionId }],
    ];
    const results = new Map<string, ToolResult>();
    for (const [name, args] of calls) {
      const tool = BUILT_IN_TOOLS.find((t) => t.name === name)!;
      const created = (results.get('create_session')?.structured as { sessionId?: string } | undefined)?.sessionId;
      const result = await h.callToolAs(agent, tool, args.session_id === 'created above' ? { ...args, session_id: created! } : args);
      expect(result.isError ?? false, `${name}: ${result.text.slice(0, 200)}`).toBe(false);
      expectWithin(result);
      results.set(name, result);
    }
    h.clock.advance(h.services.verifier.delayMs);
    const verified = await h.callToolAs(agent, BUILT_IN_TOOLS.find((t) => t.name === 'verify_remediation_effect')!, { action_name: 'custom-action-01' });
    expectWithin(verified);
    expect(verified.text).toMatch(/^Action: +custom-action-01$/m);
    expect(new Set([...results.keys(), 'verify_remediation_effect'])).toEqual(new Set(BUILT_IN_TOOLS.map((t) => t.name)));

    // Long single fields are cut with a marker: a custom action's result, the reason, the agent's name.
    const executed = results.get('execute_remediation')!;
    expect(lineWith(executed.text, 'Result:')).toMatch(/ran 1 0123\d*… \(8192 characters, cut\)$/);
    expect(lineWith(executed.text, 'Reason:')).toMatch(/because 0123\d*… \(1000 characters, cut\)$/);
    expect(lineWith(executed.text, 'By:')).toMatch(/agent 0123\d{183}… \(1000 characters, cut\) \(operator\)$/);
    expect((executed.structured as { message: string }).message).toMatch(/… \(8192 characters, cut\)$/);
    expect(results.get('create_session')!.text).toContain('… (1000 characters, cut) (operator)');
    expect(results.get('add_session_entry')!.text).toMatch(/ACTION by agent 0123\d*… \(1000 characters, cut\) \(operator\)$/);
    // The executive summary stays about 300 tokens with 1,000 elevated operations.
    expect(results.get('get_executive_summary')!.text.length / 4).toBeLessThan(400);
    expect(results.get('get_executive_summary')!.text).toContain(`  1. ${WORST_OPERATION}: err 100.00%`);
    expect(results.get('get_executive_summary')!.text).toContain('  (995 more elevated)');
  });

  it('cuts arguments echoed in errors', async () => {
    const h = serviceWithTools();
    h.request('/orders', 20);
    // Each argument at its limit: accepted, and echoed cut.
    for (const [tool, args] of [
      [getIncidentContext, { operation_name: longText('x', INPUT_LIMITS.operationName) }],
      [getPlaybook, { pattern: longText('x', LONG) }],
      [getTrendAnalysis, { operation_name: 'GET /orders', window_minutes: longText('x', LONG) }],
      [verifyRemediationEffect, { action_name: longText('x', INPUT_LIMITS.actionName) }],
      [getServiceHealth, { page: longText('x', LONG) }],
    ] as const) {
      const { message } = await h.toolError(tool, args);
      expect(bytes(message), `${tool.name}: ${message.slice(0, 100)}`).toBeLessThan(1024);
      expect(message).toMatch(/… \((512|600|8192) characters, cut\)/);
    }
    // Beyond its limit: refused by its length, not echoed.
    for (const [tool, args] of [
      [getIncidentContext, { operation_name: longText('x', LONG) }],
      [getSession, { session_id: longText('x', LONG) }],
    ] as const) {
      const { message } = await h.toolError(tool, args);
      expect(message).toMatch(/ is 8192 characters long; at most (512|64) are accepted$/);
    }
  });
});
