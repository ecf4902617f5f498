import type { IncomingMessage } from 'node:http';
import type { Principal, TokenAuth } from './auth.js';
import { sameOrigin } from './same-origin.js';

/**
 * Whether a posted form may act for `principal`: it came from this origin (when the browser
 * says) and carries the CSRF token bound to that principal in its `csrf` field.
 */
export function formIsGenuine(
  req: IncomingMessage,
  auth: TokenAuth,
  principal: Principal | 'login',
  form: URLSearchParams,
): boolean {
  return sameOrigin(req) && auth.checkCsrf(principal, form.get('csrf') ?? undefined);
}
