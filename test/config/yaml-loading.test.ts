/** The YAML parser is loaded only when there is a configuration file with more than comments to read (src/config/yaml.ts). */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../support/fixture-app.js';
import { tempDir } from '../support/temp-dir.js';

function loadsYaml(files: Record<string, string>): boolean {
  const printed = execFileSync(process.execPath, ['--import', join(ROOT, 'register.mjs'), '-e', "console.log(Object.keys(require.cache).some((k) => k.includes('/node_modules/yaml/')))"], {
    cwd: tempDir(files),
    env: { PATH: process.env.PATH, SVC_MCP_ENABLED: 'false', SVC_STORE_URL: 'memory:', OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none' },
    encoding: 'utf8',
  });
  return printed.trim().split('\n').at(-1) === 'true';
}

it('loads no YAML parser when the service is configured without a file or with one of comments only, and loads it to read svc.yml', () => {
  expect(loadsYaml({})).toBe(false);
  expect(loadsYaml({ 'svc.yml': '# svc configuration: nothing yet\n\n  # svc:\n  #   topology:\n' })).toBe(false);
  expect(loadsYaml({ 'svc.yml': 'svc:\n  topology:\n    team: checkout\n' })).toBe(true);
});
