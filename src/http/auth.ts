import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { readCookie, SESSION_COOKIE } from './cookies.js';
import { SESSION_SECONDS, SessionStore } from './sessions.js';

/**
 * Who a request is, for CSRF binding and the audit: a login session or a bearer client (with
 * the name of the token shown), anyone (no token set), or nobody yet.
 */
export type Principal =
  | { kind: 'session'; session: string; actor: string }
  | { kind: 'bearer'; actor: string }
  | { kind: 'open' }
  | { kind: 'anonymous' };

/** The name the plain `token` option acts under in the audit. */
export const PLAIN_TOKEN_NAME = 'dashboard';

/** Who the audit says acted: the token's name, or `localhost` for a surface without a token. */
export function actorOf(principal: Principal): string {
  return principal.kind === 'session' || principal.kind === 'bearer' ? principal.actor : 'localhost';
}

/**
 * Token checks, login sessions and CSRF tokens of one HTTP handler. The secret and the session
 * table belong to one handler, so sessions and CSRF tokens of one server are worthless to any other.
 */
export class TokenAuth {
  private readonly secret = randomBytes(32);
  private readonly sessions = new SessionStore(SESSION_SECONDS * 1000);
  /** Each accepted token with the name it acts under: `token` as 'dashboard', then `tokens`. */
  private readonly named: [name: string, secret: string][];

  constructor(token: string | undefined, tokens: Record<string, string> = {}) {
    this.named = [...(token === undefined ? [] : [[PLAIN_TOKEN_NAME, token] as [string, string]])];
    for (const [name, secret] of Object.entries(tokens)) this.named.push([name, secret]);
  }

  get required(): boolean {
    return this.named.length > 0;
  }

  /**
   * The name of the token given, or null when it is none of them. Constant-time: every token is
   * compared, each after hashing both sides, so neither lengths nor which one matched leak.
   */
  checkToken(given: string): string | null {
    let found: string | null = null;
    for (const [name, secret] of this.named) if (safeEqual(given, secret) && found === null) found = name;
    return found;
  }

  /** The request's principal, or anonymous when a token is required and none was shown. */
  identify(req: IncomingMessage, now = Date.now()): Principal {
    if (!this.required) return { kind: 'open' };
    const bearer = bearerOf(req);
    if (bearer !== undefined) {
      const actor = this.checkToken(bearer);
      return actor === null ? { kind: 'anonymous' } : { kind: 'bearer', actor };
    }
    const session = readCookie(req, SESSION_COOKIE);
    const actor = session ? this.checkSession(session, now) : null;
    if (session && actor !== null) return { kind: 'session', session, actor };
    return { kind: 'anonymous' };
  }

  /** A new login of the token named `actor`: the cookie value names a live session of this handler, signed. */
  newSession(actor: string, now = Date.now()): string {
    const id = this.sessions.open(now, actor);
    return `${id}.${this.sign(`session:${id}`)}`;
  }

  /** Log out: the session ends here, so its cookie is refused even if a copy of it is replayed. */
  endSession(value: string): void {
    this.sessions.end(value.split('.')[0]);
  }

  /** The name the session's login used, or null when the session is not a live one of this handler. */
  private checkSession(value: string, now: number): string | null {
    const [id, mac, extra] = value.split('.');
    if (!id || !mac || extra !== undefined) return null;
    return safeEqual(mac, this.sign(`session:${id}`)) ? this.sessions.actorOf(id, now) : null;
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
