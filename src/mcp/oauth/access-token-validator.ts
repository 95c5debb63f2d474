/**
 * Verifies a JWT access token (RFC 9068) with `jose`: the signature with one of the accepted
 * asymmetric algorithms and a key of the issuer's set (SigningKeys), `iss` equal to the issuer,
 * `aud` naming this resource (RFC 8707), `exp`, `nbf` and `iat` within the clock skew on the
 * injected clock, and the `typ` header one of the accepted token types. A refusal says which
 * check failed, never the token.
 */
import type { JWTPayload } from 'jose';
import { printable } from '../../shared/printable.js';
import { loadJose } from './load-jose.js';
import { type OAuthOptions, tokenType } from './oauth-options.js';
import type { SigningKeys } from './signing-keys.js';
import { TokenRefusal } from './token-refusal.js';

export type AccessTokenChecks = Pick<OAuthOptions, 'issuer' | 'resource' | 'algorithms' | 'clockSkewMs' | 'tokenTypes'> & { readonly now: () => number };

/** Whether a token has the shape of a signed JWT (three base64url parts); others may be opaque. */
export function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token);
}

export class AccessTokenValidator {
  constructor(
    private readonly checks: AccessTokenChecks,
    private readonly keys: SigningKeys,
  ) {}

  async validate(token: string): Promise<JWTPayload> {
    const { issuer, resource, algorithms, clockSkewMs, tokenTypes, now } = this.checks;
    const { jwtVerify } = await loadJose();
    let verified: Awaited<ReturnType<typeof jwtVerify>>;
    try {
      verified = await jwtVerify(token, (header, input) => this.keys.keyFor(header, input), {
        algorithms: [...algorithms],
        issuer,
        audience: resource,
        clockTolerance: clockSkewMs / 1000,
        currentDate: new Date(now()),
        requiredClaims: ['exp', 'sub'],
      });
    } catch (error) {
      if (error instanceof TokenRefusal) throw error;
      throw new TokenRefusal(refusalOf(error, this.checks));
    }
    const { payload, protectedHeader } = verified;
    if (typeof payload.iat === 'number' && payload.iat * 1000 > now() + clockSkewMs)
      throw new TokenRefusal('the token is issued in the future (iat), beyond the clock skew (svc.mcp.oauth.clock-skew)');
    const typ = protectedHeader.typ === undefined ? undefined : tokenType(protectedHeader.typ);
    if (typ === undefined || !tokenTypes.includes(typ))
      throw new TokenRefusal(
        `the token's type (typ header) is ${typ === undefined ? 'missing' : `"${printable(typ, 40)}"`}; accepted: ${tokenTypes.join(', ')} (svc.mcp.oauth.token-types), so ID tokens and other JWTs are not taken for access tokens`,
      );
    return payload;
  }
}

/** What jose found wrong, in a sentence naming the check and what is accepted. */
function refusalOf(error: unknown, checks: AccessTokenChecks): string {
  const { code, claim, payload, message } = error as { code?: string; claim?: string; payload?: JWTPayload; message?: string };
  switch (code) {
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return `the token's signing algorithm is not accepted; accepted: ${checks.algorithms.join(', ')} (svc.mcp.oauth.algorithms; never none, never a shared secret)`;
    case 'ERR_JWT_EXPIRED':
      return `the token expired at ${new Date(Number(payload?.exp) * 1000).toISOString()} (clock skew ${checks.clockSkewMs / 1000}s)`;
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return "the token's signature does not verify with the issuer's key: it was altered, or signed by another key";
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return "the token names a signing key the issuer's key set does not hold (the set is fetched again at most once a minute)";
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return "the token names no key id (kid) and the issuer's key set holds several keys that could verify it";
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'iss') return `the token is issued by ${shown(payload?.iss)}, not by ${checks.issuer} (svc.mcp.oauth.issuer)`;
      if (claim === 'aud') return `the token is for the audience ${shown(payload?.aud)}, not for this tool server, ${checks.resource} (svc.mcp.oauth.resource)`;
      if (claim === 'nbf') return 'the token is not valid yet (nbf), beyond the clock skew (svc.mcp.oauth.clock-skew)';
      return `the token's ${printable(claim ?? 'claims', 40)} claim is not accepted: ${printable(message ?? '', 200)}`;
    default:
      return `the token is not a well-formed signed JWT: ${printable(message ?? String(error), 200)}`;
  }
}

function shown(value: unknown): string {
  return value === undefined ? 'nobody' : printable(JSON.stringify(value), 200);
}
