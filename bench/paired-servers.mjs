// What bench/performance.mjs and bench/store-request-path.mjs share: servers in child processes
// (pinned to the last core where `taskset` exists, the load generator and helpers on the others)
// that print "LISTENING <port>" and answer "stats" over IPC (bench/framework-app.cjs), paced load,
// and the paired-slice arithmetic (docs/analysis.md, "Cost", says why slices are paired).
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const serverCore = availableParallelism() - 1;
export const pinned = serverCore > 0 && spawnSync('taskset', ['-a', '-pc', `0-${serverCore - 1}`, String(process.pid)]).status === 0;
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts `node <args>`; resolves with { child, stderr, port } once it prints "LISTENING <port>". */
export function start(args, env, { server = true, name = args.at(-1) } = {}) {
  const [command, commandArgs] = pinned && server ? ['taskset', ['-c', String(serverCore), process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command, commandArgs, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe', ...(server ? ['ipc'] : [])] });
  const state = { child, stderr: '' };
  createInterface({ input: child.stderr }).on('line', (line) => {
    state.stderr += `${line}\n`;
    if (!/^svc: MCP tool server listening at /.test(line)) process.stderr.write(`[${name}] ${line}\n`);
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /^LISTENING (\d+)/.exec(line);
      if (match) resolve(Object.assign(state, { port: Number(match[1]) }));
    });
    child.on('exit', (code) => reject(new Error(`${name} (${args.join(' ')}) exited with ${code}:\n${state.stderr}`)));
  });
}

/** Resolves with the URL of svc's MCP tool server once the server's stderr names it. */
export async function toolServerUrl(server, name) {
  for (let i = 0; i < 100; i++) {
    const found = /MCP tool server listening at (\S+)/.exec(server.stderr);
    if (found) return found[1];
    await sleep(100);
  }
  throw new Error(`${name}: svc's MCP tool server did not start:\n${server.stderr}`);
}

export async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(killer);
}

/** The server's CPU time (µs), RSS (bytes) and requests served, over its IPC channel. */
export function stats(server) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('a server did not answer "stats" within 10 s')), 10_000);
    server.child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message);
    });
    server.child.send('stats');
  });
}

/** `rate` requests per second over `connections`, the paths in turn, for `duration` seconds. */
export const load = (port, { duration, rate, paths, connections = 16 }) =>
  autocannon({ url: `http://127.0.0.1:${port}`, connections, duration, overallRate: rate, requests: paths.map((path) => ({ method: 'GET', path })) });

export const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))];
export const median = (values) => quantile(values, 0.5);

/** `a`'s figure over `b`'s in the same slice index: median and 25th-75th percentiles of the ratios. */
export function paired(a, b, key) {
  const ratios = a.slices.map((s, i) => s[key] / b.slices[i][key]);
  return { median: median(ratios), low: quantile(ratios, 0.25), high: quantile(ratios, 0.75) };
}
export const ratio = ({ median: m, low, high }) => `${m.toFixed(2)} (${low.toFixed(2)}-${high.toFixed(2)})`;
export const row = (cells, widths) => `  ${cells.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  ')}`;
