/**
 * The issuer's signing keys (its JWKS), fetched in the background from the jwks_uri its metadata
 * names and kept in memory, so verifying a token never waits on the network while the key it
 * names is known. A token naming an unknown key (`kid`) refreshes the set at most once a minute
 * (REFRESH_COOLDOWN_MS), which follows key rotation without letting callers drive traffic to the
 * identity provider. Bounded: at most MAX_JWKS_BYTES read and MAX_KEYS kept; symmetric keys,
 * private keys and encryption keys in the set are ignored. While the provider is down, the last
 * good set is kept for KEYS_MAX_AGE_MS; until one is fetched, verification fails with a 503.
 */
import type { JWK } from 'jose';
import type { LocalJWKSet } from 'jose/jwks/local';
import { printable } from '../../shared/printable.js';
import { fetchJsonObject, IdentityProviderError } from './bounded-fetch.js';
import { discoverIssuer, type IssuerMetadata } from './issuer-metadata.js';
import { loadJose } from './load-jose.js';
import { TokenRefusal } from './token-refusal.js';

export const MAX_JWKS_BYTES = 64 * 1024;
export const MAX_KEYS = 32;
/** Least time between two fetches that requests cause (an unknown kid, no keys yet). */
export const REFRESH_COOLDOWN_MS = 60_000;
/** While no key set is held, requests may cause a fetch this often. */
export const RETRY_COOLDOWN_MS = 10_000;
/** How often the key set is fetched in the background, so removed keys go. */
const REFRESH_INTERVAL_MS = 10 * 60_000;
/** The last good key set stops being used this long after it was fetched, if no fetch succeeded since. */
export const KEYS_MAX_AGE_MS = 24 * 3_600_000;

const ASYMMETRIC_KEY_TYPES = new Set(['RSA', 'EC', 'OKP']);

interface HeldKeys {
  readonly lookup: LocalJWKSet;
  readonly kids: ReadonlySet<string>;
  readonly fetchedAt: number;
}

export class SigningKeys {
  private metadata: IssuerMetadata | undefined;
  private held: HeldKeys | undefined;
  private attemptedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Why no key set is held, or why the last fetch failed. */
  problem: string | undefined = 'the signing keys are being fetched';

  constructor(
    private readonly issuer: string,
    private readonly now: () => number,
    private readonly onProblem: (message: string) => void = () => undefined,
  ) {}

  /** Starts fetching in the background; the tool server does not wait for it. */
  start(): void {
    void this.refresh();
    this.schedule();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The issuer's metadata, once fetched (the introspection endpoint comes from it). */
  get issuerMetadata(): IssuerMetadata | undefined {
    return this.metadata;
  }

  /** Fetches the metadata (until once fetched) and the key set; concurrent callers share one fetch. */
  refresh(): Promise<void> {
    this.pending ??= this.fetch().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** The metadata, fetching it (at most every RETRY_COOLDOWN_MS) when not yet had. */
  async ensureMetadata(): Promise<IssuerMetadata> {
    if (!this.metadata && (this.pending || this.now() - this.attemptedAt >= RETRY_COOLDOWN_MS)) await this.refresh();
    if (!this.metadata) throw new TokenRefusal(this.unavailable(), 503);
    return this.metadata;
  }

  /** The key that verifies a token with this header (jose's key resolver). */
  async keyFor(...[header, token]: Parameters<LocalJWKSet>): Promise<CryptoKey> {
    if (this.pending || (!this.usable() && this.now() - this.attemptedAt >= RETRY_COOLDOWN_MS)) await this.refresh();
    if (header?.kid !== undefined && this.usable() && !this.held!.kids.has(header.kid) && this.now() - this.attemptedAt >= REFRESH_COOLDOWN_MS) await this.refresh();
    if (!this.usable()) throw new TokenRefusal(this.unavailable(), 503);
    return this.held!.lookup(header, token);
  }

  private usable(): boolean {
    return this.held !== undefined && this.now() - this.held.fetchedAt < KEYS_MAX_AGE_MS;
  }

  private unavailable(): string {
    return `the issuer's signing keys are not available yet (${this.problem ?? 'not fetched'}); OAuth access tokens are checked once they are, static tokens meanwhile work`;
  }

  private schedule(): void {
    this.timer = setTimeout(
      () => {
        void this.refresh().finally(() => this.timer && this.schedule());
      },
      this.usable() ? REFRESH_INTERVAL_MS : RETRY_COOLDOWN_MS,
    );
    this.timer.unref();
  }

  private async fetch(): Promise<void> {
    this.attemptedAt = this.now();
    try {
      this.metadata ??= await discoverIssuer(this.issuer);
      const jose = await loadJose();
      const document = await fetchJsonObject(this.metadata.jwksUri, MAX_JWKS_BYTES);
      const keys = signingKeysOf(document, printable(this.metadata.jwksUri, 200));
      this.held = { lookup: jose.createLocalJWKSet({ keys }), kids: new Set(keys.flatMap((k) => (k.kid === undefined ? [] : [k.kid]))), fetchedAt: this.now() };
      this.problem = undefined;
    } catch (error) {
      // Runs in the background: nothing may reach the host, whatever the identity provider sent.
      this.problem = error instanceof IdentityProviderError ? error.message : `the issuer's keys could not be used: ${printable(error instanceof Error ? error.message : String(error), 200)}`;
      this.onProblem(this.problem);
    }
  }
}

/** The public signing keys of a JWKS document; throws when it has none or too many. */
function signingKeysOf(document: Record<string, unknown>, where: string): JWK[] {
  if (!Array.isArray(document.keys)) throw new IdentityProviderError(`${where} is not a JWK set: it has no "keys" list`);
  const keys = (document.keys as unknown[]).filter(
    (k): k is JWK =>
      typeof k === 'object' && k !== null && ASYMMETRIC_KEY_TYPES.has((k as JWK).kty as string) && ((k as JWK).use === undefined || (k as JWK).use === 'sig') && (k as JWK).d === undefined,
  );
  if (keys.length === 0) throw new IdentityProviderError(`${where} holds no public signing key (RSA, EC or OKP with use "sig"); symmetric and private keys are never used`);
  if (keys.length > MAX_KEYS) throw new IdentityProviderError(`${where} holds ${keys.length} signing keys; at most ${MAX_KEYS} are kept`);
  return keys;
}
