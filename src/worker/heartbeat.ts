import type { EngineCore } from '../engine-core.js';
import type { Logger } from '../log/logger.js';
import { heartbeatSeconds, type WorkerPresence } from './presence.js';
import type { Slots } from './slots.js';

/**
 * Extends the locks of every claim the worker holds (running, being written, buffered) three
 * times per lock period, so one late beat does not lose them, and aborts a running attempt
 * whose lock another owner has taken. Each beat also refreshes the worker's own row (one
 * update, idle or not), so the dashboard sees it alive and how many attempts it runs.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly core: EngineCore,
    private readonly lockSeconds: number,
    private readonly slots: Slots,
    private readonly logger: Logger,
    private readonly presence: WorkerPresence,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.beat(), heartbeatSeconds(this.lockSeconds) * 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async beat(): Promise<void> {
    await Promise.all([this.presence.beat(this.slots.running.size), this.extendLocks()]);
  }

  private async extendLocks(): Promise<void> {
    const { running } = this.slots;
    const attempts = [...running.values()];
    const writing = [...this.slots.writing.values()];
    const buffered = this.slots.buffer.toArray();
    if (attempts.length === 0 && writing.length === 0 && buffered.length === 0) return;
    try {
      const kept = await this.core.storage.extendLocks(
        [...attempts.map((a) => a.id), ...writing.map((a) => a.id), ...buffered.map((c) => c.job.id)],
        [...attempts.map((a) => a.token), ...writing.map((a) => a.token), ...buffered.map((c) => c.token)],
        this.lockSeconds,
      );
      for (const attempt of attempts) {
        // Only abort attempts that were running before the heartbeat and still are.
        if (!kept.has(attempt.token) && running.get(attempt.token) === attempt) attempt.abort('lost');
      }
    } catch (error) {
      this.core.events.emit('error', { scope: 'worker.heartbeat', error });
      this.logger.warn('heartbeat failed; will try again', { error: String(error) });
    }
  }
}
