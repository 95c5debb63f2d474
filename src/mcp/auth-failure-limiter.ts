/**
 * Limits how fast credentials can be guessed: failed authentications count per source address
 * (PER_ADDRESS_PER_MINUTE) and over all addresses together (GLOBAL_PER_MINUTE), so many source
 * addresses do not multiply the rate. Once the global budget is spent, a request carrying a
 * credential is evaluated only from an address that authenticated successfully within the last
 * hour: agents already at work keep working during a guessing flood, new addresses wait. A failure
 * from such an address counts like any other and ends its exemption, so an address primed with a
 * valid token buys one guess, not a stream of them; and addresses that fail cannot prime again
 * while the budget is spent, as their requests are not evaluated. A guesser on an agent's own
 * address uses up that address's budget, and the agent waits with it.
 */
import { RateLimiter } from '../shared/rate-limiter.js';

export const PER_ADDRESS_PER_MINUTE = 10;
export const GLOBAL_PER_MINUTE = 60;
const KNOWN_GOOD_MS = 3_600_000;
export const MAX_KNOWN_GOOD = 256;

export class AuthFailureLimiter {
  private readonly perAddress: RateLimiter;
  private readonly global: RateLimiter;
  private readonly knownGood = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {
    this.perAddress = new RateLimiter(PER_ADDRESS_PER_MINUTE, now);
    this.global = new RateLimiter(GLOBAL_PER_MINUTE, now);
  }

  /** 0 when a credential from `address` may be checked now, else the seconds to wait. */
  wait(address: string): number {
    const own = this.perAddress.wait(address);
    if (own > 0) return own;
    const success = this.knownGood.get(address);
    if (success !== undefined && this.now() - success < KNOWN_GOOD_MS) return 0;
    return this.global.wait('all');
  }

  failed(address: string): void {
    this.knownGood.delete(address);
    this.perAddress.take(address);
    this.global.take('all');
  }

  succeeded(address: string): void {
    this.knownGood.delete(address);
    if (this.knownGood.size >= MAX_KNOWN_GOOD) this.knownGood.delete(this.knownGood.keys().next().value!);
    this.knownGood.set(address, this.now());
  }
}
