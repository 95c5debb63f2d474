/** Incidents: opened by detections and critical SLO alerts, deduplicated, resolved, remembered. */
import { describe, expect, it } from 'vitest';
import { IncidentTracker } from '../../src/incidents/incident-tracker.js';
import { engineHarness } from '../support/engine-harness.js';

function setup(tier: 'critical' | 'standard' = 'standard') {
  const h = engineHarness();
  const incidents = new IncidentTracker(h.engine, { tierOf: () => tier, lastRemediation: (op) => (op === 'GET /a' ? 'enable_fallback:GET /a by ops-bot' : undefined), resolveAfterMs: 120_000 });
  h.clock.advance(120_000);
  for (let i = 0; i < 100; i++) {
    h.request('/a', 20);
    h.clock.advance(500);
  }
  return { h, incidents };
}

function spike(h: ReturnType<typeof engineHarness>) {
  for (let i = 0; i < 20; i++) {
    h.request('/a', 20, i % 2 === 0);
    h.clock.advance(500);
  }
}

describe('IncidentTracker', () => {
  it('opens one incident per operation with a stable id, severity from the tier and deviation', () => {
    const { h, incidents } = setup('standard');
    spike(h);
    spike(h);
    const open = incidents.openIncidents();
    expect(open).toHaveLength(1);
    const [incident] = open;
    expect(incident!.id).toMatch(/^INC-\d{8}-[0-9a-z]{5}-0001$/);
    expect(incident!.operation).toBe('GET /a');
    expect([...incident!.patterns]).toContain('error_rate_spike');
    expect(incident!.severity).toBe('HIGH'); // standard tier is MEDIUM, raised for an error-rate spike
    expect(incidents.openIncident('GET /a')).toBe(incident);
  });

  it('resolves when the operation is quiet and back to baseline, keeping cause and resolution for similar incidents', () => {
    const { h, incidents } = setup();
    spike(h);
    const first = incidents.openIncident('GET /a')!;
    h.clock.advance(60_000);
    expect(incidents.openIncident('GET /a')).toBe(first);
    h.clock.advance(6 * 60_000);
    for (let i = 0; i < 20; i++) {
      h.request('/a', 20);
      h.clock.advance(500);
    }
    // The first requests after the gap still see the spike in the recent window; then it is quiet.
    h.clock.advance(3 * 60_000);
    expect(incidents.openIncident('GET /a')).toBeUndefined();
    expect(first).toMatchObject({ status: 'resolved', resolution: 'enable_fallback:GET /a by ops-bot' });
    expect(first.cause).toMatch(/^error_rate_spike/);
    spike(h);
    const second = incidents.openIncident('GET /a')!;
    expect(second.id).not.toBe(first.id);
    expect(incidents.similarTo(second).map((i) => i.id)).toEqual([first.id]);
  });

  it('opens an incident from a CRITICAL SLO alert and names a change shortly before as probable cause', () => {
    const { h, incidents } = setup('critical');
    h.engine.changes.record('deployment', 'version 2.0.0');
    h.engine.sloTracker.register({ name: 'b-availability', operationName: 'GET /b', type: 'AVAILABILITY', target: 0.9 });
    for (let i = 0; i < 10; i++) h.request('/b', 10);
    for (let i = 0; i < 3; i++) h.request('/b', 10, true);
    const incident = incidents.openIncident('GET /b')!;
    expect(incident).toMatchObject({ trigger: 'slo:b-availability', severity: 'CRITICAL' });
    expect(incidents.probableChange(incident)?.description).toBe('version 2.0.0');
  });
});
