/**
 * A fleet on a real `redis-server` (127.0.0.1, ephemeral port): three replicas of the orders
 * fixture in child processes under the preload, one store, driven by real requests and read
 * through the MCP tools with the official SDK v2 client. Short publish interval and TTL, so the
 * test takes seconds.
 */
import { join } from 'node:path';
import { type CallToolResult, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketValue } from '../../src/analysis/latency-histogram.js';
import { type FixtureApp, ROOT, startFixture } from '../support/fixture-app.js';
import { newClient } from '../support/mcp-harness.js';
import { type RedisServer, redisServerAvailable, startRedisServer } from '../support/redis-server.js';

const OP = 'GET /orders/{id}';
const SERVICE = 'orders-fleet';
const PUBLISH = '250ms';
const TTL_MS = 2000;
const available = redisServerAvailable();

type Call = (tool: string, args?: Record<string, string>) => Promise<{ text: string; structured: Record<string, unknown> | undefined }>;

let redis: RedisServer;
const replicas = new Map<string, FixtureApp>();
const closers: (() => Promise<unknown>)[] = [];

async function toolUrl(app: FixtureApp): Promise<string> {
  await expect.poll(() => /MCP tool server listening at (\S+)/.exec(app.stderr())?.[1], { timeout: 15_000 }).toBeTruthy();
  return /MCP tool server listening at (\S+)/.exec(app.stderr())![1]!;
}

async function agent(app: FixtureApp): Promise<Call> {
  const client = newClient('2025-11-25', { name: 'fleet-agent' });
  await client.connect(new StreamableHTTPClientTransport(new URL(await toolUrl(app)), { requestInit: { headers: { authorization: 'Bearer triage-demo-token' } } }));
  closers.push(() => client.close());
  return async (tool, args = {}) => {
    const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    return { text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n'), structured: result.structuredContent as Record<string, unknown> | undefined };
  };
}

async function serve(app: FixtureApp, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await (await app.get(`/orders/${i}`)).text();
}

async function fault(app: FixtureApp, body: Record<string, unknown>): Promise<void> {
  await (await app.get('/__fault', { method: 'POST', body: JSON.stringify(body) })).text();
}

interface HealthJson {
  operations: { name: string; requestCount: number; errorRate: number; p99Ms: number }[];
  replicas?: { id: string; status: string; outlier: { reasons: { operation: string; kind: string }[] } | null }[];
  reasons: string[];
  fleet?: { merged: boolean; note: string };
}

async function health(call: Call): Promise<HealthJson> {
  return (await call('get_service_health', { format: 'json' })).structured as unknown as HealthJson;
}

/** The operation's latency buckets summed over the replicas' summaries, read from Redis by this test. */
async function unionP99(): Promise<number> {
  const client = createClient({ url: redis.url });
  await client.connect();
  try {
    const ids = await client.zRange(`svc:{${SERVICE}}:fleet:replicas`, 0, -1);
    const buckets = new Array<number>(75).fill(0);
    for (const id of ids) {
      const text = await client.get(`svc:{${SERVICE}}:fleet:replica:${id}`);
      const row = (JSON.parse(text!) as { ops: [string, number, number, number[]][] }).ops.find((r) => r[0] === OP)!;
      for (let i = 0; i < row[3].length; i += 2) buckets[row[3][i]!]! += row[3][i + 1]!;
    }
    const total = buckets.reduce((a, b) => a + b, 0);
    const rank = Math.ceil(0.99 * total);
    let seen = 0;
    for (let i = 0; i < 75; i++) if ((seen += buckets[i]!) >= rank) return bucketValue(i);
    throw new Error('empty');
  } finally {
    await client.close();
  }
}

describe.skipIf(!available)('a fleet of three replicas on Redis', () => {
  beforeAll(async () => {
    redis = await startRedisServer();
    await Promise.all(
      ['replica-a', 'replica-b', 'replica-c'].map(async (id) => {
        const app = await startFixture({
          script: 'app.mjs',
          cwd: join(ROOT, 'fixtures', 'orders-service'),
          env: { OTEL_SERVICE_NAME: SERVICE, SVC_STORE_URL: redis.url, SVC_FLEET_INSTANCE_ID: id, SVC_FLEET_PUBLISH_INTERVAL: PUBLISH, SVC_FLEET_REPLICA_TTL: `${TTL_MS}ms` },
        });
        replicas.set(id, app);
      }),
    );
  }, 60_000);

  afterAll(async () => {
    for (const close of closers) await close().catch(() => undefined);
    // SIGKILL: an app that handles SIGTERM itself does not end while its Redis client holds the
    // event loop (a connection, or a reconnect timer while Redis is down).
    await Promise.all(
      [...replicas.values()].map((app) => {
        app.child.kill('SIGKILL');
        return app.exited();
      }),
    );
    await redis?.stop();
  });

  it('merges counts and p99 from every replica, names the faulty one the outlier, and drops a killed one after the TTL', async () => {
    const a = replicas.get('replica-a')!;
    const b = replicas.get('replica-b')!;
    const c = replicas.get('replica-c')!;
    // 20 requests each first (a fresh process's first requests are slow), then a: 38 fast and 2
    // slow; b: 40 fast; c: 40 that fail (its inventory is down). 60 requests each.
    await Promise.all([a, b, c].map((app) => serve(app, 20)));
    await serve(a, 38);
    await fault(a, { delayMs: 120 });
    await serve(a, 2);
    await fault(a, {});
    await serve(b, 40);
    await fault(c, { inventory: 'fail' });
    await serve(c, 40);

    const onB = await agent(b);
    await expect.poll(async () => (await health(onB)).operations.find((o) => o.name === OP)?.requestCount, { timeout: 10_000, interval: 200 }).toBe(180);
    const merged = await health(onB);
    expect(merged.fleet?.merged).toBe(true);
    expect(merged.replicas?.map((r) => r.id).sort()).toEqual(['replica-a', 'replica-b', 'replica-c']);

    // The merged p99 is the percentile of the union of the replicas' requests (2 slow of 180: the
    // 179th is slow), not the mean of their p99s (a's is slow, b's and c's fast).
    const p99 = merged.operations.find((o) => o.name === OP)!.p99Ms;
    expect(p99).toBe(await unionP99());
    expect(p99).toBeGreaterThan(100);
    expect(merged.operations.find((o) => o.name === OP)!.errorRate).toBeCloseTo(40 / 180, 5);

    // The faulty replica is named, in health and in incident context, on any replica.
    const outliers = merged.replicas!.filter((r) => r.outlier);
    expect(outliers.map((r) => r.id)).toEqual(['replica-c']);
    expect(outliers[0]!.outlier!.reasons[0]).toMatchObject({ operation: OP, kind: 'errors' });
    expect(merged.reasons.some((r) => r.startsWith('replica replica-c is an outlier'))).toBe(true);
    const onA = await agent(a);
    // Each replica merges on its own timer: wait for a's merge to hold every request too.
    await expect.poll(async () => (await health(onA)).operations.find((o) => o.name === OP)?.requestCount, { timeout: 10_000, interval: 200 }).toBe(180);
    expect((await onA('get_service_health')).text).toMatch(
      /REPLICAS \(3 replicas, own status each\)\n\s+replica-c\s+\S+\s+last seen .* OUTLIER: GET \/orders\/\{id\} error rate 66\.7% vs 0\.0% on the other replicas \(60 vs 120 requests\)/,
    );
    expect((await onA('get_incident_context', { operation_name: OP })).text).toMatch(
      /REPLICAS \(3 replicas; the figures above are this replica's own\)\n\s+replica-c: OUTLIER: GET \/orders\/\{id\} error rate 66\.7%/,
    );

    // SLOs, the summary and trends show the fleet too.
    const slo = (await onA('get_slo_report', { format: 'json' })).structured as { slos: { name: string; totalRequests: number; failedRequests: number }[] };
    expect(slo.slos.find((s) => s.name === 'orders-availability')).toMatchObject({ totalRequests: 180, failedRequests: 40 });
    expect((await onA('get_executive_summary')).text).toMatch(/REPLICAS: 3, 1 outlier \(replica-c: /);
    expect((await onA('get_trend_analysis', { operation_name: OP })).text).toMatch(/Samples:\s+180 requests/);

    // A killed replica stops publishing and leaves after the TTL.
    c.child.kill('SIGKILL');
    const killedAt = Date.now();
    await expect.poll(async () => (await health(onA)).replicas?.map((r) => r.id).sort(), { timeout: TTL_MS + 5000, interval: 100 }).toEqual(['replica-a', 'replica-b']);
    expect(Date.now() - killedAt).toBeGreaterThan(TTL_MS - 500);
    replicas.delete('replica-c');

    // Redis down: this replica's own figures, saying so.
    await redis.kill();
    await expect.poll(async () => (await health(onA)).fleet?.note, { timeout: 5000, interval: 100 }).toMatch(/Redis is not answering .* the figures are this replica's own \(replica-a\)/);
    expect((await health(onA)).operations.find((o) => o.name === OP)?.requestCount).toBe(60);
  }, 60_000);
});
