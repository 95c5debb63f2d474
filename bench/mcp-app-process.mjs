// bench/mcp-app.mjs under the preload in a child process, with the environment given on top of
// the benchmarks' own (an ephemeral tool server port, no rate limit in reach, no exporters).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Resolves once the app listens and its tool server too: `get(path)` reads the app's JSON, `stop()` ends it. */
export async function startMcpApp(env = {}) {
  const app = spawn(process.execPath, ['--expose-gc', '--import', `${ROOT}register.mjs`, 'bench/mcp-app.mjs'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, SVC_MCP_PORT: '0', SVC_MCP_RATE_LIMIT_PER_MINUTE: '100000', OTEL_TRACES_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  app.stdout.on('data', (c) => (stdout += c));
  app.stderr.on('data', (c) => (stderr += c));
  const waitFor = async (pattern, text) => {
    for (let i = 0; i < 300; i++) {
      const found = pattern.exec(text());
      if (found) return found[1];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`app did not print ${pattern}: ${stderr}`);
  };
  const port = await waitFor(/LISTENING (\d+)/, () => stdout);
  const url = new URL(await waitFor(/MCP tool server listening at (\S+)/, () => stderr));
  return {
    pid: app.pid,
    port,
    url,
    get: async (path) => (await fetch(`http://127.0.0.1:${port}${path}`)).json(),
    async stop() {
      app.kill('SIGTERM');
      await new Promise((resolve) => app.once('exit', resolve));
    },
  };
}
