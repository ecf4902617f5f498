import { setImmediate as nextTurn } from 'node:timers/promises';
import { isStatementCancelled } from '../storage/storage.js';

/**
 * How long one deletion batch should take. On embedded PGlite a statement runs on the
 * application's own thread, so this is also how long a batch keeps timers (heartbeats, the
 * maintenance tick) and I/O waiting; on PostgreSQL it bounds how long a batch holds its row
 * locks, and how long a pause or a hold waits for it.
 */
export const BATCH_TARGET_MS = 100;

/** Pacing never takes a batch below this (nor below the caller's size, when smaller). */
export const MIN_PACED_BATCH = 100;

/**
 * The size of the next batch of a sweep or purge loop: the caller's batch size while
 * batches are fast; halved after a batch slower than the target (down to MIN_PACED_BATCH), and doubled
 * back, never past the caller's size, after one under a quarter of it.
 */
export class BatchPace {
  private current: number;

  constructor(
    private readonly max: number,
    private readonly targetMs = BATCH_TARGET_MS,
  ) {
    this.current = max;
  }

  get size(): number {
    return this.current;
  }

  /**
   * Run one batch at the current size, adapt the size to how long it took, then give the
   * event loop a turn (on PGlite the loop would otherwise go from one statement to the next
   * without one, and a heartbeat due meanwhile would wait for the whole pass). Returns the
   * batch's result and the size it ran with.
   */
  async run<T>(batch: (size: number) => Promise<T>): Promise<{ value: T; size: number }> {
    for (;;) {
      const size = this.current;
      const t0 = performance.now();
      let value: T;
      try {
        value = await batch(size);
      } catch (error) {
        // The database cancelled a batch that ran past its statement timeout: it deleted
        // nothing, so the same batch runs again, halved, until it is as small as pacing goes.
        if (!isStatementCancelled(error) || size <= this.floor) throw error;
        this.current = this.halved(size);
        await nextTurn();
        continue;
      }
      const ms = performance.now() - t0;
      if (ms > this.targetMs) this.current = this.halved(size);
      else if (ms < this.targetMs / 4) this.current = Math.min(this.max, size * 2);
      await nextTurn();
      return { value, size };
    }
  }

  /** The smallest batch pacing takes: MIN_PACED_BATCH, or the caller's size when smaller. */
  private get floor(): number {
    return Math.min(this.max, MIN_PACED_BATCH);
  }

  private halved(size: number): number {
    return Math.max(this.floor, Math.floor(size / 2));
  }
}
