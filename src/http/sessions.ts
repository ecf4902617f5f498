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
  /** Session id → when it expires (ms). Insertion order is age order. */
  private readonly live = new Map<string, number>();

  constructor(
    private readonly lifetimeMs: number,
    private readonly max = MAX_SESSIONS,
  ) {}

  get size(): number {
    return this.live.size;
  }

  open(now: number): string {
    if (this.live.size >= this.max) this.makeRoom(now);
    const id = randomBytes(18).toString('base64url');
    this.live.set(id, now + this.lifetimeMs);
    return id;
  }

  isLive(id: string, now: number): boolean {
    const expires = this.live.get(id);
    if (expires === undefined) return false;
    if (expires > now) return true;
    this.live.delete(id);
    return false;
  }

  end(id: string): void {
    this.live.delete(id);
  }

  private makeRoom(now: number): void {
    for (const [id, expires] of this.live) if (expires <= now) this.live.delete(id);
    // Still full: end the oldest login rather than refuse a new one or grow without bound.
    for (const id of this.live.keys()) {
      if (this.live.size < this.max) break;
      this.live.delete(id);
    }
  }
}
