/**
 * An access token the tool server does not accept, and why, in words that never contain the
 * token: 401 `invalid_token` for a token that is wrong, 503 while the issuer's signing keys or
 * introspection cannot be had (the caller retries; the token may be fine).
 */
import { AuthenticationError } from '../authenticator.js';

export class TokenRefusal extends AuthenticationError {
  constructor(
    message: string,
    readonly status: 401 | 503 = 401,
  ) {
    super(message);
  }
}
