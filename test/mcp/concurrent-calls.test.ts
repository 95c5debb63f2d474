/**
 * svc.mcp.max-concurrent-calls on a real tool server: a caller's requests beyond the cap wait their
 * turn, a bounded queue beyond that is refused with 429, and other callers are not held up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mcpHarness, PROTOCOLS, TOKENS } from '../support/mcp-harness.js';

let harness: Awaited<ReturnType<typeof mcpHarness>> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe.each(PROTOCOLS)('concurrent calls per caller (%s)', (protocol) => {
  it('runs one at a time at max-concurrent-calls 1: four more wait, the next is refused with 429, another credential goes on', async () => {
    harness = await mcpHarness('', { protocol, maxConcurrentCalls: 1 });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let running = 0;
    let mostRunning = 0;
    harness.registry.registerCustom({ name: 'wait_for_gate', description: 'Waits until the test opens the gate', readOnly: true }, async () => {
      mostRunning = Math.max(mostRunning, ++running);
      await gate;
      running--;
      return 'through';
    });
    const ops = await harness.connect(TOKENS.ops);
    const call = () => ops.callTool({ name: 'wait_for_gate', arguments: {} });
    const admitted = [call(), call(), call(), call(), call()];
    await expect.poll(() => running).toBe(1);
    const refused = (await call().catch((error: unknown) => error)) as Error & { data?: { status?: number } };
    expect(refused.data?.status).toBe(429);
    expect(refused.message).toContain('this caller has 1 requests in flight and more waiting (svc.mcp.max-concurrent-calls)');
    const other = await harness.connect(TOKENS.triage);
    expect((await other.callTool({ name: 'get_recent_agent_actions', arguments: {} })).isError).toBeFalsy();
    open();
    const results = await Promise.all(admitted);
    expect(results.map((r) => (r.content as { text: string }[])[0]?.text)).toEqual(['through', 'through', 'through', 'through', 'through']);
    expect(mostRunning).toBe(1);
  });
});
