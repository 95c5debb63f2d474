/**
 * What in the configuration keeps the MCP tool server from starting, found before anything is
 * bound: start-up (src/wiring/start.ts) and `svc check` both call `toolServerProblems`, and the
 * Authenticator and ToolServer constructors refuse the same cases with the same functions, so the
 * check can never pass what start-up refuses.
 */
import type { ConfigProblem } from '../config/config-source.js';
import type { ResolvedConfig } from '../config/resolved-config.js';
import { printableValue } from '../shared/printable.js';
import { configuredTokens, credentialProblems } from './authenticator.js';
import { oauthProblems } from './oauth/oauth-options.js';
import { Roles } from './roles.js';
import { unauthenticatedBind } from './tool-server.js';

/** The end of every error that keeps the tool server from starting. */
export const NOT_STARTED = 'the MCP tool server is not started';

/** Errors refuse the tool server (see NOT_STARTED); warnings name settings that will have no effect. */
export function toolServerProblems(config: ResolvedConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const whereOf = (path: string): string => config.resolved(path).source.where;
  // A token entry that did not validate must not silently open the server to anonymous callers.
  problems.push(...unvalidated(config, ['svc.mcp.tokens', 'svc.mcp.anonymous-role'], 'svc.mcp.tokens', 'a missing token must not open tools to anonymous callers'));
  problems.push(...unvalidated(config, ['svc.mcp.oauth.'], 'svc.mcp.oauth', 'OAuth must not run on defaults it was not given'));

  const tokens = configuredTokens(config);
  for (const { key, message, agentName } of credentialProblems(Roles.fromConfig(config), tokens, config.get<string>('mcp.anonymous-role'))) {
    const where = agentName === undefined ? whereOf('mcp.anonymous-role') : (config.member('mcp.tokens', agentName, 'role')?.source.where ?? 'configuration');
    problems.push({ level: 'error', key, where, message: `${message}; ${NOT_STARTED}` });
  }

  problems.push(...oauthProblems(config, NOT_STARTED));
  const oauth = Boolean(config.get<string | undefined>('mcp.oauth.issuer'));
  const host = config.get<string>('mcp.host');
  const unauthenticated = unauthenticatedBind(host, tokens.length > 0 || oauth);
  if (unauthenticated) problems.push({ level: 'error', key: 'svc.mcp.host', where: whereOf('mcp.host'), message: `${unauthenticated}; ${NOT_STARTED}` });

  const agents = new Set(tokens.map((t) => t.agentName));
  // OAuth agents are named by their tokens, unknown until they call.
  const strangers = oauth ? [] : config.get<string[]>('mcp.approvers').filter((name) => !agents.has(name));
  if (strangers.length)
    problems.push({
      level: 'warning',
      key: 'svc.mcp.approvers',
      where: whereOf('mcp.approvers'),
      message: `${strangers.map((n) => printableValue(n)).join(', ')} ${strangers.length > 1 ? 'are' : 'is'} not a token agent under svc.mcp.tokens, so no credential approves as ${strangers.length > 1 ? 'them' : 'it'}`,
    });
  return problems;
}

/** An error naming the keys under `prefixes` that did not validate: the tool server does not start without them. */
function unvalidated(config: ResolvedConfig, prefixes: readonly string[], key: string, why: string): ConfigProblem[] {
  const broken = [...new Set(config.problems.filter((p) => p.level === 'error' && prefixes.some((prefix) => p.key.startsWith(prefix))).map((p) => p.key))];
  return broken.length ? [{ level: 'error', key, where: 'configuration', message: `${broken.join(', ')} did not validate (see above), and ${why}; ${NOT_STARTED}` }] : [];
}
