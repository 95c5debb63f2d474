/**
 * Starts a fixture app in a child process under `node --import ./register.mjs`, exporting to an
 * OTLP receiver, and waits for its "LISTENING <port>" line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface FixtureApp {
  readonly port: number;
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  get(path: string, init?: RequestInit): Promise<Response>;
  /** Sends SIGTERM and resolves with the exit code and signal. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface FixtureOptions {
  readonly script: string;
  readonly args?: readonly string[];
  readonly env?: Record<string, string | undefined>;
  readonly cwd?: string;
  readonly otlpEndpoint?: string;
  /** Wait for the LISTENING line (default true). */
  readonly listens?: boolean;
  /** The `--import` preload (default svc's register.mjs). */
  readonly preload?: string;
}

/** A free port on 127.0.0.1, for fixtures whose dependency port must be known before start. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startFixture(options: FixtureOptions): Promise<FixtureApp> {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    OTEL_EXPORTER_OTLP_ENDPOINT: options.otlpEndpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_TRACES_EXPORTER: options.otlpEndpoint ? 'otlp' : 'none',
    OTEL_LOGS_EXPORTER: options.otlpEndpoint ? 'otlp' : 'none',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_BLRP_SCHEDULE_DELAY: '100',
    SVC_MCP_PORT: '0',
    // Fixtures share the repository as working directory: each keeps its state in memory unless a test gives a store.
    SVC_STORE_URL: 'memory:',
    ...options.env,
  };
  const child = spawn(process.execPath, ['--import', options.preload ?? join(ROOT, 'register.mjs'), options.script, ...(options.args ?? [])], {
    cwd: options.cwd ?? ROOT,
    env: Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));

  let port = 0;
  if (options.listens ?? true) {
    port = await new Promise<number>((resolve, reject) => {
      const check = (): void => {
        const match = /LISTENING (\d+)/.exec(stdout);
        if (match) resolve(Number(match[1]));
      };
      child.stdout!.on('data', check);
      void exit.then(({ code, signal }) => reject(new Error(`fixture exited (${code ?? signal}) before listening\nstderr:\n${stderr}`)));
    });
  }
  return {
    port,
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    get: (path, init) => fetch(`http://127.0.0.1:${port}${path}`, init),
    exited: () => exit,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exit;
    },
  };
}
