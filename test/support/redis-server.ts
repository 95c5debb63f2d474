/**
 * A real `redis-server` (Debian's; `.ci/run` installs it when missing) on 127.0.0.1 with an
 * ephemeral port and a temporary directory, appending every write to disk so a restart keeps
 * the data. Tests stop it, kill it and start it again on the same port.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { freePort } from './fixture-app.js';
import { tempDir } from './temp-dir.js';

/** `redis-server` (Debian's), or `valkey-server` for the same tests against Valkey where it is installed. */
export type ServerBinary = 'redis-server' | 'valkey-server';

export function redisServerAvailable(binary: ServerBinary = 'redis-server'): boolean {
  try {
    execFileSync(binary, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Starts it again (same port, same data) after kill(). */
  start(): Promise<void>;
  /** SIGKILL: the store is gone at once, mid-test. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const { createConnection } = await import('node:net');
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited: ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`the server did not listen on ${port}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function startRedisServer(options: { password?: string; binary?: ServerBinary } = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = tempDir();
  let child: ChildProcess | undefined;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'yes',
    '--appendfsync',
    'always',
    ...(options.password ? ['--requirepass', options.password] : []),
  ];
  const start = async (): Promise<void> => {
    let output = '';
    const started = spawn(options.binary ?? 'redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    started.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child = started;
    await waitForPort(port, started, () => output);
  };
  const kill = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, start, kill, stop: kill };
}
