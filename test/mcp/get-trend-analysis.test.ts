/**
 * get_trend_analysis over simulated minutes: rising, falling and stopping traffic, the direction
 * rule's band and error-rate floor, partial minutes weighed by the part observed, the first seconds
 * of traffic, the window argument and its errors.
 */
import { describe, expect, it } from 'vitest';
import { isoTime, ms } from '../../src/mcp/text-layout.js';
import { getTrendAnalysis } from '../../src/mcp/tools/get-trend-analysis.js';
import { lineWith, OPERATION_NAME_ARGUMENT, toolHarness } from './tool-harness.js';

const ORDERS = 'GET /orders';

/** The text of one metric line, with its cells split on runs of spaces. */
function metric(text: string, label: string): string[] {
  return lineWith(text, label)
    .slice(label.length)
    .trim()
    .split(/\s{2,}/);
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

describe('get_trend_analysis', () => {
  it('declares operation_name required and window_minutes optional, both strings', () => {
    expect(getTrendAnalysis).toMatchObject({ name: 'get_trend_analysis', permission: 'READ', required: ['operation_name'], annotations: { readOnlyHint: true, destructiveHint: false } });
    expect(Object.values(getTrendAnalysis.parameters).map((p) => p.type)).toEqual(['string', 'string']);
  });

  it('sees latency and error rate rising over 30 minutes of steady traffic', async () => {
    const h = toolHarness();
    // p50 from 20 ms to 78 ms; errors from 0 to 4 of 10 a minute.
    h.traffic(
      '/orders',
      30,
      () => 10,
      (minute, i) => ({ latencyMs: 20 + 2 * minute, isError: i < Math.floor(minute / 6) }),
    );
    const { text } = await h.callTool(getTrendAnalysis, { operation_name: ORDERS });

    const lines = text.split('\n');
    expect(lines[0]).toBe(`TREND ANALYSIS: ${ORDERS}`);
    expect(lines[1]).toBe(`Window:  30 minutes and the current one, up to ${isoTime(h.clock.now())}`);
    expect(lines[2]).toBe('Samples: 300 requests over 30 min (30 minutes with traffic)');
    const labels = lines.filter((l) => /^[A-Z]{3,}/.test(l)).map((l) => l.split(/\s{2,}/)[0]);
    expect(labels).toEqual([
      'TREND ANALYSIS: GET /orders',
      'LATENCY P50',
      'LATENCY P99',
      'ERROR RATE',
      'THROUGHPUT',
      'ASSESSMENT: Degrading: latency and error rate are both rising; check dependencies and recent changes (get_incident_context).',
    ]);

    // Start and end are the means of the first and last ten minutes, from the engine's own history.
    const history = h.engine.health.historyOf(ORDERS, 31);
    expect(history).toHaveLength(30);
    const p50 = metric(text, 'LATENCY P50');
    expect(p50.slice(0, 3)).toEqual([`start ${ms(mean(history.slice(0, 10).map((m) => m.p50)))}`, `end ${ms(mean(history.slice(-10).map((m) => m.p50)))}`, 'RISING']);
    expect(p50[3]).toMatch(/^\+\d+\.\d%$/);
    expect(metric(text, 'LATENCY P99')[2]).toBe('RISING');
    expect(metric(text, 'ERROR RATE')).toEqual(['start 4.00%', 'end 36.00%', 'RISING', '+800.0%']);
    expect(metric(text, 'THROUGHPUT')).toEqual(['start 10.0/min', 'end 10.0/min', 'STABLE', '+0.0%']);
  });

  it('sees throughput falling with latency and errors stable', async () => {
    const h = toolHarness();
    h.traffic(
      '/orders',
      30,
      (minute) => 30 - minute,
      () => ({ latencyMs: 20 }),
    );
    const { text } = await h.callTool(getTrendAnalysis, { operation_name: ORDERS, window_minutes: '30' });
    expect(metric(text, 'LATENCY P50').slice(2)).toEqual(['STABLE', '+0.0%']);
    expect(metric(text, 'ERROR RATE').slice(2)).toEqual(['STABLE', '+0.0%']);
    // First ten minutes 30..21 requests (mean 25.5), last ten 10..1 (mean 5.5).
    expect(metric(text, 'THROUGHPUT')).toEqual(['start 25.5/min', 'end 5.5/min', 'FALLING', '-78.4%']);
    expect(lineWith(text, 'ASSESSMENT')).toBe('ASSESSMENT: Traffic is falling while latency and error rate hold steady.');
  });

  it('counts quiet minutes as zero throughput, so traffic that stops reads as FALLING', async () => {
    const h = toolHarness();
    h.traffic(
      '/orders',
      10,
      () => 10,
      () => ({ latencyMs: 20 }),
    );
    h.clock.advance(10 * 60_000);
    const { text } = await h.callTool(getTrendAnalysis, { operation_name: ORDERS, window_minutes: '20' });
    expect(lineWith(text, 'Samples')).toBe('Samples: 100 requests over 20 min (10 minutes with traffic)');
    expect(metric(text, 'THROUGHPUT')).toEqual(['start 10.0/min', 'end 0.0/min', 'FALLING', '-100.0%']);
  });

  it('sees falling latency as improving', async () => {
    const h = toolHarness();
    h.traffic(
      '/orders',
      12,
      () => 20,
      (minute) => ({ latencyMs: 200 - 15 * minute }),
    );
    const { text } = await h.callTool(getTrendAnalysis, { operation_name: ORDERS, window_minutes: '12' });
    expect(metric(text, 'LATENCY P50')[2]).toBe('FALLING');
    expect(metric(text, 'LATENCY P50')[3]).toMatch(/^-\d+\.\d%$/);
    expect(lineWith(text, 'ASSESSMENT')).toBe('ASSESSMENT: Improving: latency or error rate is falling.');
  });

  it('keeps a single error in a busy minute STABLE (the error rate must move by more than a point)', async () => {
    const h = toolHarness();
    h.traffic(
      '/orders',
      9,
      () => 100,
      (minute, i) => ({ latencyMs: 20, isError: minute === 8 && i === 0 }),
    );
    const { text } = await h.callTool(getTrendAnalysis, { operation_name: ORDERS });
    expect(metric(text, 'ERROR RATE').slice(0, 3)).toEqual(['start 0.00%', 'end 0.33%', 'STABLE']);
    expect(lineWith(text, 'ASSESSMENT')).toBe('ASSESSMENT: Stable: no metric moved more than 10% over the window.');
  });

  it('looks back window_minutes and the current minute so far', async () => {
    const h = toolHarness();
    h.traffic(
      '/orders',
      30,
      () => 10,
      () => ({ latencyMs: 20 }),
    );
    h.request('/orders', 20);
    h.clock.advance(30_000);
    const { text } = await h.callTool(getTrendAnalysis, { operation_name: ORDERS, window_minutes: ' 10 ' });
    expect(lineWith(text, 'Window')).toContain('10 minutes and the current one');
    expect(lineWith(text, 'Samples')).toBe('Samples: 101 requests over 10 min 30 s (11 minutes with traffic)');
  });

  it('weighs a partial first and current minute by the part observed, so a constant rate reads STABLE', async () => {
    const h = toolHarness();
    h.clock.advance(40_000); // traffic starts 40 s into a minute
    for (let s = 0; s < 5 * 60 + 20; s++) {
      h.request('/orders', 20);
      h.clock.advance(1000);
    }
    const { text } = await h.callTool(getTrendAnalysis, { operation_name: ORDERS });
    // 20 s of the first minute, 4 whole minutes, 40 s of the current one: 320 requests at 1/s.
    expect(lineWith(text, 'Samples')).toBe('Samples: 320 requests over 5 min 20 s (6 minutes with traffic)');
    expect(metric(text, 'THROUGHPUT')).toEqual(['start 60.0/min', 'end 60.0/min', 'STABLE', '+0.0%']);
    expect(lineWith(text, 'ASSESSMENT')).toBe('ASSESSMENT: Stable: no metric moved more than 10% over the window.');
  });

  it('answers from the first seconds of traffic, saying how much data it rests on', async () => {
    const h = toolHarness();
    h.clock.advance(40_000);
    for (let s = 0; s < 38; s++) {
      h.request('/orders', 20 + s);
      h.clock.advance(1000);
    }
    const { text } = await h.callTool(getTrendAnalysis, { operation_name: ORDERS });
    expect(lineWith(text, 'Samples')).toBe('Samples: 38 requests over 38 s (2 minutes with traffic)');
    expect(metric(text, 'THROUGHPUT').slice(0, 3)).toEqual(['start 60.0/min', 'end 60.0/min', 'STABLE']);
    expect(metric(text, 'LATENCY P50')[2]).toBe('RISING');
  });

  it('refuses bad arguments and says what is accepted', async () => {
    const h = toolHarness();
    h.traffic(
      '/orders',
      2,
      () => 5,
      () => ({ latencyMs: 20 }),
    );
    for (const bad of ['abc', '0', '61', '1.5', '-3', '1e1']) {
      expect((await h.toolError(getTrendAnalysis, { operation_name: ORDERS, window_minutes: bad })).message).toBe(
        `window_minutes must be a whole number of minutes from 1 to 60; got "${bad}" (omit it for 30)`,
      );
    }
    expect((await h.toolError(getTrendAnalysis, {})).message).toBe(`missing required argument for get_trend_analysis: ${OPERATION_NAME_ARGUMENT}; known operations: ${ORDERS}`);
    expect((await h.toolError(getTrendAnalysis, { operation_name: 'GET /nope' })).message).toMatch(/^unknown operation "GET \/nope".*; known operations: GET \/orders$/);
  });

  it('refuses an operation without traffic in the window', async () => {
    const h = toolHarness();
    h.request('/orders', 20);
    h.clock.advance(40 * 60_000);
    expect((await h.toolError(getTrendAnalysis, { operation_name: ORDERS })).message).toBe(
      `no traffic for "${ORDERS}" in the last 30 minutes; try a larger window_minutes (up to 60) or another operation: ${ORDERS}`,
    );
  });

  it('names only a few operations when operation_name is missing', async () => {
    const h = toolHarness();
    for (let i = 0; i < 8; i++) h.request(`/r${i}`, 5);
    expect((await h.toolError(getTrendAnalysis, { operation_name: '' })).message).toBe(
      `missing required argument for get_trend_analysis: ${OPERATION_NAME_ARGUMENT}; known operations: GET /r0, GET /r1, GET /r2, GET /r3, GET /r4 and 3 more`,
    );
  });
});
