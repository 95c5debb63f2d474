// What a flood of concurrent tool calls costs the app's memory, with svc.mcp.max-concurrent-calls
// at its default (8) and raised out of reach (1000): a real app under the preload
// (bench/mcp-app.mjs, 500 tracked operations), one caller keeping FLOOD_CONCURRENCY calls of
// get_service_health in flight for FLOOD_SECONDS over 2026-07-28. For each: the calls answered and
// refused (429), RSS after garbage collection before and after, and the peak RSS of the process
// (VmHWM) over its life. (The tool server accepts at most 256 connections: the flood stays within.)
// Run against the built output: `npm run build && node bench/concurrent-flood.mjs`.
import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startMcpApp } from './mcp-app-process.mjs';
import { printedSection } from './printed-section.mjs';

const CONCURRENCY = Number(process.env.FLOOD_CONCURRENCY ?? 128);
const SECONDS = Number(process.env.FLOOD_SECONDS ?? 10);
const MB = 1024 * 1024;
const section = printedSection('bench/concurrent-flood.mjs', 'A flood of concurrent tool calls');

async function run(maxConcurrentCalls) {
  const app = await startMcpApp({ SVC_MCP_MAX_CONCURRENT_CALLS: String(maxConcurrentCalls) });
  const { url, get } = app;
  await get('/__fill?count=500');
  const client = new Client({ name: 'flood', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  for (let i = 0; i < 50; i++) await client.callTool({ name: 'get_service_health', arguments: {} });
  const before = (await get('/__memory')).rss;
  let answered = 0;
  let refused = 0;
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        try {
          await client.callTool({ name: 'get_service_health', arguments: {} });
          answered++;
        } catch (error) {
          if (error?.data?.status !== 429) throw error;
          refused++;
        }
      }
    }),
  );
  const peak = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${app.pid}/status`, 'utf8'))?.[1]) * 1024;
  const after = (await get('/__memory')).rss;
  await client.close();
  await app.stop();
  return { maxConcurrentCalls, answered, refused, before, after, peak };
}

const rows = [];
for (const cap of [8, 1000]) rows.push(await run(cap));
section.say(`${CONCURRENCY} calls of get_service_health in flight from one caller for ${SECONDS} s (2026-07-28), 500 tracked operations:`);
section.say('');
section.say('| svc.mcp.max-concurrent-calls | answered / s | refused (429) / s | RSS before | RSS after | RSS growth | peak RSS |');
section.say('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows)
  section.say(
    `| ${r.maxConcurrentCalls} | ${Math.round(r.answered / SECONDS)} | ${Math.round(r.refused / SECONDS)} | ${(r.before / MB).toFixed(0)} MB | ${(r.after / MB).toFixed(0)} MB | ${((r.after - r.before) / MB).toFixed(0)} MB | ${(r.peak / MB).toFixed(0)} MB |`,
  );
await section.write({ fenced: false });
