/**
 * A broken configuration never stops the host app: it reports each problem (a YAML syntax error
 * with its line, caret and fix) and runs; a file svc cannot read turns svc off, not onto defaults.
 */
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { type FixtureApp, ROOT, startFixture } from '../support/fixture-app.js';
import { OtlpReceiver, SPAN_KIND } from '../support/otlp-receiver.js';
import { tempDir } from '../support/temp-dir.js';

let app: FixtureApp | undefined;
const receiver = new OtlpReceiver();

afterEach(async () => {
  await app?.stop();
  await receiver.stop();
});

it('runs with invalid YAML, a bad env value and a bad -D argument: svc off, plain OpenTelemetry on', async () => {
  const dir = tempDir({ 'broken.yml': 'svc:\n  topology:\n    team: [unclosed\n' });
  app = await startFixture({
    script: join(ROOT, 'fixtures', 'express-esm', 'app.mjs'),
    cwd: dir,
    otlpEndpoint: await receiver.start(),
    env: { SVC_CONFIG_FILE: 'broken.yml', SVC_BASELINES_SOURCE: 'psychic', INVENTORY_PORT: '0' },
    args: ['-Dsvc.mcp.port=99999'],
  });
  expect((await app.get('/orders/1')).status).toBe(200);

  const lines = app
    .stderr()
    .split('\n')
    .filter((l) => l.startsWith('svc config'));
  expect(lines).toHaveLength(3);
  expect(lines).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^svc config error: svc\.config\.file \(broken\.yml:3:11\): invalid YAML: .*; the file is not read, so svc is off for this process/),
      'svc config error: svc.baselines.source (SVC_BASELINES_SOURCE): "psychic" is not an accepted value; accepted: one of static, rolling; using the default "static"',
      'svc config error: svc.mcp.port (-Dsvc.mcp.port): 99999 is out of range; accepted: an integer from 0 to 65535; using the default 7070',
    ]),
  );
  expect(app.stderr()).toContain('  3 |     team: [unclosed\n    |           ^\n  fix: the "[" here starts a flow list that is never closed');
  // svc is off: no tool server for settings nobody chose; the app's spans still reach the exporter.
  expect(app.stderr()).not.toContain('MCP tool server listening');
  const span = await receiver.waitFor(() => receiver.spans.find((s) => s.kind === SPAN_KIND.SERVER && s.attributes['url.path'] === '/orders/1'));
  // svc's span processor is off: the span is the instrumentation's, with no svc.* attribute.
  expect(span.name).toBe('GET /orders/:id');
  expect(Object.keys(span.attributes).filter((k) => k.startsWith('svc.'))).toEqual([]);
});
