// `npm run bench`: every benchmark, one after the other (not part of the test suite).
import { spawnSync } from 'node:child_process';

const BENCHMARKS = [
  ['bench/processor.mjs'],
  ['bench/store.mjs'],
  ['bench/store-request-path.mjs'],
  ['bench/analysis-restore.mjs'],
  ['bench/fleet.mjs'],
  ['bench/fleet-summary.mjs'],
  ['--expose-gc', 'bench/operation-memory.mjs'],
  ['bench/detection-time.mjs'],
  ['bench/export-cost.mjs'],
  ['bench/agent-step.mjs'],
  ['bench/mcp-session.mjs'],
  ['bench/concurrent-flood.mjs'],
  ['--expose-gc', 'bench/tool-calls.mjs'],
  ['bench/status-page.mjs'],
  ['bench/baseline-steps.mjs'],
  ['bench/false-positives.mjs'],
  ['bench/http.mjs'],
  ['bench/performance.mjs'],
];

for (const args of BENCHMARKS) {
  console.log(`\n== ${args.join(' ')}`);
  const { status } = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
