/**
 * `jose`, loaded when the issuer's keys are first fetched: only processes configured with
 * `svc.mcp.oauth.issuer` pay for it, and only for its JWT verification and local key set.
 */
export interface Jose {
  readonly jwtVerify: typeof import('jose/jwt/verify').jwtVerify;
  readonly createLocalJWKSet: typeof import('jose/jwks/local').createLocalJWKSet;
}

let loading: Promise<Jose> | undefined;

export function loadJose(): Promise<Jose> {
  loading ??= Promise.all([import('jose/jwt/verify'), import('jose/jwks/local')]).then(([verify, local]) => ({ jwtVerify: verify.jwtVerify, createLocalJWKSet: local.createLocalJWKSet }));
  return loading;
}
