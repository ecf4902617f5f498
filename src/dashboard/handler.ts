import type { IncomingMessage, ServerResponse } from 'node:http';
import { engineOf } from '../engine-handle.js';
import { TidemarkError } from '../errors.js';
import { actorOf, type Principal, TokenAuth } from '../http/auth.js';
import { formIsGenuine } from '../http/csrf.js';
import { statusOfError } from '../http/error-status.js';
import { readForm } from '../http/form-body.js';
import { identifyThrottled } from '../http/identify.js';
import { LoginThrottle, retryAfter } from '../http/login-throttle.js';
import { nulInForm, nulInRequest } from '../http/nul-check.js';
import { openAccessRefusal } from '../http/open-access.js';
import { redirect, send, sendHtml } from '../http/respond.js';
import { type ApiSetup, apiSetup, serveApiRequest } from '../http-api/handler.js';
import type { DashboardHandlerOptions } from '../options/dashboard-options.js';
import { serveAsset } from './assets.js';
import type { DashboardContext } from './context.js';
import type { DashboardEngine } from './engine-port.js';
import { LiveStreams, serveJobEvents } from './job-events.js';
import { barePage, notice } from './layout.js';
import { type ResolvedHandlerOptions, resolveHandlerOptions } from './options.js';
import { errorPage } from './pages/error.js';
import { refusalTitle } from './refusal.js';
import { loginLocation } from './return-to.js';
import { actions, findRoute, isJobEvents, jobEventsId, type PageResult, pages } from './routes.js';
import { login, logout } from './sessions.js';
import { serveToken } from './token-handler.js';

/** A plain Node request handler: mount it in `http.createServer`, Express or Fastify. */
export type DashboardHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** What one handler keeps between requests. */
interface HandlerState {
  tm: DashboardEngine;
  options: ResolvedHandlerOptions;
  auth: TokenAuth;
  throttle: LoginThrottle;
  now: () => number;
  streams: LiveStreams;
  /** The HTTP API served beside the pages, sharing their throttle of wrong tokens; null without `api`. */
  api: ApiSetup | null;
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
  const throttle = new LoginThrottle(now);
  const state: HandlerState = {
    tm,
    options,
    auth: new TokenAuth(options.token, options.tokens),
    throttle,
    now,
    streams: new LiveStreams(),
    api: options.api === undefined ? null : apiSetup(options.api, 'api', throttle),
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
  const { options, auth, throttle } = state;
  const base = options.basePath;
  const { full, path, url } = locate(req, base);
  // The API asks for its own bearer tokens and answers in JSON: none of the pages' rules apply.
  if (state.api !== null && /^\/api(\/|$)/.test(path))
    return serveApiRequest(state.tm, state.api, req, res, path);
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') {
    res.setHeader('allow', 'GET, HEAD, POST');
    return send(res, 405, 'text/plain; charset=utf-8', 'Method not allowed\n');
  }
  if (serveAsset(res, path, method)) return;
  if (path.startsWith('/tokens/')) return serveToken(state.tm, req, res, path.slice('/tokens'.length));

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
  const ctx = await contextFor(state, url, principal, res, method);
  if (ctx === null) return;
  if (path === '/logout' && method === 'POST') return logout(ctx, auth, principal, req, res);
  if (method !== 'POST') {
    if (method === 'GET' && isJobEvents(path)) return serveLive(req, res, ctx, path, state.streams);
    return servePage(res, ctx, path, method);
  }
  return serveAction(state, req, res, ctx, path, principal);
}

/** The URL asked for (`full`), and its path and URL below the base path, as the routes read them. */
function locate(req: IncomingMessage, base: string): { full: URL; path: string; url: URL } {
  const full = new URL(req.url ?? '/', 'http://dashboard');
  let path = full.pathname;
  if (base && (path === base || path.startsWith(`${base}/`))) path = path.slice(base.length) || '/';
  const url = new URL(`${path}${full.search}`, 'http://dashboard');
  return { full, path, url };
}

/**
 * What every page and action of this request reads, with the retention status it shows; null
 * once a refusal to read that status (a closed engine, say) has been sent as a page.
 */
async function contextFor(
  state: HandlerState,
  url: URL,
  principal: Principal,
  res: ServerResponse,
  method: string,
): Promise<DashboardContext | null> {
  const { tm, options, auth } = state;
  let retention: DashboardContext['retention'];
  try {
    retention = await tm.retentionStatus();
  } catch (error) {
    if (!(error instanceof TidemarkError)) throw error;
    const status = statusOfError(error);
    const page = barePage(options.basePath, refusalTitle(status), notice('error', error.message));
    sendHtml(res, status, page.text, method);
    return null;
  }
  return {
    tm,
    core: engineOf(tm),
    base: options.basePath,
    url,
    readOnly: options.readOnly,
    traceUrl: options.traceUrl,
    csrf: auth.csrfFor(principal),
    loggedIn: principal.kind === 'session',
    by: { actor: actorOf(principal), source: 'dashboard' },
    retention,
  };
}

/** A job page's event stream; an id past the largest bigint is refused as a page would be. */
function serveLive(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: DashboardContext,
  path: string,
  streams: LiveStreams,
): Promise<void> {
  let id: string;
  try {
    id = jobEventsId(path);
  } catch (error) {
    if (!(error instanceof TidemarkError)) throw error;
    refuse(res, ctx, error);
    return Promise.resolve();
  }
  return serveJobEvents(req, res, ctx, id, streams);
}

/** A GET or HEAD: the page its route renders, or 404. */
async function servePage(
  res: ServerResponse,
  ctx: DashboardContext,
  path: string,
  method: string,
): Promise<void> {
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
  if ('redirect' in page) return redirect(res, page.redirect);
  if ('status' in page) return sendHtml(res, page.status, page.page.text, method);
  return sendHtml(res, 200, page.text, method);
}

/** A POST: its action run on the form, once the dashboard accepts changes and the form is genuine. */
async function serveAction(
  state: HandlerState,
  req: IncomingMessage,
  res: ServerResponse,
  ctx: DashboardContext,
  path: string,
  principal: Principal,
): Promise<void> {
  const found = findRoute(actions, path);
  if (!found) return sendHtml(res, 404, errorPage(ctx, 'Not found', `No action at ${path}`).text);
  if (state.options.readOnly) {
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
  if (nulInFields !== undefined) return badRequest(res, ctx.base, nulInFields);
  if (!formIsGenuine(req, state.auth, principal, form)) {
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

function backFrom(ctx: DashboardContext, path: string): string {
  if (path.startsWith('/jobs/bulk/')) return `${ctx.base}/jobs`;
  if (path.startsWith('/schedules')) return `${ctx.base}/schedules`;
  const job = path.match(/^\/jobs\/(\d+)\//);
  if (job) return `${ctx.base}/jobs/${job[1]}`;
  if (path.startsWith('/purge')) return `${ctx.base}/purge`;
  if (path.startsWith('/retention')) return `${ctx.base}/retention`;
  return `${ctx.base}/`;
}
