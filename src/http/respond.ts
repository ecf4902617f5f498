import type { ServerResponse } from 'node:http';

/**
 * Sent with every answer: scripts and their connections (a job page's event stream) only to
 * this origin, no framing, no sniffing, no caching.
 */
const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** The whole answer at once, with the security headers; a HEAD gets the headers alone. */
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

/**
 * Start a stream of server-sent events with the security headers; the caller writes the events
 * and ends it.
 */
export function startEventStream(res: ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  res.statusCode = 200;
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  // A proxy that buffers would hold every event until the stream ends.
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
}

/** 303 See Other: the browser follows with a GET even after a POST, so a reload posts nothing again. */
export function redirect(res: ServerResponse, location: string): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  res.statusCode = 303;
  res.setHeader('location', location);
  res.end();
}
