import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal, TokenAuth } from '../http/auth.js';
import { sessionCookie } from '../http/cookies.js';
import { formIsGenuine } from '../http/csrf.js';
import { readForm } from '../http/form-body.js';
import { type LoginThrottle, retryAfter } from '../http/login-throttle.js';
import { redirect, send, sendHtml } from '../http/respond.js';
import type { DashboardContext } from './context.js';
import { layout, notice } from './layout.js';
import { loginPage } from './pages/login.js';
import { returnTarget } from './return-to.js';

/*
 * Logging in to a dashboard that asks for a token (the login form, which starts a session
 * and returns to the page asked for) and logging out.
 */

/** What the login form reads of its handler: the token and sessions, the throttle, the clock. */
export interface LoginState {
  auth: TokenAuth;
  throttle: LoginThrottle;
  now: () => number;
  options: { basePath: string };
}

export async function login(
  state: LoginState,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  requested: string | null,
): Promise<void> {
  const { auth, throttle } = state;
  const base = state.options.basePath;
  if (!auth.required) return redirect(res, `${base}/`);
  const csrf = auth.csrfFor('login');
  if (method !== 'POST')
    return sendHtml(res, 200, loginPage(base, csrf, returnTarget(base, requested)).text, method);
  const form = await readForm(req);
  if (typeof form === 'string' || !formIsGenuine(req, auth, 'login', form)) {
    return send(res, 403, 'text/plain; charset=utf-8', 'Refused: reload the login page and try again.\n');
  }
  const address = req.socket.remoteAddress;
  const next = returnTarget(base, form.get('next'));
  const wait = throttle.waitMs(address);
  if (wait > 0) return sendHtml(res, 429, loginPage(base, csrf, next, retryAfter(res, wait)).text);
  const actor = auth.checkToken(form.get('token') ?? '');
  if (actor === null) {
    throttle.fail(address);
    return sendHtml(res, 401, loginPage(base, csrf, next, 'That token is not right.').text);
  }
  res.setHeader('set-cookie', sessionCookie(auth.newSession(actor, state.now()), base || '/'));
  return redirect(res, next);
}

export async function logout(
  ctx: DashboardContext,
  auth: TokenAuth,
  principal: Principal,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const form = await readForm(req);
  if (typeof form === 'string' || !auth.checkCsrf(principal, form.get('csrf') ?? undefined)) {
    return sendHtml(res, 403, layout(ctx, 'Refused', '', notice('error', 'CSRF check failed.')).text);
  }
  if (principal.kind === 'session') auth.endSession(principal.session);
  res.setHeader('set-cookie', sessionCookie('', ctx.base || '/', 0));
  return redirect(res, `${ctx.base}/login`);
}
