/**
 * A URL naming an OAuth party (`svc.mcp.oauth.issuer`, `svc.mcp.oauth.resource`): https, or http
 * on a loopback host (a local identity provider, tests), with no query, fragment or credentials.
 * The value is kept as written: an issuer is compared character for character
 * with the one its metadata and tokens name (RFC 8414 section 3.3), so it is never normalised.
 */
import { ValueError, type ValueType, yamlString } from './value-types.js';

const MAX_URL = 2048;

/** Whether a URL's hostname is a loopback name, where plain http is accepted. */
export function isLoopbackHostname(hostname: string): boolean {
  return /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(hostname);
}

export const oauthUrlType: ValueType<string> = {
  accepts: `a string of at most ${MAX_URL} characters`,
  kind: 'string',
  max: MAX_URL,
  parse(raw) {
    if (typeof raw !== 'string') throw new ValueError(raw, 'is not a string');
    if (raw.length > MAX_URL) throw new ValueError(raw, `is longer than ${MAX_URL} characters`);
    const text = raw.trim();
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new ValueError(raw, 'is not a URL: write https://host[:port][/path] (http only on localhost, 127.x or [::1])');
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHostname(url.hostname)))
      throw new ValueError(raw, 'is not https: OAuth parties are reached over TLS (http is accepted on loopback hosts only)');
    if (url.search || url.hash || text.includes('#') || url.username || url.password) throw new ValueError(raw, 'has a query, fragment or user info; write https://host[:port][/path]');
    return text;
  },
  format: yamlString,
};
