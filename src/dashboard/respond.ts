import type { IncomingMessage, ServerResponse } from 'node:http';

/** Sent with every answer: scripts only from the dashboard itself, no framing, no sniffing, no caching. */
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** A browser's Origin, when it sends one, must name this host (a second line behind CSRF tokens). */
export function sameOrigin(req: IncomingMessage): boolean {
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

export function send(res: ServerResponse, status: number, type: string, body: string, method = 'GET'): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  res.statusCode = status;
  res.setHeader('content-type', type);
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(method === 'HEAD' ? undefined : body);
}

export function sendHtml(res: ServerResponse, status: number, body: string, method = 'GET'): void {
  send(res, status, 'text/html; charset=utf-8', body, method);
}

export function redirect(res: ServerResponse, location: string): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  res.statusCode = 303;
  res.setHeader('location', location);
  res.end();
}
