import type { EngineCore } from '../engine-core.js';
import type { Logger } from '../log/logger.js';
import type { DatabaseContact } from '../maintenance/reconnect-grace.js';
import { isConnectionError } from '../storage/storage.js';
import { heartbeatSeconds, type WorkerPresence } from './presence.js';
import { defaultRetryDelayMs } from './retry-window.js';
import type { Slots } from './slots.js';

/**
 * Extends the locks of every claim the worker holds (running, being written, buffered) three
 * times per lock period, so one late beat does not lose them, and aborts a running attempt
 * whose lock another owner has taken. Each beat also refreshes the worker's own row (one
 * update, idle or not), so the dashboard sees it alive and how many attempts it runs.
 *
 * A beat the database does not take is tried again soon (100 ms, doubling, at most 2 s or
 * the beat interval), not a third of a lock later: a database back from an outage longer
 * than the lock sees this worker's locks extended before another node's recovery takes them.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private failures = 0;

  constructor(
    private readonly core: EngineCore,
    private readonly lockSeconds: number,
    private readonly slots: Slots,
    private readonly logger: Logger,
    private readonly presence: WorkerPresence,
    private readonly contact: DatabaseContact,
  ) {}

  /** The last beat did not get through (so the locks may have lapsed). */
  get failing(): boolean {
    return this.failures > 0;
  }

  start(): void {
    this.failures = 0;
    this.timer = setInterval(() => void this.beat(), heartbeatSeconds(this.lockSeconds) * 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.timer = null;
    this.retryTimer = null;
  }

  /** One beat now: true when the database took it (the row and every lock held). */
  async beat(): Promise<boolean> {
    const errors = await Promise.all([this.presence.beat(this.slots.running.size), this.extendLocks()]);
    const failed = errors.filter((error) => error !== null);
    if (failed.length === 0) {
      this.failures = 0;
      this.contact.answered();
      return true;
    }
    this.failures++;
    // Only an unreachable database holds recovery back; another failure is no outage.
    if (failed.some(isConnectionError)) this.contact.failed();
    this.retrySoon();
    return false;
  }

  private retrySoon(): void {
    if (this.retryTimer || !this.timer) return;
    const ms = Math.min(defaultRetryDelayMs(this.failures), heartbeatSeconds(this.lockSeconds) * 1000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.timer) void this.beat();
    }, ms);
    this.retryTimer.unref();
  }

  /** Extend every lock held; what the database answered when it did not (null when it did). */
  private async extendLocks(): Promise<unknown> {
    const { running } = this.slots;
    const attempts = [...running.values()];
    const writing = [...this.slots.writing.values()];
    const buffered = this.slots.waitingJobs();
    if (attempts.length === 0 && writing.length === 0 && buffered.length === 0) return null;
    try {
      const kept = await this.core.storage.attempts.extendLocks(
        [...attempts.map((a) => a.id), ...writing.map((a) => a.id), ...buffered.map((c) => c.job.id)],
        [...attempts.map((a) => a.token), ...writing.map((a) => a.token), ...buffered.map((c) => c.token)],
        this.lockSeconds,
      );
      for (const attempt of attempts) {
        // Only abort attempts that were running before the heartbeat and still are.
        if (!kept.has(attempt.token) && running.get(attempt.token) === attempt) attempt.abort('lost');
      }
      return null;
    } catch (error) {
      this.core.events.emit('error', { scope: 'worker.heartbeat', error });
      // Once per run of failures: the quick retries of an outage would repeat it every 2 s.
      if (this.failures === 0) this.logger.warn('heartbeat failed; will try again', { error: String(error) });
      return error ?? new Error('heartbeat failed');
    }
  }
}
