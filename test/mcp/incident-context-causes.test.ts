/** get_incident_context's WHAT CHANGED: the start as one change, dependency changes, actions taken, the probable cause with its reason. */
import { describe, expect, it } from 'vitest';
import { ChangeTracker } from '../../src/analysis/change-tracker.js';
import { FakeClock } from '../../src/analysis/clock.js';
import { getIncidentContext } from '../../src/mcp/tools/get-incident-context.js';
import { deploymentFromConfig } from '../../src/telemetry/deployment-info.js';
import { recordStart } from '../../src/wiring/start.js';
import { failingFor, traffic } from '../support/sustained-traffic.js';
import { configOf, operationName, serviceWithTools } from './large-state.js';

const OPERATION = operationName(0);
const ROUTE = OPERATION.slice('GET '.length);

function quietService() {
  const h = serviceWithTools();
  const detections: number[] = [];
  h.engine.onDetection((d) => {
    if (d.operation === OPERATION) detections.push(d.timestamp);
  });
  // Past the 30 s warm-up, then steady traffic within baseline at 2 req/s.
  h.clock.advance(120_000);
  const good = (requests: number) => traffic(h, ROUTE, { perSecond: 2, seconds: requests / 2 });
  /**
   * 30 % of 2 req/s failing for 40 s: seen once every third of a horizon fails above normal beyond
   * chance, which takes a horizon of 12 or 24 s at this rate.
   */
  const spike = () => {
    const start = h.clock.now();
    failingFor(h, ROUTE);
    const detected = detections.find((t) => t >= start);
    expect(detected, 'the fault is detected').toBeDefined();
    expect(detected! - start).toBeGreaterThanOrEqual(6_000);
    expect(detected! - start).toBeLessThanOrEqual(26_000);
    return detected!;
  };
  good(100);
  expect(detections).toEqual([]);
  return { h, good, spike, detections };
}

function whatChanged(text: string): string[] {
  const lines = text.split('\n');
  const from = lines.indexOf('WHAT CHANGED');
  const to = lines.indexOf('WHAT IS AFFECTED');
  return lines
    .slice(from + 1, to)
    .map((l) => l.trim())
    .filter(Boolean);
}

describe('get_incident_context causes', () => {
  it('the start of a process is one change: the deployment with the configuration it loaded', () => {
    const config = configOf('deployment:\n  version: 1.4.0\n');
    const changes = new ChangeTracker(new FakeClock());
    recordStart(changes, deploymentFromConfig(config, new Date(Date.UTC(2026, 0, 1))), config);
    expect(changes.list()).toHaveLength(1);
    expect(changes.list()[0]).toMatchObject({ kind: 'deployment', description: 'version 1.4.0; configuration loaded: 1 from file', timestamp: Date.UTC(2026, 0, 1) });
  });

  it('a dependency going unhealthy appears in WHAT CHANGED and is the probable cause over an older config change, saying why', async () => {
    const { h, good, spike, detections } = quietService();
    h.engine.changes.record('config_change', 'feature flag new-pricing on');
    h.clock.advance(20 * 60_000);
    good(20);
    for (let i = 0; i < 10; i++) h.call('payments', 5, true);
    const unhealthyAt = h.clock.now();
    h.clock.advance(3_000);
    const from = h.clock.now();
    spike();
    const began = detections.find((t) => t >= from)!;
    const { text } = await h.callTool(getIncidentContext, { operation_name: OPERATION });
    const changed = whatChanged(text);
    // Timed against when the fault's evidence began, before its first detection: the dependency failed 3 s before the errors, with them as far as the evidence can tell.
    expect(h.services.incidents.openIncident(OPERATION)!.onsetAt).toBeLessThan(began);
    const cause = changed.find((l) => l.startsWith(`${new Date(unhealthyAt).toISOString()} dependency_state: dependency payments healthy -> unhealthy, 100.0% errors  PROBABLE CAUSE (`));
    expect(cause).toMatch(/PROBABLE CAUSE \((as the episode began|[1-9]s before the episode began); payments is a dependency the service calls; the fault began with it\)$/);
    expect(changed.filter((l) => l.includes('PROBABLE CAUSE'))).toHaveLength(1);
    expect(changed.find((l) => l.includes('new-pricing'))).not.toContain('PROBABLE CAUSE');
    expect(text).toMatch(new RegExp(`^TIME: +${new Date(began).toISOString()}$`, 'm'));
  });

  it("an agent's remediation is listed as an action taken and never named the cause of the incident it answered", async () => {
    const { h, good, spike } = quietService();
    const deployedAt = h.clock.now();
    h.engine.changes.record('deployment', 'version 2.0.0');
    h.clock.advance(10 * 60_000);
    spike();
    await h.services.remediation.execute(`enable_fallback:${OPERATION}`, 'errors rising', undefined, h.caller);
    // Quiet, then a new episode: the remediation is the closest change before it touching the operation.
    h.clock.advance(3 * 60_000);
    good(10);
    const began = spike();
    const { text } = await h.callTool(getIncidentContext, { operation_name: OPERATION });
    expect(text).toMatch(new RegExp(`^TIME: +${new Date(began).toISOString()}$`, 'm'));
    const changed = whatChanged(text);
    const action = changed.find((l) => l.includes(`enable_fallback:${OPERATION}`))!;
    expect(action).toMatch(/ remediation: enable_fallback:.* by ops-bot \(operator\): errors rising {2}ACTION TAKEN \(not a cause\)$/);
    expect(changed[0]).toMatch(/^Last deploy: version 2\.0\.0 at .* {2}PROBABLE CAUSE$/);
    // The deployment, 10 min before the first fault (held 40 s), 3 min of quiet and 5 s of good traffic, then the second fault: 13-14 min before its onset, with no minute of normal traffic between.
    const since = Math.round((h.services.incidents.openIncident(OPERATION)!.onsetAt - deployedAt) / 1000);
    expect(Math.floor(since / 60)).toBeGreaterThanOrEqual(13);
    expect(changed.filter((l) => l.includes('PROBABLE CAUSE'))[1]).toMatch(
      new RegExp(
        `deployment: version 2\\.0\\.0 {2}PROBABLE CAUSE \\(${Math.floor(since / 60)}m${since % 60 ? ` ${since % 60}s` : ''} before the episode began; a deployment replaces the code of every operation; the fault began soon after it, (no|\\d+s of) normal traffic between\\)$`,
      ),
    );
  });

  it("lists cold_start with an incident that began just after the process's slow first requests, not with a later one", async () => {
    const fresh = serviceWithTools('', { fresh: true });
    traffic(fresh, ROUTE, { seconds: 3, latencyMs: 250 }); // 250 ms against the operation's static p99
    failingFor(fresh, ROUTE);
    const early = (await fresh.callTool(getIncidentContext, { operation_name: OPERATION })).text;
    expect(early).toMatch(/^INCIDENT INC-/);
    expect(early).toMatch(/Patterns: +error_rate_spike \(.*\); cold_start \(/);

    const { h, spike } = quietService();
    spike();
    const late = (await h.callTool(getIncidentContext, { operation_name: OPERATION })).text;
    expect(late).toMatch(/Patterns: +error_rate_spike \(/);
    expect(late).not.toContain('cold_start');
  });
});
