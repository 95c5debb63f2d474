/** Incidents: opened by detections and critical SLO alerts, one per episode, severity from the current state, resolved, remembered. */
import { describe, expect, it } from 'vitest';
import { IncidentTracker } from '../../src/incidents/incident-tracker.js';
import { engineHarness } from '../support/engine-harness.js';
import { failingFor, traffic } from '../support/sustained-traffic.js';

const RESOLVE_AFTER = 120_000;

function setup(tier: 'critical' | 'standard' | 'internal' = 'standard', resolveAfterMs = RESOLVE_AFTER) {
  // A configured baseline, so the spike is not learned as normal.
  const h = engineHarness({ staticBaselines: new Map([['GET /a', { latencyP50Ms: 20, latencyP99Ms: 25, errorRate: 0.01 }]]) });
  const incidents = new IncidentTracker(h.engine, { tierOf: () => tier, lastRemediation: (op) => (op === 'GET /a' ? 'enable_fallback:GET /a by ops-bot' : undefined), resolveAfterMs });
  const detections: number[] = [];
  h.engine.onDetection((d) => {
    if (d.operation === 'GET /a') detections.push(d.timestamp);
  });
  // Past the 30 s warm-up, then 50 s of steady traffic within baseline: nothing is detected.
  h.clock.advance(120_000);
  traffic(h, '/a', { perSecond: 2, seconds: 50 });
  expect(detections).toEqual([]);
  /** The first detection at or after `time`. */
  const firstDetectionFrom = (time: number) => detections.find((t) => t >= time);
  /** The last detection before `time`. */
  const lastDetectionBefore = (time: number) => detections.findLast((t) => t < time);
  return { h, incidents, detections, firstDetectionFrom, lastDetectionBefore };
}

/**
 * A fault held for 40 s: 30 % of 2 req/s failing against an expected 1 %. The detectors call it
 * sustained once every third of a horizon fails above normal and the whole is beyond chance: at
 * 2 req/s that takes the 24 s horizon (48 requests), so 24-26 s after it starts from calm.
 */
function spike(h: ReturnType<typeof engineHarness>) {
  failingFor(h, '/a');
}

/** A fault starting from calm at `start` is first detected once sustained, within the fault. */
function expectSustainedOnset(start: number, detectedAt: number | undefined) {
  expect(detectedAt, 'the fault is detected').toBeDefined();
  expect(detectedAt! - start).toBeGreaterThanOrEqual(12_000);
  expect(detectedAt! - start).toBeLessThanOrEqual(26_000);
}

function good(h: ReturnType<typeof engineHarness>, requests: number) {
  traffic(h, '/a', { perSecond: 2, seconds: requests / 2 });
}

describe('IncidentTracker', () => {
  it('opens one incident per episode with a stable id, peak severity from the tier and deviation', () => {
    const { h, incidents, firstDetectionFrom } = setup('standard');
    const start = h.clock.now();
    // One fault held for 80 s: one episode, however many detections it makes.
    spike(h);
    spike(h);
    expectSustainedOnset(start, firstDetectionFrom(start));
    const open = incidents.openIncidents();
    expect(open).toHaveLength(1);
    const [incident] = open;
    expect(incident!.id).toMatch(/^INC-\d{8}-[0-9a-z]{5}-0001$/);
    expect(incident!.operation).toBe('GET /a');
    expect([...incident!.patterns]).toContain('error_rate_spike');
    expect(incident!.peakSeverity).toBe('HIGH'); // standard tier is MEDIUM, raised for an error-rate spike
    expect(incidents.severityNow(incident!).severity).toBe('HIGH'); // the operation is ELEVATED
    expect(incidents.openIncident('GET /a')).toBe(incident);
  });

  it('fault, quiet, fault again: two incidents, each with the TIME its episode began and its own patterns', () => {
    const { h, incidents, firstDetectionFrom } = setup();
    const firstStart = h.clock.now();
    spike(h);
    expectSustainedOnset(firstStart, firstDetectionFrom(firstStart));
    const first = incidents.openIncident('GET /a')!;
    expect(first.openedAt).toBe(firstDetectionFrom(firstStart));
    const firstEnd = first.lastDetectionAt;

    // Quiet: no traffic for longer than resolve-after (no read in between, so nothing resolved it yet).
    h.clock.advance(RESOLVE_AFTER + 60_000);
    const secondStart = h.clock.now();
    spike(h);
    expectSustainedOnset(secondStart, firstDetectionFrom(secondStart));
    const second = incidents.openIncident('GET /a')!;
    expect(second.id).not.toBe(first.id);
    expect(second.id).toMatch(/-0002$/);
    expect(second.openedAt).toBe(firstDetectionFrom(secondStart));
    expect(second.openedAt).toBeGreaterThanOrEqual(secondStart);
    expect(first).toMatchObject({ status: 'resolved', resolvedAt: firstEnd + RESOLVE_AFTER, resolution: 'enable_fallback:GET /a by ops-bot' });
    expect(first.cause).toMatch(/^error_rate_spike/);
    expect(incidents.byId(first.id)).toBe(first);
    expect(incidents.similarTo(second).map((i) => i.id)).toEqual([first.id]);
  });

  it('detections closer together than resolve-after are one episode', () => {
    const { h, incidents, firstDetectionFrom, lastDetectionBefore } = setup();
    spike(h);
    const first = incidents.openIncident('GET /a')!;
    // 80 s without traffic; the second fault is seen 24-26 s after it starts, so its first
    // detection comes 104-106 s after the first fault's last one: within resolve-after.
    h.clock.advance(RESOLVE_AFTER - 40_000);
    const secondStart = h.clock.now();
    spike(h);
    expectSustainedOnset(secondStart, firstDetectionFrom(secondStart));
    const gap = firstDetectionFrom(secondStart)! - lastDetectionBefore(secondStart)!;
    expect(gap).toBeGreaterThan(RESOLVE_AFTER - 40_000);
    expect(gap).toBeLessThan(RESOLVE_AFTER);
    expect(incidents.openIncident('GET /a')).toBe(first);
    expect(incidents.openIncidents()).toHaveLength(1);
  });

  it('a fault after a minute of normal traffic is a new incident, though it comes within resolve-after', () => {
    const { h, incidents, firstDetectionFrom } = setup('standard', 5 * 60_000);
    spike(h);
    const first = incidents.openIncident('GET /a')!;
    // Two minutes of good traffic (the normal counts it as normal from 30 s after the fault's last verdict), then another fault.
    good(h, 240);
    const secondStart = h.clock.now();
    spike(h);
    expect(firstDetectionFrom(secondStart)! - first.lastDetectionAt).toBeLessThan(5 * 60_000);
    const second = incidents.openIncident('GET /a')!;
    expect(second.id).not.toBe(first.id);
    expect(first.status).toBe('resolved');
  });

  it('cascade detections minutes apart stay one incident: only a window verdict knows whether traffic between was normal', () => {
    const { h, incidents } = setup();
    for (let round = 0; round < 4; round++) {
      h.call('payments', 5, true);
      h.call('inventory', 5, true);
      h.request('/a', 20, true);
      traffic(h, '/a', { perSecond: 2, seconds: 89 });
    }
    expect(incidents.openIncidents()).toHaveLength(1);
    expect([...incidents.openIncident('GET /a')!.patterns]).toEqual(['cascade_failure']);
  });

  it('a change followed by minutes of normal traffic is no cause, read at once or minutes later', () => {
    const { h, incidents } = setup();
    h.engine.changes.record('config_change', 'feature flag new-pricing on');
    good(h, 600);
    spike(h);
    const incident = incidents.openIncident('GET /a')!;
    expect(incidents.probableCause(incident)).toBeUndefined();
    h.clock.advance(3 * 60_000);
    expect(incidents.probableCause(incident)).toBeUndefined();
  });

  it('an outage is a CRITICAL incident whatever the tier, opened by the outage', () => {
    const { h, incidents } = setup('internal');
    traffic(h, '/a', { perSecond: 20, seconds: 5, errorRate: 1 });
    const incident = incidents.openIncident('GET /a')!;
    expect(incident).toMatchObject({ trigger: 'outage', peakSeverity: 'CRITICAL' });
    expect(incidents.severityNow(incident).severity).toBe('CRITICAL');
    expect(h.engine.healthSummary().status).toBe('CRITICAL');
  });

  it('resolves on read once the episode is over and the operation is back within baseline', () => {
    const { h, incidents } = setup();
    spike(h);
    const first = incidents.openIncident('GET /a')!;
    h.clock.advance(60_000);
    expect(incidents.openIncident('GET /a')).toBe(first);
    h.clock.advance(RESOLVE_AFTER);
    // The episode is over, but the five-minute health window still holds the errors: ELEVATED.
    expect(h.engine.health.getOperationHealth('GET /a')!.elevated).toBe(true);
    expect(incidents.openIncident('GET /a')).toBe(first);
    h.clock.advance(3 * 60_000);
    expect(incidents.openIncident('GET /a')).toBeUndefined();
    expect(first.status).toBe('resolved');
  });

  it('severity drops to MEDIUM when the operation is back within baseline and the service is HEALTHY', () => {
    // A long resolve-after keeps the incident open while the operation calms down.
    const { h, incidents } = setup('critical', 30 * 60_000);
    spike(h);
    const incident = incidents.openIncident('GET /a')!;
    expect(incident.peakSeverity).toBe('CRITICAL');
    expect(h.engine.health.getOperationHealth('GET /a')!.elevated).toBe(true);
    expect(incidents.severityNow(incident)).toEqual({ severity: 'CRITICAL' });

    // Six minutes of good traffic: the five-minute health window holds no errors any more.
    good(h, 720);
    expect(incidents.openIncident('GET /a')).toBe(incident);
    expect(h.engine.health.getOperationHealth('GET /a')!.elevated).toBe(false);
    expect(h.engine.healthSummary().status).toBe('HEALTHY');
    expect(incidents.severityNow(incident)).toEqual({ severity: 'MEDIUM', lowered: 'peak CRITICAL; GET /a is within its baseline and the service is HEALTHY' });
    expect(incident.peakSeverity).toBe('CRITICAL');

    // It rises again with the operation: 60 failures among the window's 600 requests.
    for (let i = 0; i < 60; i++) {
      h.request('/a', 20, true);
      h.clock.advance(500);
    }
    expect(h.engine.health.getOperationHealth('GET /a')!.elevated).toBe(true);
    expect(incidents.severityNow(incidents.openIncident('GET /a')!).severity).toBe('CRITICAL');
  });

  it('opens an incident from a CRITICAL SLO alert and names a change shortly before as probable cause', () => {
    const { h, incidents } = setup('critical');
    h.engine.changes.record('deployment', 'version 2.0.0');
    h.clock.advance(5_000);
    h.engine.sloTracker.register({ name: 'b-availability', operationName: 'GET /b', type: 'AVAILABILITY', target: 0.9, windowMs: 1000, minEvents: 10 });
    for (let i = 0; i < 10; i++) h.request('/b', 10);
    for (let i = 0; i < 3; i++) h.request('/b', 10, true);
    const incident = incidents.openIncident('GET /b')!;
    expect(incident).toMatchObject({ trigger: 'slo:b-availability', peakSeverity: 'CRITICAL' });
    const cause = incidents.probableCause(incident)!;
    expect(cause.change.description).toBe('version 2.0.0');
    expect(cause.reason).toBe('5s before the episode began; a deployment replaces the code of every operation; the fault began with it');
  });
});
