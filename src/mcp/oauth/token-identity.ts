/**
 * The caller a verified access token makes: its agent (the claim svc.mcp.oauth.agent-claim
 * names), its credential (the token's subject, else its client: MCP sessions and approvals belong to it) and its
 * permissions, from the scopes svc:read, svc:diagnose, svc:remediate and svc:admin, or from the
 * svc roles a claim names (svc.mcp.oauth.roles-claim). The role shown is the role whose
 * permissions are exactly those, or the scopes or roles themselves.
 */
import type { Permission } from '../../shared/enums.js';
import { PERMISSIONS } from '../../shared/enums.js';
import { hasControlCharacters, printable } from '../../shared/printable.js';
import { INPUT_LIMITS } from '../input-limits.js';
import type { Roles } from '../roles.js';
import type { CallerIdentity } from '../tool-definition.js';
import { TokenRefusal } from './token-refusal.js';

export type AgentClaim = 'client_id' | 'azp' | 'appid' | 'sub';

/** The credential of a token's subject; static tokens' are `token:<agent>`. */
export const OAUTH_CREDENTIAL_PREFIX = 'oauth:';
/** Longest subject kept as a credential: Entra's and Keycloak's are 36 to 43 characters. */
const MAX_SUBJECT = 256;

/** The scope that grants a permission: `svc:read` for READ. */
export function scopeOf(permission: Permission): string {
  return `svc:${permission.toLowerCase()}`;
}

export const SVC_SCOPES: readonly string[] = PERMISSIONS.map(scopeOf);

export interface TokenIdentityOptions {
  readonly agentClaim: AgentClaim;
  /** A dotted claim path whose values name svc roles; empty: permissions from scopes. */
  readonly rolesClaim: string;
  readonly roles: Roles;
}

export function identityFromClaims(claims: Record<string, unknown>, options: TokenIdentityOptions): CallerIdentity {
  // Introspection answers may leave `sub` out (RFC 7662); a client_credentials token's subject is its client.
  const subject = claims.sub ?? claims.client_id;
  if (typeof subject !== 'string' || subject === '' || subject.length > MAX_SUBJECT || hasControlCharacters(subject))
    throw new TokenRefusal(`the token's subject (sub) is not printable text of 1 to ${MAX_SUBJECT} characters`);
  const agentName = claims[options.agentClaim];
  if (typeof agentName !== 'string' || agentName === '')
    throw new TokenRefusal(`the token has no ${options.agentClaim} claim to name the agent (svc.mcp.oauth.agent-claim: client_id, azp, appid or sub)`);
  if (agentName.length > INPUT_LIMITS.tokenAgent || hasControlCharacters(agentName))
    throw new TokenRefusal(`the token's ${options.agentClaim} "${printable(agentName, 40)}" is not printable text of at most ${INPUT_LIMITS.tokenAgent} characters`);
  const { permissions, role } = options.rolesClaim ? fromRolesClaim(claims, options.rolesClaim, options.roles) : fromScopes(claims, options.roles);
  return { agentName, role, permissions, credential: `${OAUTH_CREDENTIAL_PREFIX}${subject}`, tokenAgent: agentName };
}

/** The scopes of a token: `scope` (RFC 9068, space-separated) or `scp` (Entra ID, Okta: a string or a list). */
export function scopesOf(claims: Record<string, unknown>): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean);
  return Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string') : [];
}

function fromScopes(claims: Record<string, unknown>, roles: Roles): { permissions: ReadonlySet<Permission>; role: string } {
  const scopes = new Set(scopesOf(claims));
  const permissions = new Set(PERMISSIONS.filter((p) => scopes.has(scopeOf(p))));
  if (permissions.size === 0) throw new TokenRefusal(`the token grants none of the scopes ${SVC_SCOPES.join(', ')}`);
  return { permissions, role: roleWith(permissions, roles) ?? [...permissions].map(scopeOf).join(' ') };
}

function fromRolesClaim(claims: Record<string, unknown>, path: string, roles: Roles): { permissions: ReadonlySet<Permission>; role: string } {
  let value: unknown = claims;
  for (const part of path.split('.')) value = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[part] : undefined;
  const named = (typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : []).filter((r): r is string => typeof r === 'string' && roles.permissionsOf(r) !== undefined);
  if (named.length === 0) throw new TokenRefusal(`the token's ${printable(path, 64)} claim names no svc role; known roles: ${roles.names().join(', ')}`);
  const permissions = new Set(named.flatMap((r) => [...roles.permissionsOf(r)!]));
  return { permissions, role: named.length === 1 ? named[0]! : (roleWith(permissions, roles) ?? printable(named.join('+'), INPUT_LIMITS.role)) };
}

/** The role whose permissions are exactly `permissions`, if one is. */
function roleWith(permissions: ReadonlySet<Permission>, roles: Roles): string | undefined {
  return roles.names().find((name) => {
    const own = roles.permissionsOf(name)!;
    return own.size === permissions.size && [...own].every((p) => permissions.has(p));
  });
}
