import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineCore } from '../engine-core.js';
import { type EngineHandle, engineOf, readyEngineOf } from '../engine-handle.js';
import { TidemarkError } from '../errors.js';
import { statusOfError } from '../http/error-status.js';
import { send, sendHtml } from '../http/respond.js';
import { isFinished } from '../job-status.js';
import { checkCompleteRequest, completeToken } from '../jobs/tokens.js';
import { propertyOf } from '../model/guards.js';
import { linkPayload, readTokenLink, type TokenLink, verifyTokenLink } from '../model/token-url.js';
import { DEFAULT_TOKEN_PAYLOAD_BYTES } from '../options/token-options.js';
import { confirmPage, tokenPage } from './token-page.js';

/** Options of `createTokenHandler`. */
export interface TokenHandlerOptions {
  /** The path the handler is mounted under (`/callbacks`); token URLs are `<basePath>/<id>?…`. */
  basePath?: string;
  /**
   * Answer a GET with a page that asks to confirm (a POST), so a link preview completes
   * nothing; `false` answers a GET with 405. Default true.
   */
  confirm?: boolean;
}

/** A plain Node request handler for signed token URLs. */
export type TokenHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Said for every link that fails its check, whatever failed: the answer tells nothing. */
const NOT_VALID = 'This link is not valid.';

/**
 * Complete callback tokens from their signed URLs (`token.url()`): no login, the URL's MAC is
 * the authority. A GET shows a confirm page and never completes; a POST completes, with the
 * payload the URL carries or, when it carries none, a JSON body (a web hook's). 400 for a bad
 * or tampered link, 404 for a token that does not exist (its job deleted), 409 when already
 * used, 410 when expired or cancelled, 413 for a body over `tokens.maxPayloadBytes`.
 */
export function createTokenHandler(tm: EngineHandle, options: TokenHandlerOptions = {}): TokenHandler {
  const base = (options.basePath ?? '').replace(/\/+$/, '');
  const confirm = options.confirm ?? true;
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://tokens');
    const path = base && url.pathname.startsWith(`${base}/`) ? url.pathname.slice(base.length) : url.pathname;
    await serveToken(tm, req, res, path, confirm);
  };
}

/** One request to `<base>/<id>?exp&sig[&d]`, `path` being `/<id>`. */
export async function serveToken(
  tm: EngineHandle,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  confirm = true,
): Promise<void> {
  const method = req.method ?? 'GET';
  const allowed = confirm ? ['GET', 'HEAD', 'POST'] : ['POST'];
  if (!allowed.includes(method)) {
    res.setHeader('allow', allowed.join(', '));
    return answer(req, res, 405, 'Not allowed', 'Post to this link to complete it.');
  }
  const query = new URL(req.url ?? '/', 'http://tokens').searchParams;
  const link = readTokenLink(path.replace(/^\//, ''), query);
  let core: EngineCore;
  try {
    core = await readyEngineOf(tm);
  } catch (error) {
    return refuse(tm, req, res, error);
  }
  const keys = core.tokens?.secrets ?? [];
  if (link === null || !verifyTokenLink(keys, link)) return answer(req, res, 400, 'Not valid', NOT_VALID);
  if (link.exp * 1000 <= core.clock.now()) return answer(req, res, 410, 'Expired', 'This link has expired.');
  try {
    if (method === 'POST') return await complete(core, req, res, link);
    return await showConfirm(core, req, res, link, method);
  } catch (error) {
    return refuse(tm, req, res, error);
  }
}

async function showConfirm(
  core: EngineCore,
  req: IncomingMessage,
  res: ServerResponse,
  link: TokenLink,
  method: string,
): Promise<void> {
  const row = await core.storage.tokens.readToken(link.id);
  if (row === null) return answer(req, res, 404, 'Not found', 'This link is for nothing that exists now.');
  if (row.state === 'completed') return answer(req, res, 409, 'Already used', 'This link was already used.');
  if (row.state !== 'pending' || row.expired || row.jobStatus === null || isFinished(row.jobStatus)) {
    return answer(req, res, 410, 'Closed', 'This link can no longer be used.');
  }
  sendHtml(res, 200, confirmPage(req.url ?? '', link.d !== null), method);
}

async function complete(core: EngineCore, req: IncomingMessage, res: ServerResponse, link: TokenLink) {
  const cap = core.tokens?.maxPayloadBytes ?? DEFAULT_TOKEN_PAYLOAD_BYTES;
  let data: unknown = null;
  if (link.d !== null) {
    // The URL's payload is signed: a body cannot replace it.
    const carried = linkPayload(link);
    if (carried === undefined) return answer(req, res, 400, 'Not valid', NOT_VALID);
    data = carried.value;
  } else {
    const body = await readBody(req, cap);
    if (body === 'too-large') return answer(req, res, 413, 'Too large', `The payload is over ${cap} bytes.`);
    if (body === 'bad-json') return answer(req, res, 400, 'Not JSON', 'The body is not JSON.');
    data = body.value;
  }
  const done = await completeToken(core, checkCompleteRequest(core, link.id, data));
  if (done.status === 'already-completed') {
    return answer(req, res, 409, 'Already used', 'This link was already used.');
  }
  return answer(req, res, 200, 'Done', 'Thank you: the task goes on.', { status: 'completed' });
}

/**
 * The payload a POST without a URL payload carries: its JSON body, or null for a form (the
 * confirm page's) or no body. Read up to `cap` bytes, refused beyond. A body a framework has
 * parsed already (Express's `json()` leaves it on `req.body`) is taken as it is; the cap is then
 * checked on its JSON text when the token is completed.
 */
async function readBody(
  req: IncomingMessage,
  cap: number,
): Promise<{ value: unknown } | 'too-large' | 'bad-json'> {
  const parsed = propertyOf(req, 'body');
  if (parsed !== undefined && isJson(req) && !Buffer.isBuffer(parsed)) {
    return typeof parsed === 'string' ? parseJson(parsed) : { value: parsed };
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > cap) return 'too-large';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > cap) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  if (!isJson(req) || size === 0) return { value: null };
  return parseJson(Buffer.concat(chunks).toString('utf8'));
}

function parseJson(text: string): { value: unknown } | 'bad-json' {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return 'bad-json';
  }
}

function isJson(req: IncomingMessage): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\b/i.test(String(req.headers['content-type'] ?? ''));
}

/** A refusal the engine threw on purpose, with its status; anything else is a 500. */
function refuse(tm: EngineHandle, req: IncomingMessage, res: ServerResponse, error: unknown): void {
  if (!(error instanceof TidemarkError)) {
    engineOf(tm).logger.error('token request failed', { error: String(error) });
    answer(req, res, 500, 'Error', 'Internal error: see the server log.');
    return;
  }
  const status = statusOfError(error);
  answer(req, res, status, status === 404 ? 'Not found' : 'Refused', error.message, {
    error: { code: error.code, message: error.message },
  });
}

/** HTML for a browser (a form or a GET), JSON for a caller that posts JSON or asks for it. */
function answer(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  title: string,
  message: string,
  json?: Record<string, unknown>,
): void {
  const accept = String(req.headers.accept ?? '');
  const wantsJson = isJson(req) || (accept.includes('application/json') && !accept.includes('text/html'));
  if (wantsJson) {
    const body = json ?? (status < 400 ? { status: title.toLowerCase() } : { error: { message } });
    send(res, status, 'application/json; charset=utf-8', `${JSON.stringify(body)}\n`, req.method);
    return;
  }
  sendHtml(res, status, tokenPage(title, message), req.method);
}
