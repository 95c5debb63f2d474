/**
 * svc.mcp.oauth.* as typed options, and what in them keeps the tool server from starting
 * (`svc check` and start-up both report these, src/mcp/tool-server-config.ts).
 */
import type { ConfigProblem } from '../../config/config-source.js';
import type { ResolvedConfig } from '../../config/resolved-config.js';
import { printable } from '../../shared/printable.js';
import type { AgentClaim } from './token-identity.js';

export interface OAuthOptions {
  readonly issuer: string;
  readonly resource: string;
  readonly algorithms: readonly string[];
  readonly clockSkewMs: number;
  /** Lower case, without `application/`. */
  readonly tokenTypes: readonly string[];
  readonly rolesClaim: string;
  readonly agentClaim: AgentClaim;
  readonly introspection: { readonly clientId: string; readonly clientSecret: string } | undefined;
}

/** `application/at+jwt` and `AT+JWT` are the same type (RFC 8725 section 3.11). */
export function tokenType(typ: string): string {
  return typ.toLowerCase().replace(/^application\//, '');
}

/** The OAuth options, or undefined when svc.mcp.oauth.issuer is not set. */
export function oauthOptions(config: ResolvedConfig): OAuthOptions | undefined {
  const issuer = config.get<string | undefined>('mcp.oauth.issuer');
  if (!issuer) return undefined;
  const clientId = config.get<string>('mcp.oauth.introspection.client-id');
  return {
    issuer,
    resource: config.get<string | undefined>('mcp.oauth.resource') ?? '',
    algorithms: config.get<string[]>('mcp.oauth.algorithms'),
    clockSkewMs: config.get<number>('mcp.oauth.clock-skew'),
    tokenTypes: config.get<string[]>('mcp.oauth.token-types').map(tokenType),
    rolesClaim: config.get<string>('mcp.oauth.roles-claim').trim(),
    agentClaim: config.get<AgentClaim>('mcp.oauth.agent-claim'),
    introspection: clientId ? { clientId, clientSecret: config.get<string | undefined>('mcp.oauth.introspection.client-secret') ?? '' } : undefined,
  };
}

/** Settings that refuse the tool server (errors, ending with `notStarted`) or have no effect (warnings). */
export function oauthProblems(config: ResolvedConfig, notStarted: string): ConfigProblem[] {
  const where = (path: string): string => config.resolved(path).source.where;
  const set = (path: string): boolean => config.resolved(path).source.kind !== 'default';
  const issuer = config.get<string | undefined>('mcp.oauth.issuer');
  const problems: ConfigProblem[] = [];
  if (!issuer) {
    const ignored = ['mcp.oauth.resource', 'mcp.oauth.roles-claim', 'mcp.oauth.introspection.client-id'].filter(set);
    if (ignored.length) problems.push({ level: 'warning', key: 'svc.mcp.oauth.issuer', where: 'configuration', message: `is not set, so ${ignored.map((p) => `svc.${p}`).join(', ')} has no effect` });
    return problems;
  }
  if (!config.get<string | undefined>('mcp.oauth.resource'))
    problems.push({
      level: 'error',
      key: 'svc.mcp.oauth.resource',
      where: where('mcp.oauth.issuer'),
      message: `is not set: with svc.mcp.oauth.issuer, write the tool server's URL as agents reach it (https://orders.internal:7070/mcp), the audience its tokens must name; ${notStarted}`,
    });
  if (config.get<string>('mcp.oauth.introspection.client-id') && !config.get<string | undefined>('mcp.oauth.introspection.client-secret'))
    problems.push({
      level: 'error',
      key: 'svc.mcp.oauth.introspection.client-secret',
      where: where('mcp.oauth.introspection.client-id'),
      message: `is not set: introspection needs svc's client secret at the issuer (SVC_MCP_OAUTH_INTROSPECTION_CLIENT_SECRET); ${notStarted}`,
    });
  return problems;
}

/** How callers authenticate, for `svc check`. */
export function authenticationMode(config: ResolvedConfig, staticTokens: number): string {
  const oauth = oauthOptions(config);
  const tokens = staticTokens ? `${staticTokens} static token(s) (svc.mcp.tokens)` : '';
  // The role is a configured value, printed as printable text like every value svc check shows.
  if (!oauth) return `agent authentication: ${tokens || `none, loopback callers get the role ${printable(config.get<string>('mcp.anonymous-role'), 80)}`}`;
  const roles = oauth.rolesClaim ? `roles from the claim ${oauth.rolesClaim}` : 'permissions from the scopes svc:read, svc:diagnose, svc:remediate, svc:admin';
  const opaque = oauth.introspection ? ', opaque tokens by introspection' : '';
  return `agent authentication: ${tokens ? `${tokens} and ` : ''}OAuth access tokens from ${oauth.issuer} for ${oauth.resource || '(svc.mcp.oauth.resource not set)'}, ${roles}, agent named by ${oauth.agentClaim}${opaque}`;
}
