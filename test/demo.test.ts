/**
 * The demo is an end-to-end test: its shortened variant must reach a passing verdict. It also
 * ends cleanly: Ctrl-C (SIGINT to the whole process group, as a terminal sends it) after the
 * verdict of `--keep`, or SIGINT/SIGTERM to the demo process alone while it runs, stops every
 * process it started within 1 s. The processes are found in /proc before the signal.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chromiumInstalled, launchChromium } from './browser/chromium.js';
import { ROOT } from './support/fixture-app.js';
import { tempDir } from './support/temp-dir.js';

const STOPPED_WITHIN_MS = 1000;

/** The parent pid of `pid` and whether it still runs (a zombie has ended), from /proc. */
function procStat(pid: number): { ppid: number; running: boolean } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(ppid), running: state !== 'Z' && state !== 'X' };
  } catch {
    return undefined;
  }
}

/** `pid` and every process below it. */
function processTree(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat?.running) parents.set(Number(entry), stat.ppid);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  return tree;
}

interface Demo {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves once the output matches `pattern`; rejects if the demo exits first or after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `node demo/run.mjs` in a process group of its own, as a terminal runs a command. */
function startDemo(args: string[]): Demo {
  const child = spawn(process.execPath, ['demo/run.mjs', ...args], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (c) => (output += c));
  child.stderr?.on('data', (c) => (output += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const waitFor = async (pattern: RegExp, timeoutMs: number): Promise<void> => {
    const until = Date.now() + timeoutMs;
    let ended = false;
    void exited.then(() => (ended = true));
    while (!pattern.test(output)) {
      if (ended) throw new Error(`the demo exited before ${pattern}:\n${output}`);
      if (Date.now() > until) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { child, output: () => output, waitFor, exited };
}

/** Sends `signal` (to the group with `group`), then the milliseconds until each process of the tree had ended (missing: still running at the limit). */
async function signalAndWatch(demo: Demo, signal: NodeJS.Signals, group: boolean): Promise<{ tree: number[]; endedAfter: Map<number, number> }> {
  const pid = demo.child.pid as number;
  const tree = processTree(pid);
  const sent = performance.now();
  process.kill(group ? -pid : pid, signal);
  const endedAfter = new Map<number, number>();
  while (endedAfter.size < tree.length && performance.now() - sent < 3 * STOPPED_WITHIN_MS) {
    for (const p of tree) if (!endedAfter.has(p) && !procStat(p)?.running) endedAfter.set(p, Math.round(performance.now() - sent));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { tree, endedAfter };
}

/** Kills what is left of the tree, so a failing test leaves nothing running. */
function cleanUp(tree: number[]): void {
  for (const p of tree) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {}
  }
}

function expectAllStopped(tree: number[], endedAfter: Map<number, number>, output: string): void {
  const report = tree.map((p) => `${p}: ${endedAfter.has(p) ? `${endedAfter.get(p)} ms` : 'still running'}`).join(', ');
  expect(tree.length, `the demo, inventory-service and orders-service:\n${output}`).toBe(3);
  expect(
    tree.every((p) => (endedAfter.get(p) ?? Number.POSITIVE_INFINITY) <= STOPPED_WITHIN_MS),
    report,
  ).toBe(true);
}

const onLinux = existsSync('/proc/self/stat');

/** Waits for the demo's approval request, then approves it as a person would: Chromium, the printed page, the printed token. */
async function approveOnPage(demo: Demo): Promise<void> {
  await demo.waitFor(/approval APR-\S+ waits for a person: open (\S+), sign in with (\S+) and approve/, 150_000);
  const [, id, url, token] = /approval (APR-\S+) waits for a person: open (\S+), sign in with (\S+) and approve/.exec(demo.output())!;
  const chromium = await launchChromium();
  try {
    const page = await chromium.context.newPage();
    await page.goto(url!);
    await page.fill('#token', token!);
    await Promise.all([page.waitForURL(url!), page.click('button[type=submit]')]);
    const card = page.locator(`article.approval[data-approval="${id}"]`);
    expect(await card.textContent()).toContain('rollback_new_stock_check');
    await card.locator('input[name=reason]').fill('checked the incident on the page');
    await Promise.all([page.waitForURL(/notice=approved/), card.locator('button[value=approve]').click()]);
  } finally {
    await chromium.close();
  }
  await demo.waitFor(/the approval was given on the status page/, 10_000);
}

describe('npm run demo', () => {
  it('(shortened, --keep): incident found, cause named, action taken (approved by a person on the status page), effect verified; then Ctrl-C stops every process within 1 s', async () => {
    // Where Chromium is (CI installs it), a person approves the rollback on the status page; elsewhere alice's credential does.
    const onPage = chromiumInstalled();
    const demo = startDemo(['--short', '--keep', ...(onPage ? ['--approve-on-page'] : [])]);
    let tree: number[] = [];
    try {
      if (onPage) await approveOnPage(demo);
      await demo.waitFor(/The service keeps running|DEMO FAILED|\d+ passed, \d+ failed/, 175_000);
      // The --keep text follows the verdict only when every check passed.
      await demo.waitFor(/The service keeps running[\s\S]*\n {2}}/, 5_000).catch(() => undefined);
      const output = demo.output();
      expect(output).toContain('PASS  incident found: INC-');
      expect(output).toMatch(/PASS {2}cause named: feature flag new_stock_check enabled/);
      expect(output).toContain('PASS  action taken: rollback_new_stock_check');
      expect(output).toContain('PASS  effect verified: YES');
      expect(output).toContain('4 passed, 0 failed');
      expect(output).toContain('The service keeps running (Ctrl-C stops it)');
      expect(output).toMatch(/The status page \(docs\/status-page.md\): http:\/\/127\.0\.0\.1:\d+\/\n {2}Sign in with demo-approver-token/);
      if (!onLinux) return;
      const watched = await signalAndWatch(demo, 'SIGINT', true);
      tree = watched.tree;
      expectAllStopped(tree, watched.endedAfter, demo.output());
      expect(await demo.exited).toEqual({ code: 0, signal: null });
    } finally {
      cleanUp(tree.length ? tree : processTree(demo.child.pid as number));
    }
  }, 180_000);

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it.skipIf(!onLinux)(
      `${signal} to the demo process alone, while it runs, stops every process it started within 1 s`,
      async () => {
        const demo = startDemo(['--short']);
        let tree: number[] = [];
        try {
          // The first progress line: both services run, traffic flows, an MCP client is connected.
          await demo.waitFor(/progress: /, 20_000);
          const watched = await signalAndWatch(demo, signal, false);
          tree = watched.tree;
          expectAllStopped(tree, watched.endedAfter, demo.output());
          expect(await demo.exited).toEqual({ code: signal === 'SIGINT' ? 130 : 143, signal: null });
        } finally {
          cleanUp(tree.length ? tree : processTree(demo.child.pid as number));
        }
      },
      30_000,
    );
  }
  it('--replicas says how to get redis-server when it is not on the PATH, and refuses a count it cannot run', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn(process.execPath, ['demo/run.mjs', ...args], { cwd: ROOT, env: { PATH: tempDir() }, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (c) => (output += c));
        child.stderr.on('data', (c) => (output += c));
        child.on('exit', (code) => resolve({ code, output }));
      });
    const missing = await run(['--replicas', '2']);
    expect(missing.code).toBe(1);
    expect(missing.output).toContain('needs redis-server on the PATH');
    expect(missing.output).toContain('apt-get install redis-server');
    expect(missing.output).toContain('npm run demo');
    const tooMany = await run(['--replicas', '9']);
    expect(tooMany.code).toBe(2);
    expect(tooMany.output).toContain('--replicas takes a whole number from 1 to 5; got "9"');
  }, 30_000);
});
