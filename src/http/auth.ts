import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { readCookie, SESSION_COOKIE } from './cookies.js';
import { SESSION_SECONDS, SessionStore } from './sessions.js';

/** Who a request is, for CSRF binding: a login session, a bearer client, or anyone (no token set). */
export type Principal =
  | { kind: 'session'; session: string }
  | { kind: 'bearer' }
  | { kind: 'open' }
  | { kind: 'anonymous' };

/**
 * Token checks, login sessions and CSRF tokens of one HTTP handler. The secret and the session
 * table belong to one handler, so sessions and CSRF tokens of one server are worthless to any other.
 */
export class TokenAuth {
  private readonly secret = randomBytes(32);
  private readonly sessions = new SessionStore(SESSION_SECONDS * 1000);

  constructor(private readonly token: string | undefined) {}

  get required(): boolean {
    return this.token !== undefined;
  }

  /** Constant-time: both sides are hashed first, so lengths match and nothing leaks through timing. */
  checkToken(given: string): boolean {
    return this.token !== undefined && safeEqual(given, this.token);
  }

  /** The request's principal, or anonymous when a token is required and none was shown. */
  identify(req: IncomingMessage, now = Date.now()): Principal {
    if (!this.required) return { kind: 'open' };
    const bearer = bearerOf(req);
    if (bearer !== undefined) return this.checkToken(bearer) ? { kind: 'bearer' } : { kind: 'anonymous' };
    const session = readCookie(req, SESSION_COOKIE);
    if (session && this.checkSession(session, now)) return { kind: 'session', session };
    return { kind: 'anonymous' };
  }

  /** A new login: the cookie value names a live session of this handler, signed. */
  newSession(now = Date.now()): string {
    const id = this.sessions.open(now);
    return `${id}.${this.sign(`session:${id}`)}`;
  }

  /** Log out: the session ends here, so its cookie is refused even if a copy of it is replayed. */
  endSession(value: string): void {
    this.sessions.end(value.split('.')[0]);
  }

  private checkSession(value: string, now: number): boolean {
    const [id, mac, extra] = value.split('.');
    if (!id || !mac || extra !== undefined) return false;
    return safeEqual(mac, this.sign(`session:${id}`)) && this.sessions.isLive(id, now);
  }

  /** The CSRF token of a principal: an HMAC of who it is, checked on every POST. */
  csrfFor(principal: Principal | 'login'): string {
    return this.sign(`csrf:${bindingOf(principal)}`);
  }

  checkCsrf(principal: Principal | 'login', given: string | undefined): boolean {
    return typeof given === 'string' && safeEqual(given, this.csrfFor(principal));
  }

  private sign(text: string): string {
    return createHmac('sha256', this.secret).update(text).digest('base64url');
  }
}

function bindingOf(principal: Principal | 'login'): string {
  if (principal === 'login') return 'login';
  if (principal.kind === 'session') return `session:${principal.session}`;
  return principal.kind;
}

export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}

/** The token of an `Authorization: Bearer …` header, or undefined when the request shows none. */
export function bearerOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  return typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
}
