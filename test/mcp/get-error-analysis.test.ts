/**
 * get_error_analysis: counts from the engine's recent history, deviation from the baseline error
 * rate (configured or learned, with its source), baseline confidence from the learned normal,
 * categories from failed spans and the suggestion each kind of failure leads to.
 */
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/mcp/text-layout.js';
import { getErrorAnalysis } from '../../src/mcp/tools/get-error-analysis.js';
import { lineIndexes, lineWith, OPERATION_NAME_ARGUMENT, toolHarness } from './tool-harness.js';

const PAY = 'GET /pay';
const baseline = (errorRate: number) => ({ staticBaselines: new Map([[PAY, { latencyP50Ms: 30, latencyP99Ms: 100, errorRate }]]) });

async function analysis(h: ReturnType<typeof toolHarness>): Promise<string> {
  return (await h.callTool(getErrorAnalysis, { operation_name: PAY })).text;
}

describe('get_error_analysis', () => {
  it('counts errors, flags the deviation, rates the baseline and breaks errors down by category', async () => {
    const h = toolHarness(baseline(0.01));
    for (let i = 0; i < 80; i++) h.request('/pay', 30);
    for (let i = 0; i < 15; i++) h.failure('/pay', 30, { 'http.response.status_code': 503 });
    for (let i = 0; i < 5; i++) h.failure('/pay', 30, { 'error.type': 'TimeoutError' });
    for (let i = 0; i < 10; i++) h.call('payments-api', 30, true);

    const text = await analysis(h);
    expect(text.split('\n')[0]).toBe(`ERROR ANALYSIS: ${PAY}`);
    expect(lineIndexes(text, ['Window', 'Total requests', 'Error count', 'Error rate', 'Deviation', 'Baseline confidence', 'ERROR CATEGORIES', 'SUGGESTION'])).toEqual([1, 2, 3, 4, 5, 6, 8, 12]);
    expect(lineWith(text, 'Total requests')).toMatch(/: +100$/);
    expect(lineWith(text, 'Error count')).toMatch(/: +20$/);
    expect(lineWith(text, 'Error rate')).toMatch(/: +20\.00%$/);
    expect(lineWith(text, 'Deviation')).toMatch(/: +ELEVATED \(20\.00% vs baseline 1\.00% \(configured\), 20\.0x\)$/);
    // All in one instant: no period of traffic has ended, so the learned normal does not judge yet.
    expect(lineWith(text, 'Baseline confidence')).toMatch(/: +configured figures; the learned normal is still learning \(100 samples; a baseline forms at 10\)$/);

    expect(h.engine.errorCategories.of(PAY)).toEqual([
      { name: 'HTTP 503', count: 15 },
      { name: 'TimeoutError', count: 5 },
    ]);
    expect(text).toMatch(/ERROR CATEGORIES \(20 errors since start\)\n {2}HTTP 503 +15 +75\.0%\n {2}TimeoutError +5 +25\.0%/);
    expect(lineWith(text, 'SUGGESTION')).toBe('SUGGESTION: mostly HTTP 503 while payments-api (unhealthy) is not healthy: check that dependency and enable its fallback or open its circuit breaker.');
  });

  it('blames the service itself for 5xx errors while dependencies are healthy', async () => {
    const h = toolHarness(baseline(0.01));
    for (let i = 0; i < 20; i++) h.request('/pay', 30);
    for (let i = 0; i < 5; i++) h.failure('/pay', 30, { 'error.type': '500' });
    expect(lineWith(await analysis(h), 'SUGGESTION')).toBe('SUGGESTION: mostly 500 with healthy dependencies: the service itself fails; check the latest deployment and its logs.');
  });

  it('suggests a circuit breaker for timeouts', async () => {
    const h = toolHarness(baseline(0.01));
    for (let i = 0; i < 5; i++) h.failure('/pay', 3000, { 'error.type': 'ETIMEDOUT' });
    expect(lineWith(await analysis(h), 'SUGGESTION')).toMatch(/^SUGGESTION: mostly timeouts \(ETIMEDOUT\): put a circuit breaker/);
  });

  it('points exceptions at the latest deployment', async () => {
    const h = toolHarness(baseline(0.01));
    const deployment = h.engine.changes.record('deployment', 'version 2.4.0 (was 2.3.1)');
    h.clock.advance(30_000);
    for (let i = 0; i < 20; i++) h.request('/pay', 30);
    for (let i = 0; i < 4; i++) h.failure('/pay', 30, { 'error.type': 'TypeError' });
    expect(lineWith(await analysis(h), 'SUGGESTION')).toBe(
      `SUGGESTION: mostly TypeError exceptions: check the latest deployment (version 2.4.0 (was 2.3.1), ${isoTime(deployment.timestamp)}) and roll it back if the errors started after it.`,
    );
  });

  it("breaks exceptions down by type and normalised message, with the app's frame that threw them", async () => {
    const h = toolHarness(baseline(0.01));
    for (let i = 0; i < 20; i++) h.request('/pay', 30);
    const cart = (id: number): Error => new TypeError(`Cannot read properties of undefined (reading 'findIndex') in cart ${id}`);
    for (let id = 0; id < 6; id++) h.thrown('/pay', 30, cart(id));
    for (let i = 0; i < 3; i++) h.failure('/pay', 30, { 'http.response.status_code': 503 });

    const text = await analysis(h);
    const frame = String.raw`cart \(test/mcp/get-error-analysis\.test\.ts:\d+:\d+\)`;
    expect(text).toMatch(
      new RegExp(String.raw`ERROR CATEGORIES \(9 errors since start\)
 {2}TypeError: Cannot read properties of undefined \(reading <str>\) in cart <num> +6 +66\.7%
 {4}at ${frame}
 {2}HTTP 503 +3 +33\.3%
`),
    );
    expect(lineWith(text, 'SUGGESTION')).toMatch(
      new RegExp(String.raw`^SUGGESTION: mostly TypeError exceptions thrown at ${frame}: check recent code or configuration changes for the failing path\.$`),
    );
  });

  it('says below baseline, MEDIUM confidence and no categories for a clean operation', async () => {
    const h = toolHarness(baseline(0.2));
    for (let i = 0; i < 50; i++) {
      h.request('/pay', 30);
      h.clock.advance(250);
    }
    const text = await analysis(h);
    expect(lineWith(text, 'Deviation')).toMatch(/: +below baseline \(0\.00% vs baseline 20\.00% \(configured\), 0\.0x\)$/);
    // 50 requests over 12.5 s; the 10 s period that ended makes the normal judge.
    expect(lineWith(text, 'Baseline confidence')).toMatch(/: +MEDIUM \(50 samples, learned over 13 s\)$/);
    expect(text).toContain('ERROR CATEGORIES (0 errors since start)\n  none\n\nSUGGESTION: no errors recorded; nothing to remedy for errors.');
  });

  it('says normal before the learned normal has its minimum samples, and what it judges by', async () => {
    const h = toolHarness(baseline(0.01));
    for (let i = 0; i < 5; i++) {
      h.request('/pay', 30);
      h.clock.advance(2_500);
    }
    const text = await analysis(h);
    expect(lineWith(text, 'Deviation')).toMatch(/: +normal \(0\.00% vs baseline 1\.00% \(configured\), 0\.0x\)$/);
    expect(lineWith(text, 'Baseline confidence')).toMatch(/: +configured figures; the learned normal is still learning \(5 samples; a baseline forms at 10\)$/);
  });

  it('an operation with no configured baseline is learning, its errors not judged yet, until its normal forms', async () => {
    const h = toolHarness();
    for (let i = 0; i < 3; i++) h.request('/pay', 30);
    const text = await analysis(h);
    expect(lineWith(text, 'Baseline confidence')).toMatch(/: +learning \(3 samples; a baseline forms at 10\)$/);
    expect(lineWith(text, 'Deviation')).toMatch(/: +not judged yet: learning \(3 samples\)$/);
  });

  it('an unset expected error rate is the learned one: 30 % errors against a learned 2 % are ELEVATED, with the source', async () => {
    const h = toolHarness({ staticBaselines: new Map([[PAY, { latencyP50Ms: 30, latencyP99Ms: 100, errorRate: undefined }]]) });
    for (let i = 0; i < 300; i++) {
      if (i % 50 === 0) h.failure('/pay', 30, { 'http.response.status_code': 503 });
      else h.request('/pay', 30);
      h.clock.advance(100);
    }
    for (let i = 0; i < 100; i++) {
      if (i % 10 < 3) h.failure('/pay', 30, { 'http.response.status_code': 503 });
      else h.request('/pay', 30);
      h.clock.advance(100);
    }
    const text = await analysis(h);
    expect(lineWith(text, 'Deviation')).toMatch(/: +ELEVATED \(\d+\.\d\d% vs baseline 2\.00% \(learned over 40 s\), \d+\.\dx\)$/);
  });

  it('expected-error-rate -1 leaves errors unjudged, and says an outage still is', async () => {
    const h = toolHarness({ configuredOf: () => ({ latencyP50Ms: undefined, latencyP99Ms: undefined, errorRate: undefined, errorsUnjudged: true }) });
    for (let i = 0; i < 20; i++) h.failure('/pay', 30, { 'http.response.status_code': 503 });
    expect(lineWith(await analysis(h), 'Deviation')).toMatch(/: +not judged \(expected-error-rate: -1\); an outage still is$/);
  });

  it('counts only the last 5 minutes but keeps categories since start', async () => {
    const h = toolHarness(baseline(0.01));
    for (let i = 0; i < 3; i++) h.failure('/pay', 30, { 'http.response.status_code': 502 });
    h.clock.advance(10 * 60_000);
    for (let i = 0; i < 10; i++) h.request('/pay', 30);
    const text = await analysis(h);
    expect(lineWith(text, 'Total requests')).toMatch(/: +10$/);
    expect(lineWith(text, 'Error count')).toMatch(/: +0$/);
    expect(text).toMatch(/ERROR CATEGORIES \(3 errors since start\)\n {2}HTTP 502 +3 +100\.0%/);
  });

  it('refuses a missing or unknown operation', async () => {
    const h = toolHarness();
    h.request('/pay', 30);
    expect((await h.toolError(getErrorAnalysis, { operation_name: '  ' })).message).toBe(`missing required argument for get_error_analysis: ${OPERATION_NAME_ARGUMENT}; known operations: ${PAY}`);
    expect((await h.toolError(getErrorAnalysis, { operation_name: 'GET /payz' })).message).toBe(`unknown operation "GET /payz"; did you mean "${PAY}"?; known operations: ${PAY}`);
  });
});
