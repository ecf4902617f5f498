import { randomBytes } from 'node:crypto';

/** A login lasts this long, unless Log out or a new handler (restart, another token) ends it first. */
export const SESSION_SECONDS = 12 * 3600;

/** Live logins kept at once; past this the oldest is ended to make room. */
export const MAX_SESSIONS = 1_000;

/**
 * The logins of one handler, held in memory: a session exists only while it is in here, so
 * Log out ends it for good (a copied cookie stops working too), and a new handler (a restart,
 * or another token) starts with none.
 */
export class SessionStore {
  /** Session id → when it expires (ms) and the name of the token it logged in with. Insertion order is age order. */
  private readonly live = new Map<string, { expires: number; actor: string }>();

  constructor(
    private readonly lifetimeMs: number,
    private readonly max = MAX_SESSIONS,
  ) {}

  get size(): number {
    return this.live.size;
  }

  open(now: number, actor: string): string {
    if (this.live.size >= this.max) this.makeRoom(now);
    const id = randomBytes(18).toString('base64url');
    this.live.set(id, { expires: now + this.lifetimeMs, actor });
    return id;
  }

  isLive(id: string, now: number): boolean {
    return this.actorOf(id, now) !== null;
  }

  /** The token name a live session logged in with; null when the session is not live. */
  actorOf(id: string, now: number): string | null {
    const session = this.live.get(id);
    if (session === undefined) return null;
    if (session.expires > now) return session.actor;
    this.live.delete(id);
    return null;
  }

  end(id: string): void {
    this.live.delete(id);
  }

  private makeRoom(now: number): void {
    for (const [id, { expires }] of this.live) if (expires <= now) this.live.delete(id);
    // Still full: end the oldest login rather than refuse a new one or grow without bound.
    for (const id of this.live.keys()) {
      if (this.live.size < this.max) break;
      this.live.delete(id);
    }
  }
}
