/**
 * The tool server's last resort over real HTTP: whatever a tool returns (the app's custom tools
 * above all), the text sent is at most svc.mcp.max-output-bytes, cut with a marker, and larger
 * structured content is left out with a note; error messages are bounded too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mcpHarness, TOKENS } from '../support/mcp-harness.js';

let harness: Awaited<ReturnType<typeof mcpHarness>> | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('the last-resort bound on every tool result', () => {
  it("cuts a custom tool's long text with a marker, by the configured bound", async () => {
    harness = await mcpHarness('  max-output-bytes: 1024');
    harness.registry.registerCustom({ name: 'dump_cache', description: 'Every cached entry', readOnly: true }, () => '€'.repeat(5000));
    const result = await harness.call(await harness.connect(TOKENS.lead), 'dump_cache');
    expect(result.isError).toBeFalsy();
    expect(bytes(result.text)).toBeLessThanOrEqual(1024);
    expect(result.text).toMatch(/^€+\n… \[cut: this answer has 15000 bytes; at most 1024 are shown \(svc\.mcp\.max-output-bytes\)\]$/);
  });

  it('leaves out structured content larger than the bound and says so; smaller content passes', async () => {
    harness = await mcpHarness();
    harness.registry.registerCustom({ name: 'list_jobs', description: 'Queued jobs', readOnly: true }, () => ({ jobs: Array.from({ length: 2000 }, (_, i) => ({ id: i, state: 'queued' })) }));
    harness.registry.registerCustom({ name: 'count_jobs', description: 'Queued job count', readOnly: true }, () => ({ queued: 3 }));
    const client = await harness.connect(TOKENS.lead);
    const big = await harness.call(client, 'list_jobs');
    expect(big.structuredContent).toBeUndefined();
    expect(bytes(big.text)).toBeLessThanOrEqual(8192);
    expect(big.text).toMatch(
      /\n… \[cut: this answer has \d+ bytes; at most \d+ are shown \(svc\.mcp\.max-output-bytes\)\]\n… \[structured content left out: \d+ bytes, more than svc\.mcp\.max-output-bytes \(8192\)\]$/,
    );
    const small = await harness.call(client, 'count_jobs');
    expect(small.structuredContent).toEqual({ queued: 3 });
  });

  it('bounds a built-in whose fixed layout is larger than a small bound, and error messages', async () => {
    harness = await mcpHarness('  max-output-bytes: 1024');
    const client = await harness.connect(TOKENS.lead);
    const playbook = await harness.call(client, 'get_playbook', { pattern: 'thundering_herd' });
    expect(bytes(playbook.text)).toBeLessThanOrEqual(1024);
    expect(playbook.text).toMatch(/^PLAYBOOK thundering_herd_response/);
    expect(playbook.structuredContent).toBeUndefined();
    expect(playbook.text).toContain('[structured content left out:');

    harness.registry.registerCustom({ name: 'explode', description: 'Fails with a long message', readOnly: true }, () => {
      throw new Error('x'.repeat(1100));
    });
    const failed = await harness.call(client, 'explode');
    expect(failed.isError).toBe(true);
    expect(bytes(failed.text)).toBeLessThanOrEqual(1024);
    expect(failed.text).toMatch(/^explode failed inside the service: x+\n… \[cut: /);
  });
});
