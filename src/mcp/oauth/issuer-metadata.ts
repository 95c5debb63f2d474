/**
 * The issuer's metadata, by OAuth 2.0 Authorization Server Metadata (RFC 8414: the well-known
 * name inserted before the issuer's path) and then OpenID Connect Discovery (appended to it), as
 * the MCP authorization specification orders them. The metadata must name the configured issuer
 * exactly (RFC 8414 section 3.3), or tokens could be accepted from an issuer svc was not told of.
 */
import { isLoopbackHostname } from '../../config/oauth-url-type.js';
import { printable } from '../../shared/printable.js';
import { fetchJsonObject, IdentityProviderError } from './bounded-fetch.js';

/** Metadata documents are a few KB; Entra's and Keycloak's are under 10. */
const MAX_METADATA_BYTES = 64 * 1024;

export interface IssuerMetadata {
  readonly issuer: string;
  readonly jwksUri: string;
  /** RFC 7662 token introspection, when the issuer offers it. */
  readonly introspectionEndpoint: string | undefined;
}

/** Where the metadata of `issuer` may be, in the order they are tried. */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    ...(path ? [`${url.origin}/.well-known/openid-configuration${path}`] : []),
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

export async function discoverIssuer(issuer: string): Promise<IssuerMetadata> {
  const failures: string[] = [];
  for (const url of metadataUrls(issuer)) {
    let document: Record<string, unknown>;
    try {
      document = await fetchJsonObject(url, MAX_METADATA_BYTES);
    } catch (error) {
      if (!(error instanceof IdentityProviderError)) throw error;
      failures.push(error.message);
      continue;
    }
    return readMetadata(issuer, url, document);
  }
  throw new IdentityProviderError(`no metadata for issuer ${printable(issuer, 200)}: ${failures.join('; ')}`);
}

function readMetadata(issuer: string, url: string, document: Record<string, unknown>): IssuerMetadata {
  const where = printable(url, 200);
  if (document.issuer !== issuer)
    throw new IdentityProviderError(
      `${where} names the issuer ${typeof document.issuer === 'string' ? `"${printable(document.issuer, 200)}"` : 'nothing'}, not "${printable(issuer, 200)}" (svc.mcp.oauth.issuer must be written exactly as the issuer names itself)`,
    );
  const jwksUri = endpoint(document, 'jwks_uri', where);
  if (jwksUri === undefined) throw new IdentityProviderError(`${where} names no jwks_uri: svc needs the issuer's signing keys`);
  return { issuer, jwksUri, introspectionEndpoint: endpoint(document, 'introspection_endpoint', where) };
}

/** An endpoint of the metadata: https, or http on a loopback host as the issuer may be. */
function endpoint(document: Record<string, unknown>, name: string, where: string): string | undefined {
  const value = document[name];
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHostname(url.hostname)))) throw new IdentityProviderError(`${where}: ${name} is not an https URL`);
  return url.href;
}
