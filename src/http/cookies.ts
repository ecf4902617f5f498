import type { IncomingMessage } from 'node:http';
import { SESSION_SECONDS } from './sessions.js';

export const SESSION_COOKIE = 'tidemark_session';

export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The Set-Cookie value of a login (an empty value with max-age 0 ends one). HttpOnly and
 * SameSite=Strict: no script reads it and no other site's request carries it.
 */
export function sessionCookie(value: string, path: string, maxAgeSeconds = SESSION_SECONDS): string {
  return `${SESSION_COOKIE}=${value}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}`;
}
