import type { IncomingMessage } from 'node:http';
import { bearerOf, type Principal, type TokenAuth } from './auth.js';
import type { LoginThrottle } from './login-throttle.js';

/** Who a request is, or how long its address must wait before a token of its is checked. */
export type Identified = Principal | { kind: 'throttled'; waitMs: number };

/**
 * The request's principal, with the login throttle on its Bearer token: an address that showed
 * too many wrong tokens is answered with its wait and its token is not even checked, and a
 * wrong Bearer token counts against its address as a wrong login does. A session cookie is not
 * throttled: it is a signed value, not a guess at the token.
 */
export function identifyThrottled(
  req: IncomingMessage,
  auth: TokenAuth,
  throttle: LoginThrottle,
  now: number,
): Identified {
  const address = req.socket.remoteAddress;
  const bearer = auth.required ? bearerOf(req) : undefined;
  if (bearer !== undefined) {
    const waitMs = throttle.waitMs(address);
    if (waitMs > 0) return { kind: 'throttled', waitMs };
  }
  const principal = auth.identify(req, now);
  if (bearer !== undefined && principal.kind !== 'bearer') throttle.fail(address);
  return principal;
}
