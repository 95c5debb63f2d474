/**
 * svc.mcp.oauth.* as `svc check` and start-up read them (the effective mode, what refuses the
 * tool server), and the caller an access token's claims make: its agent, its credential, and
 * its permissions from scopes or from a roles claim.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/analysis/clock.js';
import { check } from '../../src/cli/check.js';
import { Approvals } from '../../src/incidents/approvals.js';
import { identityFromClaims } from '../../src/mcp/oauth/token-identity.js';
import { TokenRefusal } from '../../src/mcp/oauth/token-refusal.js';
import { Roles } from '../../src/mcp/roles.js';
import { tempDir } from '../support/temp-dir.js';

function svcCheck(yaml: string, env: Record<string, string> = {}) {
  const lines: string[] = [];
  const code = check([], env, tempDir({ 'svc.yml': yaml }), (line) => lines.push(line));
  return { code, output: lines.join('\n') };
}

describe('svc check with svc.mcp.oauth', () => {
  it('prints the effective mode: static tokens beside OAuth access tokens, where permissions come from', () => {
    const { code, output } = svcCheck(
      'mcp:\n  host: 0.0.0.0\n  oauth:\n    issuer: https://login.example.com/realms/ops\n    resource: https://orders.internal:7070/mcp\n    roles-claim: realm_access.roles\n    agent-claim: azp\n',
    );
    expect(output).toContain(
      'agent authentication: OAuth access tokens from https://login.example.com/realms/ops for https://orders.internal:7070/mcp, roles from the claim realm_access.roles, agent named by azp',
    );
    expect(code).toBe(0);
  });

  it('refuses an issuer that is not https, and an issuer without the resource, naming what is accepted', () => {
    const plain = svcCheck('mcp:\n  oauth:\n    issuer: http://login.example.com\n    resource: https://orders.internal:7070/mcp\n');
    expect(plain.code).toBe(1);
    expect(plain.output).toContain(
      'svc config error: svc.mcp.oauth.issuer (svc.yml:3): "http://login.example.com" is not https: OAuth parties are reached over TLS (http is accepted on loopback hosts only)',
    );
    expect(plain.output).toContain('svc.mcp.oauth.issuer did not validate (see above), and OAuth must not run on defaults it was not given; the MCP tool server is not started');
    const alone = svcCheck('mcp:\n  oauth:\n    issuer: https://login.example.com\n');
    expect(alone.code).toBe(1);
    expect(alone.output).toMatch(
      /svc config error: svc\.mcp\.oauth\.resource \(svc\.yml:3\): is not set: with svc\.mcp\.oauth\.issuer, write the tool server's URL .*; the MCP tool server is not started/,
    );
  });

  it('never prints the introspection secret, and wants it with the client id', () => {
    const { code, output } = svcCheck('mcp:\n  oauth:\n    issuer: https://login.example.com\n    resource: https://o.example/mcp\n    introspection:\n      client-id: svc\n', {
      SVC_MCP_OAUTH_INTROSPECTION_CLIENT_SECRET: 'hunter2-secret',
    });
    expect(code).toBe(0);
    expect(output).not.toContain('hunter2-secret');
    expect(output).toMatch(/svc\.mcp\.oauth\.introspection\.client-secret +\(hidden\)/);
    const missing = svcCheck('mcp:\n  oauth:\n    issuer: https://login.example.com\n    resource: https://o.example/mcp\n    introspection:\n      client-id: svc\n');
    expect(missing.output).toContain("svc.mcp.oauth.introspection.client-secret (svc.yml:6): is not set: introspection needs svc's client secret at the issuer");
  });
});

describe('the caller an access token makes', () => {
  const roles = new Roles({ triager: ['READ', 'DIAGNOSE'] });
  const claims = { sub: 'sa-7f3c', client_id: 'ops-agent', azp: 'ops-agent-azp', scope: 'openid svc:read svc:diagnose' };

  it('takes its permissions from the svc scopes, named as the role with exactly those, its agent from the configured claim and its credential from the subject', () => {
    expect(identityFromClaims(claims, { agentClaim: 'client_id', rolesClaim: '', roles })).toEqual({
      agentName: 'ops-agent',
      role: 'diagnostician',
      permissions: new Set(['READ', 'DIAGNOSE']),
      credential: 'oauth:sa-7f3c',
      tokenAgent: 'ops-agent',
    });
    expect(identityFromClaims({ ...claims, scp: ['svc:read', 'svc:remediate'], scope: undefined }, { agentClaim: 'azp', rolesClaim: '', roles })).toMatchObject({
      agentName: 'ops-agent-azp',
      role: 'svc:read svc:remediate',
    });
  });

  it('takes svc roles from a claim when configured, and refuses a token that names none or lacks the agent claim', () => {
    const keycloak = { ...claims, realm_access: { roles: ['offline_access', 'operator'] } };
    expect(identityFromClaims(keycloak, { agentClaim: 'client_id', rolesClaim: 'realm_access.roles', roles })).toMatchObject({
      role: 'operator',
      permissions: new Set(['READ', 'DIAGNOSE', 'REMEDIATE']),
    });
    expect(() => identityFromClaims(claims, { agentClaim: 'client_id', rolesClaim: 'roles', roles })).toThrow(
      new TokenRefusal("the token's roles claim names no svc role; known roles: observer, diagnostician, operator, admin, triager"),
    );
    expect(() => identityFromClaims({ sub: 'x', scope: 'svc:read' }, { agentClaim: 'client_id', rolesClaim: '', roles })).toThrow(/has no client_id claim/);
    expect(() => identityFromClaims({ ...claims, scope: 'openid' }, { agentClaim: 'client_id', rolesClaim: '', roles })).toThrow(/grants none of the scopes svc:read, svc:diagnose/);
  });

  it('approves as an approver when its scopes grant ADMIN or its agent is listed in svc.mcp.approvers', () => {
    const approvals = new Approvals(new FakeClock(), ['night-lead']);
    expect(approvals.mayApprove(identityFromClaims({ ...claims, scope: 'svc:admin' }, { agentClaim: 'client_id', rolesClaim: '', roles }))).toBe(true);
    expect(approvals.mayApprove(identityFromClaims({ ...claims, client_id: 'night-lead' }, { agentClaim: 'client_id', rolesClaim: '', roles }))).toBe(true);
    expect(approvals.mayApprove(identityFromClaims(claims, { agentClaim: 'client_id', rolesClaim: '', roles }))).toBe(false);
  });
});
