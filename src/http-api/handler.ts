import type { IncomingMessage, ServerResponse } from 'node:http';
import { engineOf } from '../engine-handle.js';
import { TidemarkError } from '../errors.js';
import { statusOfError } from '../http/error-status.js';
import { LoginThrottle } from '../http/login-throttle.js';
import { type ApiOptions, apiOptions } from '../options/api-options.js';
import { actionRoutes } from './action-routes.js';
import { ApiTokens } from './api-auth.js';
import type { ApiEngine } from './engine-port.js';
import { enqueueRoutes } from './enqueue-routes.js';
import { openApiDocument } from './openapi/document.js';
import { ApiRefusal, problemOf, RestatedRefusal, sendJson, sendProblem } from './problem.js';
import { readRoutes } from './read-routes.js';
import type { ApiLimits, ApiRoute } from './route.js';

/** Where the API's routes live, below the server's root (or the dashboard's base path). */
export const API_PREFIX = '/api/v1';

/** A plain Node request handler: mount it in `http.createServer`, Express or Fastify. */
export type ApiHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

const ROUTES: ApiRoute[] = [...enqueueRoutes, ...readRoutes, ...actionRoutes];

/** The API's options once read, and the throttle its failed authentications count in. */
export interface ApiSetup {
  tokens: ApiTokens;
  limits: ApiLimits;
  throttle: LoginThrottle;
}

/** Read the options (InvalidOptionError naming the field otherwise) into what a handler keeps. */
export function apiSetup(input: ApiOptions, field = 'api', throttle = new LoginThrottle()): ApiSetup {
  const { tokens, maxBodyBytes, idempotencyTtlSeconds } = apiOptions.read(input, field);
  return { tokens: new ApiTokens(tokens), limits: { maxBodyBytes, idempotencyTtlSeconds }, throttle };
}

/**
 * The HTTP API as a request handler, answering under `/api/v1`. Every route takes a bearer
 * token with the scope it needs; the OpenAPI document at `/api/v1/openapi.json` is served to
 * anyone. Refusals are problem details (RFC 9457) carrying Tidemark's error codes.
 */
export function createApiHandler(tm: ApiEngine, options: ApiOptions): ApiHandler {
  const setup = apiSetup(options, 'options');
  return (req, res) => serveApiRequest(tm, setup, req, res, new URL(req.url ?? '/', 'http://api').pathname);
}

/** One request, at `path` (the dashboard passes the path below its base path). */
export async function serveApiRequest(
  tm: ApiEngine,
  setup: ApiSetup,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  try {
    await route(tm, setup, req, res, path);
  } catch (error) {
    if (error instanceof ApiRefusal)
      return sendProblem(res, problemOf(error.status, error.code, error.message), error.headers);
    if (error instanceof RestatedRefusal) {
      const { status, error: refusal } = error;
      return sendProblem(res, problemOf(status, refusal.code, refusal.message, refusal.details));
    }
    if (error instanceof TidemarkError) {
      return sendProblem(res, problemOf(statusOfError(error), error.code, error.message, error.details));
    }
    engineOf(tm).logger.error('API request failed', { url: req.url, error: String(error) });
    if (res.headersSent) return void res.end();
    sendProblem(res, problemOf(500, 'INTERNAL', 'Internal error: see the server log.'));
  }
}

async function route(
  tm: ApiEngine,
  setup: ApiSetup,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
) {
  const method = req.method ?? 'GET';
  const below = path.startsWith(`${API_PREFIX}/`) ? path.slice(API_PREFIX.length) : null;
  if (below === '/openapi.json' && (method === 'GET' || method === 'HEAD')) {
    return sendJson(res, 200, openApiDocument(), 'application/json', method);
  }
  const matching = below === null ? [] : ROUTES.filter((r) => r.pattern.test(below));
  if (matching.length === 0) throw new ApiRefusal(404, 'ROUTE_NOT_FOUND', `No API route at ${path}.`);
  const found = matching.find((r) => r.method === method);
  if (found === undefined) {
    const allow = matching.map((r) => r.method).join(', ');
    throw new ApiRefusal(405, 'METHOD_NOT_ALLOWED', `${path} takes ${allow}, not ${method}.`, { allow });
  }
  const caller = setup.tokens.authenticate(req, setup.throttle);
  const clientGone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) clientGone.abort();
  });
  const answer = await found.run(
    {
      tm,
      req,
      query: new URL(req.url ?? '/', 'http://api').searchParams,
      caller,
      limits: setup.limits,
      clientGone: clientGone.signal,
    },
    (below as string).match(found.pattern) as RegExpMatchArray,
  );
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  sendJson(res, answer.status, answer.body);
}
