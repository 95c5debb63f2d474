// A throwaway `redis-server` for benchmarks, on 127.0.0.1 with an ephemeral port and its data in
// `dir`; undefined (with a line saying how to get it) when `redis-server` is not on the PATH.
import { spawn, spawnSync } from 'node:child_process';
import { createConnection, createServer } from 'node:net';

/** A port free on 127.0.0.1 right now. */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const answers = (port) =>
  new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

export async function startRedisServer(dir) {
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    console.log('redis: skipped (no redis-server on the PATH; Debian: apt-get install redis-server)');
    return undefined;
  }
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes'], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !(await answers(port)); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill() };
}
