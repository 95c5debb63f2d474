/**
 * Opaque access tokens, checked by token introspection (RFC 7662) at the issuer's
 * introspection_endpoint with svc's own client credentials. An active token is cached, under
 * its SHA-256 and never as itself, for its remaining lifetime, so an agent's calls cost one
 * introspection per token; the cache holds at most MAX_CACHED tokens (the oldest goes first).
 * Only the claims svc reads are kept. The answer must name this resource in `aud` and the configured issuer in `iss` when it has one.
 */
import { createHash } from 'node:crypto';
import { printable } from '../../shared/printable.js';
import { fetchJsonObject, IdentityProviderError } from './bounded-fetch.js';
import type { SigningKeys } from './signing-keys.js';
import { TokenRefusal } from './token-refusal.js';

export const MAX_CACHED = 1000;
const MAX_INTROSPECTION_BYTES = 16 * 1024;

export interface IntrospectionOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly issuer: string;
  readonly resource: string;
  readonly clockSkewMs: number;
  readonly now: () => number;
  /** The claims svc reads; only these are cached. */
  readonly claims: readonly string[];
}

export class TokenIntrospection {
  private readonly cache = new Map<string, { claims: Record<string, unknown>; expiresAt: number }>();

  constructor(
    private readonly options: IntrospectionOptions,
    private readonly keys: SigningKeys,
  ) {}

  async introspect(token: string): Promise<Record<string, unknown>> {
    const { now } = this.options;
    const digest = createHash('sha256').update(token, 'utf8').digest('base64url');
    const cached = this.cache.get(digest);
    if (cached && cached.expiresAt > now()) return cached.claims;
    this.cache.delete(digest);
    const answer = this.check(await this.ask(token));
    const claims = Object.fromEntries(this.options.claims.filter((name) => answer[name] !== undefined).map((name) => [name, answer[name]]));
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(digest, { claims, expiresAt: Number(claims.exp) * 1000 });
    return claims;
  }

  private async ask(token: string): Promise<Record<string, unknown>> {
    const endpoint = (await this.keys.ensureMetadata()).introspectionEndpoint;
    if (endpoint === undefined) throw new TokenRefusal('the token is not a JWT, and the issuer names no introspection_endpoint to check it by');
    // RFC 6749 section 2.3.1: each part form-encoded before the Basic encoding.
    const basic = Buffer.from(`${encodeURIComponent(this.options.clientId)}:${encodeURIComponent(this.options.clientSecret)}`).toString('base64');
    try {
      return await fetchJsonObject(endpoint, MAX_INTROSPECTION_BYTES, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      });
    } catch (error) {
      if (!(error instanceof IdentityProviderError)) throw error;
      throw new TokenRefusal(`the token could not be introspected: ${error.message}`, 503);
    }
  }

  private check(answer: Record<string, unknown>): Record<string, unknown> {
    const { issuer, resource, clockSkewMs, now } = this.options;
    if (answer.active !== true) throw new TokenRefusal('the issuer says the token is not active (expired, revoked or unknown)');
    if (typeof answer.exp !== 'number') throw new TokenRefusal("the issuer's introspection answer has no exp: svc does not accept tokens without an end");
    if (answer.exp * 1000 + clockSkewMs <= now()) throw new TokenRefusal(`the token expired at ${new Date(answer.exp * 1000).toISOString()}`);
    if (typeof answer.nbf === 'number' && answer.nbf * 1000 - clockSkewMs > now()) throw new TokenRefusal('the token is not valid yet (nbf)');
    if (answer.iss !== undefined && answer.iss !== issuer) throw new TokenRefusal(`the token is issued by ${printable(String(answer.iss), 200)}, not by ${issuer} (svc.mcp.oauth.issuer)`);
    const audience = typeof answer.aud === 'string' ? [answer.aud] : Array.isArray(answer.aud) ? answer.aud : [];
    if (!audience.includes(resource))
      throw new TokenRefusal(`the token is for the audience ${printable(JSON.stringify(answer.aud ?? null), 200)}, not for this tool server, ${resource} (svc.mcp.oauth.resource)`);
    return answer;
  }
}
