import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidOptionError, JobNotFoundError, QueueNotFoundError, TidemarkError } from '../errors.js';
import type { Tidemark } from '../tidemark.js';
import {
  DashboardAuth,
  hostOfHeader,
  isLoopbackAddress,
  isLoopbackHost,
  type Principal,
  sessionCookie,
} from './auth.js';
import type { DashboardContext } from './context.js';
import { readForm } from './form-body.js';
import { layout, notice } from './layout.js';
import {
  type DashboardHandlerOptions,
  type ResolvedHandlerOptions,
  resolveHandlerOptions,
} from './options.js';
import { errorPage } from './pages/error.js';
import { loginPage } from './pages/login.js';
import { actions, findRoute, pages } from './routes.js';
import { STYLE } from './style.js';

/** A plain Node request handler: mount it in `http.createServer`, Express or Fastify. */
export type DashboardHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

/**
 * The dashboard as a request handler. Without a token it answers only requests from this
 * machine that name it as localhost (which also defeats DNS rebinding); with a token it
 * asks for it (Bearer header or the login form). Every POST carries a CSRF token.
 */
export function createDashboardHandler(
  tm: Tidemark,
  options: DashboardHandlerOptions = {},
): DashboardHandler {
  const resolved = resolveHandlerOptions(options);
  const auth = new DashboardAuth(resolved.token);
  return async (req, res) => {
    try {
      await serve(tm, resolved, auth, req, res);
    } catch (error) {
      tm.internals.logger.error('dashboard request failed', { url: req.url, error: String(error) });
      if (!res.headersSent)
        send(res, 500, 'text/plain; charset=utf-8', 'Internal error: see the server log.\n');
      else res.end();
    }
  };
}

async function serve(
  tm: Tidemark,
  options: ResolvedHandlerOptions,
  auth: DashboardAuth,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
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
  if (path === '/favicon.ico') {
    res.statusCode = 204;
    return void res.end();
  }

  if (
    !auth.required &&
    !(isLoopbackHost(hostOfHeader(req.headers.host)) && isLoopbackAddress(req.socket.remoteAddress))
  ) {
    return send(
      res,
      403,
      'text/plain; charset=utf-8',
      'This Tidemark dashboard has no token, so it serves only http://127.0.0.1 or http://localhost on this machine. Start it with a token to reach it from elsewhere.\n',
    );
  }

  if (path === '/login') return login(base, auth, req, res, method);
  const principal = auth.identify(req);
  if (principal.kind === 'anonymous') {
    if (method === 'POST') return send(res, 401, 'text/plain; charset=utf-8', 'Log in first.\n');
    return redirect(res, `${base}/login`);
  }
  const ctx: DashboardContext = {
    tm,
    base,
    url,
    readOnly: options.readOnly,
    csrf: auth.csrfFor(principal),
    loggedIn: principal.kind === 'session',
    retention: await tm.retentionStatus(),
  };
  if (path === '/logout' && method === 'POST') return logout(ctx, auth, principal, req, res);

  if (method !== 'POST') {
    const found = findRoute(pages, path);
    let page: Awaited<ReturnType<(typeof pages)[number]['render']>>;
    try {
      page = found ? await found.route.render(ctx, found.match) : null;
    } catch (error) {
      // A value the engine refuses (such as an id beyond bigint) is a bad request, not a crash.
      if (!(error instanceof InvalidOptionError)) throw error;
      return sendHtml(res, 400, errorPage(ctx, 'Bad request', error.message).text, method);
    }
    if (!page) return sendHtml(res, 404, errorPage(ctx, 'Not found', `Nothing here: ${path}`).text, method);
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
  if (!sameOrigin(req) || !auth.checkCsrf(principal, form.get('csrf') ?? undefined)) {
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
    if (!(error instanceof TidemarkError)) throw error;
    const status =
      error instanceof JobNotFoundError || error instanceof QueueNotFoundError
        ? 404
        : error instanceof InvalidOptionError
          ? 400
          : 409;
    return sendHtml(res, status, errorPage(ctx, 'Refused', error.message, backFrom(ctx, path)).text);
  }
}

async function login(
  base: string,
  auth: DashboardAuth,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
): Promise<void> {
  if (!auth.required) return redirect(res, `${base}/`);
  const csrf = auth.csrfFor('login');
  if (method !== 'POST') return sendHtml(res, 200, loginPage(base, csrf, false).text, method);
  const form = await readForm(req);
  if (
    typeof form === 'string' ||
    !sameOrigin(req) ||
    !auth.checkCsrf('login', form.get('csrf') ?? undefined)
  ) {
    return send(res, 403, 'text/plain; charset=utf-8', 'Refused: reload the login page and try again.\n');
  }
  if (!auth.checkToken(form.get('token') ?? '')) return sendHtml(res, 401, loginPage(base, csrf, true).text);
  res.setHeader('set-cookie', sessionCookie(auth.newSession(), base || '/'));
  return redirect(res, `${base}/`);
}

async function logout(
  ctx: DashboardContext,
  auth: DashboardAuth,
  principal: Principal,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const form = await readForm(req);
  if (typeof form === 'string' || !auth.checkCsrf(principal, form.get('csrf') ?? undefined)) {
    return sendHtml(res, 403, layout(ctx, 'Refused', '', notice('error', 'CSRF check failed.')).text);
  }
  res.setHeader('set-cookie', sessionCookie('', ctx.base || '/', 0));
  return redirect(res, `${ctx.base}/login`);
}

/** A browser's Origin, when it sends one, must name this host (a second line behind CSRF tokens). */
function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (!origin || origin === 'null') return true;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  const forwarded = req.headers['x-forwarded-host'];
  return (
    host === req.headers.host || (typeof forwarded === 'string' && host === forwarded.split(',')[0].trim())
  );
}

function backFrom(ctx: DashboardContext, path: string): string {
  const job = path.match(/^\/jobs\/(\d+)\//);
  if (job) return `${ctx.base}/jobs/${job[1]}`;
  if (path.startsWith('/purge')) return `${ctx.base}/purge`;
  if (path.startsWith('/retention')) return `${ctx.base}/retention`;
  return `${ctx.base}/`;
}

function send(res: ServerResponse, status: number, type: string, body: string, method = 'GET'): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  res.statusCode = status;
  res.setHeader('content-type', type);
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(method === 'HEAD' ? undefined : body);
}

function sendHtml(res: ServerResponse, status: number, body: string, method = 'GET'): void {
  send(res, status, 'text/html; charset=utf-8', body, method);
}

function redirect(res: ServerResponse, location: string): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  res.statusCode = 303;
  res.setHeader('location', location);
  res.end();
}
