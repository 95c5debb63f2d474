/**
 * The tool server's OAuth 2.0 Protected Resource Metadata (RFC 9728), which MCP clients read on
 * a 401 to find the authorization server: served at the well-known URI of the resource (the
 * well-known name inserted before the resource's path, RFC 9728 section 3.1) and at the root
 * well-known URI for clients that look there, both on the tool server's port. The challenges
 * (`WWW-Authenticate`) name it in `resource_metadata`, as the MCP authorization specification
 * asks (revisions 2025-11-25 and 2026-07-28).
 */
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface ProtectedResource {
  readonly resource: string;
  readonly issuer: string;
  /** The scopes svc understands; empty when permissions come from a roles claim. */
  readonly scopes: readonly string[];
}

/** The metadata document. */
export function protectedResourceMetadata({ resource, issuer, scopes }: ProtectedResource): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [issuer],
    ...(scopes.length > 0 && { scopes_supported: [...scopes] }),
    bearer_methods_supported: ['header'],
    resource_name: 'svc MCP tool server',
  };
}

/** The paths on the tool server's port where the metadata is served. */
export function metadataPaths(resource: string): ReadonlySet<string> {
  const path = new URL(resource).pathname.replace(/\/$/, '');
  return new Set([`${WELL_KNOWN}${path}`, WELL_KNOWN]);
}

/** The metadata's URL for `resource_metadata`, at the resource's own origin. */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${WELL_KNOWN}${url.pathname.replace(/\/$/, '')}`;
}

/** A Bearer challenge (RFC 6750 section 3) with the metadata's URL; quotes and backslashes never occur in the values. */
export function bearerChallenge(resource: string, params: { error?: string; scope?: string; description?: string } = {}): string {
  const parts = [`resource_metadata="${metadataUrl(resource)}"`];
  if (params.error) parts.unshift(`error="${params.error}"`);
  if (params.scope) parts.push(`scope="${params.scope}"`);
  if (params.description) parts.push(`error_description="${params.description.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?')}"`);
  return `Bearer ${parts.join(', ')}`;
}
