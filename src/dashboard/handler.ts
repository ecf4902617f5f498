import type { IncomingMessage, ServerResponse } from 'node:http';
import { engineOf } from '../engine-handle.js';
import { TidemarkError } from '../errors.js';
import { type Principal, TokenAuth } from '../http/auth.js';
import { sessionCookie } from '../http/cookies.js';
import { formIsGenuine } from '../http/csrf.js';
import { statusOfError } from '../http/error-status.js';
import { readForm } from '../http/form-body.js';
import { identifyThrottled } from '../http/identify.js';
import { LoginThrottle, retryAfter } from '../http/login-throttle.js';
import { nulInForm, nulInRequest } from '../http/nul-check.js';
import { openAccessRefusal } from '../http/open-access.js';
import { redirect, send, sendHtml } from '../http/respond.js';
import type { DashboardHandlerOptions } from '../options/dashboard-options.js';
import type { DashboardContext } from './context.js';
import type { DashboardEngine } from './engine-port.js';
import { barePage, layout, notice } from './layout.js';
import { type ResolvedHandlerOptions, resolveHandlerOptions } from './options.js';
import { errorPage } from './pages/error.js';
import { loginPage } from './pages/login.js';
import { REFRESH_SCRIPT } from './refresh-script.js';
import { refusalTitle } from './refusal.js';
import { loginLocation, returnTarget } from './return-to.js';
import { actions, findRoute, type PageResult, pages } from './routes.js';
import { STYLE } from './style.js';

/** A plain Node request handler: mount it in `http.createServer`, Express or Fastify. */
export type DashboardHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** What one handler keeps between requests. */
interface HandlerState {
  tm: DashboardEngine;
  options: ResolvedHandlerOptions;
  auth: TokenAuth;
  throttle: LoginThrottle;
  now: () => number;
}

/**
 * The dashboard as a request handler. Without a token it answers only requests from this
 * machine that name it as localhost and come through no proxy (which also defeats DNS
 * rebinding); with a token it asks for it (Bearer header or the login form, which returns to
 * the page asked for), and refuses an address that showed too many wrong ones in a window.
 * Every POST carries a CSRF token.
 */
export function createDashboardHandler(
  tm: DashboardEngine,
  options: DashboardHandlerOptions = {},
): DashboardHandler {
  return dashboardHandler(tm, resolveHandlerOptions(options));
}

/** The handler on a chosen clock (sessions and the login throttle read it): for tests. */
export function dashboardHandler(
  tm: DashboardEngine,
  options: ResolvedHandlerOptions,
  now: () => number = Date.now,
): DashboardHandler {
  const state: HandlerState = {
    tm,
    options,
    auth: new TokenAuth(options.token),
    throttle: new LoginThrottle(now),
    now,
  };
  return async (req, res) => {
    try {
      await serve(state, req, res);
    } catch (error) {
      engineOf(tm).logger.error('dashboard request failed', { url: req.url, error: String(error) });
      if (!res.headersSent)
        send(res, 500, 'text/plain; charset=utf-8', 'Internal error: see the server log.\n');
      else res.end();
    }
  };
}

async function serve(state: HandlerState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { tm, options, auth, throttle } = state;
  const base = options.basePath;
  const full = new URL(req.url ?? '/', 'http://dashboard');
  let path = full.pathname;
  if (base && (path === base || path.startsWith(`${base}/`))) path = path.slice(base.length) || '/';
  const url = new URL(`${path}${full.search}`, 'http://dashboard');
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
    res.setHeader('allow', 'GET, HEAD, POST');
    return send(res, 405, 'text/plain; charset=utf-8', 'Method not allowed\n');
  }
  if (path === '/assets/style.css') return send(res, 200, 'text/css; charset=utf-8', STYLE, method);
  if (path === '/assets/refresh.js')
    return send(res, 200, 'text/javascript; charset=utf-8', REFRESH_SCRIPT, method);
  if (path === '/favicon.ico') {
    res.statusCode = 204;
    return void res.end();
  }

  if (!auth.required) {
    const refusal = openAccessRefusal(req, 'dashboard');
    if (refusal !== undefined) return send(res, 403, 'text/plain; charset=utf-8', refusal);
  }

  const nul = nulInRequest(path, url.searchParams);
  if (nul !== undefined) return badRequest(res, base, nul, method);
  if (path === '/login') return login(state, req, res, method, url.searchParams.get('next'));
  const principal = identifyThrottled(req, auth, throttle, state.now());
  if (principal.kind === 'throttled')
    return send(res, 429, 'text/plain; charset=utf-8', `${retryAfter(res, principal.waitMs)}\n`);
  if (principal.kind === 'anonymous') {
    if (method === 'POST') return send(res, 401, 'text/plain; charset=utf-8', 'Log in first.\n');
    return redirect(res, loginLocation(base, `${full.pathname}${full.search}`));
  }
  let retention: DashboardContext['retention'];
  try {
    retention = await tm.retentionStatus();
  } catch (error) {
    if (!(error instanceof TidemarkError)) throw error;
    const status = statusOfError(error);
    const page = barePage(base, refusalTitle(status), notice('error', error.message));
    return sendHtml(res, status, page.text, method);
  }
  const ctx: DashboardContext = {
    tm,
    core: engineOf(tm),
    base,
    url,
    readOnly: options.readOnly,
    csrf: auth.csrfFor(principal),
    loggedIn: principal.kind === 'session',
    retention,
  };
  if (path === '/logout' && method === 'POST') return logout(ctx, auth, principal, req, res);

  if (method !== 'POST') {
    const found = findRoute(pages, path);
    let page: PageResult;
    try {
      page = found ? await found.route.render(ctx, found.match) : null;
    } catch (error) {
      // Any refusal the engine throws on purpose (an id beyond bigint, a closed engine) is a message.
      if (!(error instanceof TidemarkError)) throw error;
      return refuse(res, ctx, error, undefined, method);
    }
    if (!page) return sendHtml(res, 404, errorPage(ctx, 'Not found', `Nothing here: ${path}`).text, method);
    if ('status' in page) return sendHtml(res, page.status, page.page.text, method);
    return sendHtml(res, 200, page.text, method);
  }

  const found = findRoute(actions, path);
  if (!found) return sendHtml(res, 404, errorPage(ctx, 'Not found', `No action at ${path}`).text);
  if (options.readOnly) {
    return sendHtml(
      res,
      403,
      errorPage(ctx, 'Read-only', 'This dashboard is read-only: actions are refused.').text,
    );
  }
  const form = await readForm(req);
  if (form === 'too-large') return send(res, 413, 'text/plain; charset=utf-8', 'Form too large\n');
  if (form === 'unsupported')
    return send(
      res,
      415,
      'text/plain; charset=utf-8',
      'Send an HTML form (application/x-www-form-urlencoded)\n',
    );
  const nulInFields = nulInForm(form);
  if (nulInFields !== undefined) return badRequest(res, base, nulInFields);
  if (!formIsGenuine(req, auth, principal, form)) {
    return sendHtml(
      res,
      403,
      errorPage(
        ctx,
        'Refused',
        'The form expired or came from another site (CSRF check failed). Reload the page and try again.',
      ).text,
    );
  }
  try {
    const result = await found.route.run(ctx, found.match, form);
    if ('redirect' in result) return redirect(res, result.redirect);
    return sendHtml(res, result.status, result.page.text);
  } catch (error) {
    // Any refusal the engine throws on purpose is a message on the page, never a 500.
    if (!(error instanceof TidemarkError)) throw error;
    return refuse(res, ctx, error, backFrom(ctx, path));
  }
}

function refuse(
  res: ServerResponse,
  ctx: DashboardContext,
  error: TidemarkError,
  back?: string,
  method = 'GET',
): void {
  const status = statusOfError(error);
  sendHtml(res, status, errorPage(ctx, refusalTitle(status), error.message, back).text, method);
}

/** A request the dashboard cannot serve as sent (a NUL character in it): 400 and why. */
function badRequest(res: ServerResponse, base: string, message: string, method = 'GET'): void {
  sendHtml(res, 400, barePage(base, 'Bad request', notice('error', message)).text, method);
}

async function login(
  state: HandlerState,
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
  if (!auth.checkToken(form.get('token') ?? '')) {
    throttle.fail(address);
    return sendHtml(res, 401, loginPage(base, csrf, next, 'That token is not right.').text);
  }
  res.setHeader('set-cookie', sessionCookie(auth.newSession(state.now()), base || '/'));
  return redirect(res, next);
}

async function logout(
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

function backFrom(ctx: DashboardContext, path: string): string {
  if (path.startsWith('/jobs/bulk/')) return `${ctx.base}/jobs`;
  if (path.startsWith('/schedules')) return `${ctx.base}/schedules`;
  const job = path.match(/^\/jobs\/(\d+)\//);
  if (job) return `${ctx.base}/jobs/${job[1]}`;
  if (path.startsWith('/purge')) return `${ctx.base}/purge`;
  if (path.startsWith('/retention')) return `${ctx.base}/retention`;
  return `${ctx.base}/`;
}
