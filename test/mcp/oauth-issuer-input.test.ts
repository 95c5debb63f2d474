/**
 * What a hostile or broken identity provider can send svc: metadata naming another issuer, a key
 * set without a usable key, one with only a shared secret, one too large. Each leaves svc
 * without keys, saying why (the 503's reason), never throwing into the host.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_JWKS_BYTES, SigningKeys } from '../../src/mcp/oauth/signing-keys.js';
import { TokenRefusal } from '../../src/mcp/oauth/token-refusal.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** An issuer on 127.0.0.1 whose metadata names `issuerOf(url)` and whose JWKS is `jwks`. */
async function issuerSending(jwks: string, issuerOf: (url: string) => string = (url) => url): Promise<string> {
  let url = '';
  server = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-authorization-server') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: issuerOf(url), jwks_uri: `${url}/jwks` }));
    else if (req.url === '/jwks') res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return url;
}

async function problemWith(url: string): Promise<string | undefined> {
  const keys = new SigningKeys(url, Date.now);
  await keys.refresh();
  await expect(keys.keyFor({ alg: 'ES256', kid: 'k' }, { payload: '', signature: '' })).rejects.toThrow(TokenRefusal);
  return keys.problem;
}

describe("the issuer's metadata and keys, as svc takes them", () => {
  it('refuses metadata that names another issuer', async () => {
    const url = await issuerSending('{"keys":[]}', () => 'https://evil.example');
    expect(await problemWith(url)).toContain('names the issuer "https://evil.example", not "http://127.0.0.1:');
  });

  it('never takes a shared secret or a private key from the key set', async () => {
    const url = await issuerSending(
      JSON.stringify({
        keys: [
          { kty: 'oct', k: 'c2VjcmV0', kid: 'k' },
          { kty: 'EC', crv: 'P-256', x: 'a', y: 'b', d: 'c', kid: 'p' },
        ],
      }),
    );
    expect(await problemWith(url)).toMatch(/holds no public signing key .*symmetric and private keys are never used/);
  });

  it(`reads at most ${MAX_JWKS_BYTES} bytes of a key set`, async () => {
    const url = await issuerSending(JSON.stringify({ keys: [], padding: 'x'.repeat(MAX_JWKS_BYTES) }));
    expect(await problemWith(url)).toContain(`sent more than ${MAX_JWKS_BYTES} bytes`);
  });

  it('says which URLs it tried when the issuer has no metadata', async () => {
    const url = await issuerSending('{}');
    const keys = new SigningKeys(`${url}/realms/ops`, Date.now);
    await keys.refresh();
    expect(keys.problem).toBe(
      `no metadata for issuer ${url}/realms/ops: ${url}/.well-known/oauth-authorization-server/realms/ops answered HTTP 404; ${url}/.well-known/openid-configuration/realms/ops answered HTTP 404; ${url}/realms/ops/.well-known/openid-configuration answered HTTP 404`,
    );
  });
});
