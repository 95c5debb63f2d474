/**
 * What a tool call reads is kept between calls (whole minutes until the minute turns, the tracked
 * p50 and p99): a change of the data shows in the very next call, among 500 operations; a fault
 * shows at once and is not learned as the operation's normal; every tool quotes the same baseline.
 */
import { describe, expect, it } from 'vitest';
import { getIncidentContext } from '../../src/mcp/tools/get-incident-context.js';
import { getServiceHealth } from '../../src/mcp/tools/get-service-health.js';
import { serviceWithTools } from './large-state.js';
import { lineWith } from './tool-harness.js';

const OPERATIONS = 500;

interface ShownOperation {
  name: string;
  requestCount: number;
  errorRate: number;
  baseline: { latencyP50Ms: number | null; latencyP99Ms: number | null };
}

describe('figures read again after a change', () => {
  it('a burst of errors on one of 500 operations shows in the next call, and its baseline stays the one learned before', async () => {
    // Full tool services; these operations have no configured baseline, so their baselines are learned.
    const h = serviceWithTools();
    // 40 requests per operation, 1 to 40 ms, over 20 s: a period ends, and the normals judge.
    for (let second = 0; second < 20; second++) {
      for (let i = 0; i < OPERATIONS; i++) for (let r = 1; r <= 40; r += 20) h.request(`/items-${i}/{id}`, r + (second % 20));
      h.clock.advance(1000);
    }
    const health = async () => (await h.callTool(getServiceHealth, { format: 'json' })).structured as { status: string; reasons: string[]; operations: ShownOperation[] };

    const before = await health();
    expect(before.status).toBe('HEALTHY');
    const burst = 'GET /items-123/{id}';
    const figures = h.engine.health.getOperationHealth(burst)!.baseline!;
    const learned = { latencyP50Ms: figures.latencyP50Ms!, latencyP99Ms: figures.latencyP99Ms! };
    expect(learned.latencyP50Ms).toBeGreaterThan(5);
    expect(learned.latencyP50Ms).toBeLessThan(40);
    // 60 failed requests of 900 ms: 60 of 100 recent requests failed.
    for (let r = 0; r < 60; r++) h.request('/items-123/{id}', 900, true);
    const after = await health();
    expect(after.status).toBe('CRITICAL');
    expect(after.reasons).toContain(`${burst} failing (60.0%)`);
    expect(after.operations[0]).toMatchObject({ name: burst, requestCount: 100, errorRate: 0.6, baseline: learned });

    // The incident context quotes the same baseline as get_service_health, with where it comes from.
    const context = lineWith((await h.callTool(getIncidentContext, { operation_name: burst })).text, 'Latency P50');
    expect(context).toMatch(new RegExp(`\\(baseline ${Math.round(learned.latencyP50Ms)}ms, learned over 2\\d s\\)$`));
  });
});
