// `npm run bench`: every benchmark, one after the other (not part of the test suite).
import { spawnSync } from 'node:child_process';

for (const script of ['bench/processor.mjs', 'bench/export-cost.mjs', 'bench/false-positives.mjs', 'bench/http.mjs']) {
  console.log(`\n== ${script}`);
  const { status } = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
