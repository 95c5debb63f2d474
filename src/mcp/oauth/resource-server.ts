/**
 * The tool server as an OAuth 2.1 resource server (MCP authorization, RFC 9728), beside its
 * static tokens: the bearer token of a request that matches no svc.mcp.tokens entry is verified
 * as a JWT access token against the issuer's keys, or, when it is not a JWT and introspection is
 * configured, introspected; the caller it makes comes from its claims (token-identity.ts).
 * Refusals are told to the caller with the challenge MCP clients follow, and to `onRefusal`
 * (the audit trail), neither with the token.
 */
import type { Permission } from '../../shared/enums.js';
import type { Roles } from '../roles.js';
import type { CallerIdentity } from '../tool-definition.js';
import { AccessTokenValidator, looksLikeJwt } from './access-token-validator.js';
import type { OAuthOptions } from './oauth-options.js';
import { bearerChallenge, metadataPaths, protectedResourceMetadata } from './protected-resource-metadata.js';
import { SigningKeys } from './signing-keys.js';
import { identityFromClaims, SVC_SCOPES, scopeOf } from './token-identity.js';
import { TokenIntrospection } from './token-introspection.js';
import { TokenRefusal } from './token-refusal.js';

/** Longest bearer token looked at: Entra ID's with many groups are about 8 KB. */
export const MAX_TOKEN_CHARS = 16 * 1024;

export interface ResourceServerHooks {
  readonly now?: () => number;
  /** Told why the issuer's metadata or keys could not be fetched. */
  readonly onProblem?: (message: string) => void;
  /** Told why a token was refused (401), without the token. */
  readonly onRefusal?: (reason: string) => void;
}

export class ResourceServer {
  private readonly keys: SigningKeys;
  private readonly validator: AccessTokenValidator;
  private readonly introspection: TokenIntrospection | undefined;
  readonly paths: ReadonlySet<string>;
  readonly metadata: Readonly<Record<string, unknown>>;

  constructor(
    private readonly options: OAuthOptions,
    private readonly roles: Roles,
    private readonly hooks: ResourceServerHooks = {},
  ) {
    const { issuer, resource } = options;
    const now = hooks.now ?? Date.now;
    this.keys = new SigningKeys(issuer, now, hooks.onProblem);
    this.validator = new AccessTokenValidator({ ...options, now }, this.keys);
    const claims = ['sub', 'exp', options.agentClaim, 'client_id', 'scope', 'scp', options.rolesClaim.split('.')[0]!].filter(Boolean);
    this.introspection = options.introspection && new TokenIntrospection({ ...options.introspection, issuer, resource, clockSkewMs: options.clockSkewMs, now, claims }, this.keys);
    this.paths = metadataPaths(resource);
    this.metadata = Object.freeze(protectedResourceMetadata({ resource, issuer, scopes: this.usesScopes ? SVC_SCOPES : [] }));
  }

  /** Whether permissions come from scopes (then a missing one is `insufficient_scope`) rather than a roles claim. */
  get usesScopes(): boolean {
    return this.options.rolesClaim === '';
  }

  start(): void {
    this.keys.start();
  }

  stop(): void {
    this.keys.stop();
  }

  /** The caller a bearer token makes; throws TokenRefusal saying why it is refused. */
  async authenticate(token: string): Promise<CallerIdentity> {
    try {
      return await this.verify(token);
    } catch (error) {
      if (error instanceof TokenRefusal && error.status === 401) this.hooks.onRefusal?.(error.message);
      throw error;
    }
  }

  private async verify(token: string): Promise<CallerIdentity> {
    if (token.length > MAX_TOKEN_CHARS) throw new TokenRefusal(`the token is ${token.length} characters long; at most ${MAX_TOKEN_CHARS} are accepted`);
    let claims: Record<string, unknown>;
    if (looksLikeJwt(token)) claims = await this.validator.validate(token);
    else if (this.introspection) claims = await this.introspection.introspect(token);
    else throw new TokenRefusal('the token matches no svc.mcp.tokens entry and is not a JWT (opaque tokens are checked only when svc.mcp.oauth.introspection is configured)');
    return identityFromClaims(claims, { agentClaim: this.options.agentClaim, rolesClaim: this.options.rolesClaim, roles: this.roles });
  }

  /** The challenge of a 401: where the metadata is, and the scopes svc understands. */
  challenge(refusal?: TokenRefusal): string {
    return bearerChallenge(this.options.resource, {
      ...(refusal && { error: 'invalid_token', description: refusal.message }),
      ...(this.usesScopes && { scope: SVC_SCOPES.join(' ') }),
    });
  }

  /** The challenge of a 403 for a call that needs `permission`: the scopes the caller has and the one it lacks. */
  insufficientScope(caller: CallerIdentity, permission: Permission): string {
    const scope = [...[...caller.permissions].map(scopeOf), scopeOf(permission)].join(' ');
    return bearerChallenge(this.options.resource, { error: 'insufficient_scope', scope, description: `this call needs the scope ${scopeOf(permission)}` });
  }
}
