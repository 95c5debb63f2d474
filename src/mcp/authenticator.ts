/**
 * Who is calling (DESIGN "Auth"). Bearer tokens are configured as SHA-256 hashes
 * (`svc.mcp.tokens.<agent>.sha256`, `.role`), each bound to one agent name and role, and compared
 * in constant time; a token is never logged. Without a token a caller gets
 * `svc.mcp.anonymous-role`, which the server allows only on loopback binds. The role comes from
 * the credential: `X-Agent-Name` / `X-Agent-Role` headers or `_meta.agentName` / `_meta.agentRole`
 * may name the agent and lower the role, never raise it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { formatKey } from '../config/config-key.js';
import { didYouMean } from '../config/did-you-mean.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import { AgentError } from '../shared/agent-error.js';
import { hasControlCharacters, printable } from '../shared/printable.js';
import { INPUT_LIMITS, tooLong } from './input-limits.js';
import type { Roles } from './roles.js';
import { ANONYMOUS_CREDENTIAL, type CallerIdentity } from './tool-definition.js';

/** Marks a name nothing vouches for: one an anonymous caller declared. */
export const UNVERIFIED = ' (unverified)';

interface TokenEntry {
  readonly agentName: string;
  readonly role: string;
  readonly digest: Buffer;
}

/** A credential refused (401), or a declared name or role refused (403 for headers, an `isError` result for `_meta`). */
export class AuthenticationError extends AgentError {}

/** A well-formed bearer token that no svc.mcp.tokens entry holds: it may still be an OAuth access token. */
export class UnknownTokenError extends AuthenticationError {}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerTokenOf(authorization: string): string {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization);
  if (!match) throw new AuthenticationError('the Authorization header must be "Bearer <token>"');
  return match[1]!;
}

/** A credential setting the tool server cannot run with: the key (with `svc.`) and what is wrong. */
export interface CredentialProblem {
  readonly key: string;
  readonly message: string;
  /** The token's agent, for a token's problem. */
  readonly agentName?: string;
}

function unknownRole(roles: Roles, role: string, shown: string): string {
  const suggestion = didYouMean(role, roles.names());
  return `${shown} is not a known role; known roles: ${roles.names().join(', ')}${suggestion ? `; did you mean "${suggestion}"?` : ''}`;
}

/**
 * Why these credentials cannot be served, if they cannot: a token's agent name too long for the
 * names it prefixes, a role no built-in or `svc.agent-roles` entry defines. The Authenticator
 * refuses them, and `svc check` and start-up report them (src/mcp/tool-server-config.ts).
 * A token's role is a value under svc.mcp.tokens, so it is not printed.
 */
export function credentialProblems(roles: Roles, tokens: readonly { agentName: string; role: string }[], anonymousRole: string): CredentialProblem[] {
  const problems: CredentialProblem[] = [];
  for (const t of tokens) {
    if (t.agentName.length > INPUT_LIMITS.tokenAgent)
      problems.push({
        key: `svc.${formatKey(['mcp', 'tokens', t.agentName])}`,
        agentName: t.agentName,
        message: `a token's agent name is ${t.agentName.length} characters long; at most ${INPUT_LIMITS.tokenAgent} are accepted`,
      });
    if (!roles.permissionsOf(t.role))
      problems.push({
        key: `svc.${formatKey(['mcp', 'tokens', t.agentName, 'role'])}`,
        agentName: t.agentName,
        message: unknownRole(roles, t.role, 'the role (not shown: values under svc.mcp.tokens are never printed)'),
      });
  }
  if (!roles.permissionsOf(anonymousRole)) problems.push({ key: 'svc.mcp.anonymous-role', message: unknownRole(roles, anonymousRole, `"${printable(anonymousRole, 80)}"`) });
  return problems;
}

export function sha256Hex(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The tokens under svc.mcp.tokens (entries missing a key were dropped when the configuration was resolved). */
export function configuredTokens(config: ResolvedConfig): { agentName: string; sha256: string; role: string }[] {
  return config.names('mcp.tokens').map((agentName) => ({
    agentName,
    sha256: config.member<string>('mcp.tokens', agentName, 'sha256')!.value,
    role: config.member<string>('mcp.tokens', agentName, 'role')!.value,
  }));
}

export class Authenticator {
  private readonly tokens: TokenEntry[];

  constructor(
    private readonly roles: Roles,
    tokens: readonly { agentName: string; sha256: string; role: string }[],
    private readonly anonymousRole: string,
  ) {
    this.tokens = tokens.map((t) => ({ agentName: t.agentName, role: t.role, digest: Buffer.from(t.sha256, 'hex') }));
    const [problem] = credentialProblems(roles, tokens, anonymousRole);
    if (problem) throw new Error(`${printable(problem.key, 120)}: ${problem.message}`);
  }

  static fromConfig(config: ResolvedConfig, roles: Roles): Authenticator {
    return new Authenticator(roles, configuredTokens(config), config.get<string>('mcp.anonymous-role'));
  }

  get hasTokens(): boolean {
    return this.tokens.length > 0;
  }

  /**
   * The identity from an `Authorization` header. Throws AuthenticationError for a malformed or
   * unknown token. Without a header, the anonymous identity.
   */
  authenticate(authorization: string | undefined): CallerIdentity {
    if (authorization === undefined || authorization === '') {
      return { agentName: 'anonymous', role: this.anonymousRole, permissions: this.roles.permissionsOf(this.anonymousRole)!, credential: ANONYMOUS_CREDENTIAL, tokenAgent: undefined };
    }
    const presented = createHash('sha256').update(bearerTokenOf(authorization), 'utf8').digest();
    let found: TokenEntry | undefined;
    for (const entry of this.tokens) if (entry.digest.length === presented.length && timingSafeEqual(entry.digest, presented)) found = entry;
    if (!found) throw new UnknownTokenError('unknown bearer token');
    return { agentName: found.agentName, role: found.role, permissions: this.roles.permissionsOf(found.role)!, credential: `token:${found.agentName}`, tokenAgent: found.agentName };
  }

  /**
   * Applies a self-declared name and role (headers or `_meta`). The name is prefixed with the
   * token's agent for token callers (`ops-bot/planner`) and marked `(unverified)` for anonymous
   * ones, as nothing vouches for it; the role is taken only when it is within the credential's
   * permissions. Names and roles are bounded (INPUT_LIMITS) and printable, else refused.
   */
  refine(identity: CallerIdentity, declared: { agentName?: string; role?: string }): CallerIdentity {
    let { agentName, role, permissions } = identity;
    if (declared.agentName) {
      checkDeclared('agent name', declared.agentName, INPUT_LIMITS.agentName);
      if (identity.tokenAgent === undefined) agentName = `${declared.agentName}${UNVERIFIED}`;
      else if (declared.agentName !== identity.tokenAgent) agentName = `${identity.tokenAgent}/${declared.agentName}`;
    }
    if (declared.role && declared.role !== role) {
      checkDeclared('role', declared.role, INPUT_LIMITS.role);
      const lower = this.roles.permissionsOf(declared.role);
      // Against the credential's permissions: an OAuth caller's role may be its scopes, no configured role.
      if (!lower || ![...lower].every((p) => identity.permissions.has(p))) {
        const why = this.roles.permissionsOf(declared.role)
          ? `is not within the caller's role "${identity.role}"; a declared role can only lower permissions`
          : `is not a known role; known roles: ${this.roles.names().join(', ')}`;
        throw new AuthenticationError(`role "${declared.role}" ${why}`);
      }
      role = declared.role;
      permissions = this.roles.permissionsOf(role)!;
    }
    return { ...identity, agentName, role, permissions };
  }
}

function checkDeclared(what: string, value: string, limit: number): void {
  const tooLongMessage = tooLong(`the declared ${what}`, value, limit);
  if (tooLongMessage) throw new AuthenticationError(tooLongMessage);
  if (hasControlCharacters(value)) throw new AuthenticationError(`the declared ${what} "${printable(value)}" contains control characters; send printable text`);
}
