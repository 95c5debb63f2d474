/**
 * What a tool call reads is kept between calls (baselines until their window changes, whole
 * minutes until the minute turns, the tracked p50 and p99): a change of the data shows in the very
 * next call, among 500 operations.
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
  baseline: { latencyP50Ms: number; latencyP99Ms: number } | null;
}

describe('figures read again after a change', () => {
  it('a burst of errors on one of 500 operations, and a one-rank move of a baseline p50, show in the next call', async () => {
    // Full tool services; these operations have no configured baseline, so their baselines are learned.
    const h = serviceWithTools();
    // 40 requests per operation, 1 to 40 ms; the last operation gets 41 requests.
    for (let i = 0; i < OPERATIONS; i++) for (let r = 1; r <= (i === OPERATIONS - 1 ? 41 : 40); r++) h.request(`/items-${i}/{id}`, r);
    const health = async () => (await h.callTool(getServiceHealth, { format: 'json' })).structured as { status: string; reasons: string[]; operations: ShownOperation[] };

    const before = await health();
    expect(before.status).toBe('HEALTHY');
    const burst = 'GET /items-123/{id}';
    // 60 failed requests of 900 ms: 60 of 100 recent requests failed, and the window's p50 and p99 are now 900 ms.
    for (let r = 0; r < 60; r++) h.request('/items-123/{id}', 900, true);
    const after = await health();
    expect(after.status).toBe('CRITICAL');
    expect(after.reasons).toContain(`${burst} failing (60.0%)`);
    expect(after.operations[0]).toMatchObject({ name: burst, requestCount: 100, errorRate: 0.6, baseline: { latencyP50Ms: 900, latencyP99Ms: 900 } });

    // The last operation's window holds 1..41 ms: p50 (nearest rank 21 of 41) is 21 ms.
    const context = async () => lineWith((await h.callTool(getIncidentContext, { operation_name: `GET /items-${OPERATIONS - 1}/{id}` })).text, 'Latency P50');
    expect(await context()).toContain('(baseline 21ms)');
    h.request(`/items-${OPERATIONS - 1}/{id}`, 0.5);
    // 42 values: rank 21 of 0.5, 1..41 is 20 ms.
    expect(await context()).toContain('(baseline 20ms)');
    h.request(`/items-${OPERATIONS - 1}/{id}`, 100);
    h.request(`/items-${OPERATIONS - 1}/{id}`, 100);
    // 44 values: rank 22 of 0.5, 1..41, 100, 100 is 21 ms.
    expect(await context()).toContain('(baseline 21ms)');
  });
});
