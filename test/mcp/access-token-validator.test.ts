/**
 * The JWT checks one by one, on tokens signed with a key of the issuer's set (a local issuer
 * whose keys the test holds): type, not-before, issued-at, issuer, audience, subject; and the
 * key set's refresh, at most once a minute for an unknown key, and its age limit.
 */
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokenValidator } from '../../src/mcp/oauth/access-token-validator.js';
import { KEYS_MAX_AGE_MS, REFRESH_COOLDOWN_MS, SigningKeys } from '../../src/mcp/oauth/signing-keys.js';

const RESOURCE = 'https://orders.internal:7070/mcp';
let server: Server;
let issuer = '';
let published: JWK[] = [];
let fetches = 0;

async function newKey(kid: string): Promise<{ privateKey: CryptoKey; jwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-authorization-server') res.writeHead(200).end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    else {
      fetches++;
      res.writeHead(200).end(JSON.stringify({ keys: published }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function validator(clock: { now: number }) {
  const now = () => clock.now;
  const keys = new SigningKeys(issuer, now);
  return new AccessTokenValidator({ issuer, resource: RESOURCE, algorithms: ['ES256'], clockSkewMs: 60_000, tokenTypes: ['at+jwt'], now }, keys);
}

function token(key: CryptoKey, kid: string, nowMs: number, claims: Record<string, unknown> = {}, typ: string | null = 'at+jwt'): Promise<string> {
  const seconds = Math.floor(nowMs / 1000);
  return new SignJWT({ iss: issuer, aud: RESOURCE, sub: 'agent-7', client_id: 'agent-7', scope: 'svc:read', iat: seconds, exp: seconds + 300, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid, ...(typ !== null && { typ }) })
    .sign(key);
}

describe('JWT access token checks', () => {
  it('accepts a well-formed token and refuses each claim that is off, naming it', async () => {
    const { privateKey, jwk } = await newKey('k1');
    published = [jwk];
    const clock = { now: Date.now() };
    const v = validator(clock);
    const t = (claims: Record<string, unknown> = {}, typ = 'at+jwt') => token(privateKey, 'k1', clock.now, claims, typ);
    const s = Math.floor(clock.now / 1000);
    await expect(v.validate(await t())).resolves.toMatchObject({ sub: 'agent-7' });
    await expect(v.validate(await t({}, 'application/AT+JWT'))).resolves.toMatchObject({ sub: 'agent-7' });
    await expect(v.validate(await t({}, 'JWT'))).rejects.toThrow(/type \(typ header\) is "jwt"; accepted: at\+jwt .*ID tokens/);
    await expect(v.validate(await token(privateKey, 'k1', clock.now, {}, null))).rejects.toThrow(/type \(typ header\) is missing/);
    await expect(v.validate(await t({ nbf: s + 120 }))).rejects.toThrow(/not valid yet \(nbf\)/);
    await expect(v.validate(await t({ nbf: s + 30 }))).resolves.toBeTruthy();
    await expect(v.validate(await t({ iat: s + 120 }))).rejects.toThrow(/issued in the future \(iat\)/);
    await expect(v.validate(await t({ iss: 'https://login.example.com' }))).rejects.toThrow(`the token is issued by "https://login.example.com", not by ${issuer} (svc.mcp.oauth.issuer)`);
    await expect(v.validate(await t({ aud: undefined }))).rejects.toThrow(/for the audience nobody, not for this tool server/);
    await expect(v.validate(await t({ aud: ['https://a.example', RESOURCE] }))).resolves.toBeTruthy();
    await expect(v.validate(await t({ sub: undefined }))).rejects.toThrow(/sub/);
    await expect(v.validate(await t({ exp: s - 30 }))).resolves.toBeTruthy();
    await expect(v.validate(await t({ exp: s - 61 }))).rejects.toThrow(/^the token expired at /);
  });

  it('fetches the key set again for an unknown key at most once a minute, and stops using it a day after the last fetch', async () => {
    const first = await newKey('a');
    published = [first.jwk];
    const clock = { now: Date.now() };
    const v = validator(clock);
    await v.validate(await token(first.privateKey, 'a', clock.now));
    const second = await newKey('b');
    published = [first.jwk, second.jwk];
    const before = fetches;
    await expect(v.validate(await token(second.privateKey, 'b', clock.now))).rejects.toThrow(/names a signing key the issuer's key set does not hold/);
    await expect(v.validate(await token(second.privateKey, 'b', clock.now))).rejects.toThrow(/names a signing key/);
    expect(fetches).toBe(before);
    clock.now += REFRESH_COOLDOWN_MS;
    await expect(v.validate(await token(second.privateKey, 'b', clock.now))).resolves.toBeTruthy();
    expect(fetches).toBe(before + 1);
    // The issuer without keys: the held ones serve until a day after the last good fetch, then a 503 says why.
    published = [];
    clock.now += KEYS_MAX_AGE_MS - 1;
    await expect(v.validate(await token(second.privateKey, 'b', clock.now))).resolves.toBeTruthy();
    clock.now += 1;
    await expect(v.validate(await token(second.privateKey, 'b', clock.now))).rejects.toMatchObject({
      status: 503,
      message: expect.stringMatching(/^the issuer's signing keys are not available yet \(.*holds no public signing key/),
    });
  });
});
