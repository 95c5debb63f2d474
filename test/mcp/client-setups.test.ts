/**
 * The ready-made client setups (demo/client-setups.mjs): docs/mcp.md shows exactly them, and the
 * MCP Inspector's, written to a file as a user would, works with the Inspector CLI
 * (@modelcontextprotocol/inspector, pinned) against a real app under the preload with a token, in
 * both protocol eras; a wrong token is refused as the CLI's auth failure.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module of the demo, without declarations
import { clientSetups } from '../../demo/client-setups.mjs';
import { sha256Hex } from '../../src/mcp/authenticator.js';
import { type FixtureApp, ROOT, startFixture } from '../support/fixture-app.js';
import { tempDir } from '../support/temp-dir.js';

type Setup = { client: string; where: string; text: string };
const setups = clientSetups as (url: string, token: string, name?: string) => Setup[];

const run = promisify(execFile);
const INSPECTOR = join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
const TOKEN = 'inspector-secret-token';

let app: FixtureApp | undefined;
let url = '';

beforeAll(async () => {
  app = await startFixture({
    script: 'fixtures/conformance/app.mjs',
    args: [`-Dsvc.mcp.tokens.inspector.sha256=${sha256Hex(TOKEN)}`, '-Dsvc.mcp.tokens.inspector.role=observer'],
  });
  for (;;) {
    const found = /MCP tool server listening at (\S+)/.exec(app.stderr());
    if (found) {
      url = found[1]!;
      break;
    }
    await new Promise<void>((resolve) => app!.child.stderr!.once('data', () => resolve()));
  }
});

afterAll(async () => {
  await app?.stop();
});

/** Runs the Inspector CLI with the Inspector setup for `token` written to a config file. */
async function inspector(token: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const config = join(tempDir(), 'mcp.json');
  writeFileSync(config, setups(url, token)[0]!.text);
  try {
    const { stdout, stderr } = await run(process.execPath, [INSPECTOR, '--cli', '--config', config, '--server', 'svc', '--format', 'json', ...args], {
      timeout: 30_000,
      env: { PATH: process.env.PATH, HOME: tempDir() },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

it('docs/mcp.md shows the setups the demo prints, for the default address', () => {
  const docs = readFileSync(join(ROOT, 'docs/mcp.md'), 'utf8');
  for (const setup of setups('http://127.0.0.1:7070/mcp', '<token>')) {
    expect(docs).toContain(`**${setup.client}**, ${setup.where}:`);
    expect(docs).toContain(
      setup.text
        .split('\n')
        .map((line) => `    ${line}`)
        .join('\n'),
    );
  }
});

describe.each(['modern', 'legacy'])('the MCP Inspector CLI, protocol era %s', (era) => {
  it('lists the tools the token may call and calls one', async () => {
    const listed = await inspector(TOKEN, '--protocol-era', era, '--method', 'tools/list');
    expect(listed.code, listed.stderr).toBe(0);
    const names = (JSON.parse(listed.stdout) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    expect(names).toContain('get_service_health');
    // The token's role is observer: READ only.
    expect(names).not.toContain('execute_remediation');
    const called = await inspector(TOKEN, '--protocol-era', era, '--method', 'tools/call', '--tool-name', 'get_service_health', '--tool-args-json', '{"format":"json"}');
    expect(called.code, called.stderr).toBe(0);
    expect((JSON.parse(called.stdout) as { result: { structuredContent: { status: string } } }).result.structuredContent.status).toBe('HEALTHY');
  });
});

it('refuses a wrong token as an authentication failure', async () => {
  const refused = await inspector('not-the-token', '--method', 'tools/list', '--stored-auth-only');
  expect(refused.code, refused.stderr).toBe(3);
  expect(refused.stderr).toContain('auth_required');
});
