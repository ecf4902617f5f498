import type { IncomingMessage } from 'node:http';
import { bearerOf, safeEqual } from '../http/auth.js';
import type { LoginThrottle } from '../http/login-throttle.js';
import type { ApiToken } from '../options/api-options.js';
import { ApiRefusal } from './problem.js';
import type { ApiCaller } from './scopes.js';

const CHALLENGE = { 'www-authenticate': 'Bearer realm="tidemark-api"' };

/**
 * The API's tokens. Only a bearer header is read: no cookie, no session, no form, so a
 * browser never sends a credential on its own and a cross-site request carries none (no CSRF).
 */
export class ApiTokens {
  private readonly named: [name: string, token: ApiToken][];

  constructor(tokens: Record<string, ApiToken>) {
    this.named = Object.entries(tokens);
  }

  /**
   * The caller a request's bearer token names. Refuses with 401 when there is none or it is
   * wrong (a wrong one counts against the address, as a wrong dashboard login does), and with
   * 429 when the address showed too many wrong ones in the window: its token is not even checked.
   */
  authenticate(req: IncomingMessage, throttle: LoginThrottle): ApiCaller {
    const given = bearerOf(req);
    if (given === undefined) {
      throw new ApiRefusal(401, 'UNAUTHORIZED', 'Send a token: Authorization: Bearer <token>.', CHALLENGE);
    }
    const address = req.socket.remoteAddress;
    const waitMs = throttle.waitMs(address);
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      throw new ApiRefusal(
        429,
        'TOO_MANY_FAILED_AUTHENTICATIONS',
        `Too many wrong tokens from this address: try again in ${seconds} s.`,
        { 'retry-after': String(seconds) },
      );
    }
    const caller = this.check(given);
    if (caller === null) {
      throttle.fail(address);
      throw new ApiRefusal(401, 'UNAUTHORIZED', 'The token is not one this API accepts.', CHALLENGE);
    }
    return caller;
  }

  /** Constant-time: every token is compared, each after hashing both sides, so neither lengths nor which matched leak. */
  private check(given: string): ApiCaller | null {
    let found: ApiCaller | null = null;
    for (const [name, token] of this.named) {
      if (safeEqual(given, token.secret) && found === null) found = { name, scopes: token.scopes };
    }
    return found;
  }
}
