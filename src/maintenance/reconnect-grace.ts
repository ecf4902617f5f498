/**
 * Seconds after this process reaches the database again (after failing to) during which its
 * maintenance tick recovers no stalled job. A lock that lapsed during an outage belongs to a
 * worker that may well be alive: it retries its beat every 2 s at most once a beat fails, so
 * within this time it extends its locks and writes the outcomes it held, and recovery then
 * finds nothing to take from it.
 */
export const RECONNECT_GRACE_SECONDS = 5;

/**
 * What a worker knows of its own contact with the database: calls report whether they got
 * through, and `steady()` says whether the database has answered for the whole grace since
 * the last failure was followed by an answer. A process that never failed is steady.
 */
export class DatabaseContact {
  private down = false;
  private backAt = Number.NEGATIVE_INFINITY;
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly graceSeconds = RECONNECT_GRACE_SECONDS,
    private readonly now: () => number = Date.now,
  ) {}

  failed(): void {
    this.down = true;
  }

  answered(): void {
    if (!this.down) return;
    this.down = false;
    this.backAt = this.now();
    for (const listener of this.listeners) listener();
  }

  /** Call `listener` each time the database answers again after failing to. */
  whenBack(listener: () => void): void {
    this.listeners.push(listener);
  }

  steady(): boolean {
    return !this.down && this.now() - this.backAt >= this.graceSeconds * 1000;
  }
}
