/**
 * One story across the tools for an operation with nothing configured: an outage opens a CRITICAL
 * incident whose summary names it, the anomaly score is the deviation from the learned normal, and
 * three minutes on every tool still reports it as at its start; a slowdown's evidence shows as
 * forming before it is a verdict.
 */
import { describe, expect, it } from 'vitest';
import { getIncidentContext } from '../../src/mcp/tools/get-incident-context.js';
import { getServiceHealth } from '../../src/mcp/tools/get-service-health.js';
import { traffic } from '../support/sustained-traffic.js';
import { serviceWithTools } from './large-state.js';
import { lineWith } from './tool-harness.js';

const ROUTE = '/unconfigured/{id}';
const OPERATION = `GET ${ROUTE}`;

function learnedService() {
  const h = serviceWithTools();
  traffic(h, ROUTE, { perSecond: 20, seconds: 120, latencyMs: 5 });
  return h;
}

describe('the story the tools tell, nothing configured', () => {
  it('an outage: CRITICAL, named in the summary, scored, and still so three minutes on', async () => {
    const h = learnedService();
    traffic(h, ROUTE, { perSecond: 20, seconds: 5, latencyMs: 5, errorRate: 1 });
    const context = async () => (await h.callTool(getIncidentContext, { operation_name: OPERATION })).text;
    const early = await context();
    const id = /^INCIDENT (INC-\S+)/m.exec(early)?.[1];
    expect(id).toBeDefined();
    expect(lineWith(early, 'SEVERITY')).toMatch(/: +CRITICAL$/);
    expect(lineWith(early, 'SUMMARY')).toMatch(new RegExp(`: +${OPERATION.replace(/[{}]/g, '\\$&')}: outage \\(error_rate_spike\\); error rate`));
    expect(lineWith(early, 'Anomaly score')).toMatch(/: +1\.00$/);
    expect(lineWith(early, 'Error rate')).toMatch(/\(baseline 0\.00%, learned over 2 min\)$/);

    traffic(h, ROUTE, { perSecond: 20, seconds: 180, latencyMs: 5, errorRate: 1 });
    const late = await context();
    expect(/^INCIDENT (INC-\S+)/m.exec(late)?.[1]).toBe(id);
    expect(lineWith(late, 'SEVERITY')).toMatch(/: +CRITICAL$/);
    expect(lineWith(late, 'Anomaly score')).toMatch(/: +1\.00$/);
    expect(lineWith(late, 'Patterns')).toMatch(/: +error_rate_spike \(since /);
    // The learned error rate did not learn the outage.
    expect(lineWith(late, 'Error rate')).toMatch(/\(baseline 0\.00%, learned over \d+ min\)$/);
    const health = (await h.callTool(getServiceHealth)).text;
    expect(health.split('\n')[0]).toContain('STATUS: CRITICAL');
    expect(lineWith(health, OPERATION)).toMatch(/ELEVATED \(outage since /);
  });

  it('a slowdown shows as forming, with how long its evidence runs, before it is a verdict', async () => {
    const h = learnedService();
    traffic(h, ROUTE, { perSecond: 20, seconds: 2.5, latencyMs: 40 });
    const text = (await h.callTool(getIncidentContext, { operation_name: OPERATION })).text;
    expect(text).toMatch(/^INCIDENT none/m);
    expect(lineWith(text, 'Patterns')).toMatch(/: +latency_degradation forming, [1-3] s of evidence$/);
    traffic(h, ROUTE, { perSecond: 20, seconds: 2, latencyMs: 40 });
    const opened = (await h.callTool(getIncidentContext, { operation_name: OPERATION })).text;
    expect(lineWith(opened, 'SUMMARY')).toMatch(/: latency_degradation; /);
    expect(lineWith(opened, 'Patterns')).toMatch(/: +latency_degradation \(since /);
  });
});
