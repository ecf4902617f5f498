import type { IncomingMessage } from 'node:http';

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
