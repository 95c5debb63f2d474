/**
 * A real OAuth 2.1 / OpenID Connect provider (oidc-provider) on 127.0.0.1 at an ephemeral port,
 * for the tool server's OAuth tests: registered clients using the client_credentials grant,
 * access tokens for a resource indicator (RFC 8707) as JWTs (RFC 9068) or opaque (then
 * introspection, RFC 7662, answers for them), signed with an ES256 key. `reconfigure` replaces
 * the provider behind the same URL: new signing keys (rotation), fewer clients (revocation).
 * A client's token carries the scopes it is registered with that the request asks for.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

export interface IssuerClient {
  readonly id: string;
  readonly secret: string;
  /** The scopes its tokens may carry, space-separated. */
  readonly scope: string;
}

export interface IssuerSettings {
  readonly clients: readonly IssuerClient[];
  /** Access token lifetime in seconds (default 300). */
  readonly tokenSeconds?: number;
  /** Opaque access tokens instead of JWTs. */
  readonly opaque?: boolean;
}

export interface IssuerOptions extends IssuerSettings {
  /** The port to listen on (default: a free one). */
  readonly port?: number;
}

export interface Issuer {
  readonly url: string;
  /** The client_credentials token response of `client` for `resource`. */
  token(client: IssuerClient, resource: string, scope?: string): Promise<{ access_token: string; scope?: string; expires_in: number }>;
  /** A new provider behind the same URL with the given settings; with `rotate`, a new signing key. */
  reconfigure(settings: IssuerSettings, rotate?: boolean): Promise<void>;
  /** The current signing key's id. */
  readonly kid: string;
  stop(): Promise<void>;
}

async function signingKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: `key-${Math.random().toString(36).slice(2, 10)}`, alg: 'ES256', use: 'sig' };
}

function provider(url: string, key: JWK, settings: IssuerSettings): Provider {
  const ttl = settings.tokenSeconds ?? 300;
  const registered = new Map(settings.clients.map((c) => [c.id, c]));
  const oidc = new Provider(url, {
    clients: settings.clients.map((c) => ({
      client_id: c.id,
      client_secret: c.secret,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    })),
    jwks: { keys: [key] },
    ttl: { ClientCredentials: ttl },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf ?? 'urn:none',
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource, client) => ({
          scope: registered.get(client.clientId)?.scope ?? '',
          audience: resource,
          accessTokenTTL: ttl,
          accessTokenFormat: settings.opaque ? 'opaque' : 'jwt',
          ...(!settings.opaque && { jwt: { sign: { alg: 'ES256' } } }),
        }),
      },
    },
  });
  return oidc;
}

export async function startIssuer(settings: IssuerOptions): Promise<Issuer> {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => void res.writeHead(503).end();
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(settings.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  let key = await signingKey();
  const reconfigure = async (next: IssuerSettings, rotate = false): Promise<void> => {
    if (rotate) key = await signingKey();
    handle = provider(url, key, next).callback();
  };
  await reconfigure(settings);
  return {
    url,
    get kid() {
      return key.kid!;
    },
    reconfigure,
    async token(client, resource, scope = client.scope) {
      const response = await fetch(`${url}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }).toString(),
      });
      const body = (await response.json()) as { access_token: string; scope?: string; expires_in: number; error?: string; error_description?: string };
      if (!response.ok) throw new Error(`token endpoint: ${response.status} ${body.error}: ${body.error_description}`);
      return body;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
