import { InvalidOptionError } from '../errors.js';
import type { Clock } from '../model/clock.js';
import type { Storage } from '../storage/storage.js';

/**
 * The clock of a test engine. It stands still until the test moves it, and the engine reads
 * only it: timers, delays, backoff, lock expiry, windows and sweeps in SQL, and what the worker
 * and workflow code compute in this process. Moving it writes the new time to the database
 * before this clock shows it, so the two never disagree.
 */
export class TestClock {
  #at: number;
  #storage: Storage | null = null;
  /** Moves happen one after another, in the order they were asked for. */
  #moves: Promise<unknown> = Promise.resolve();
  /** What the engine reads. */
  readonly engineClock: Clock = { now: () => this.#at };

  constructor(at: Date) {
    this.#at = at.getTime();
  }

  /** Bind to the engine's storage, once it is open. */
  attach(storage: Storage): void {
    this.#storage = storage;
  }

  /** The test's time now. */
  now(): Date {
    return new Date(this.#at);
  }

  /**
   * Move forward by `seconds` (finite, 0 or more): what became due runs at the next
   * `runUntilIdle`. Resolves to the new time once the database reads it too.
   */
  advance(seconds: number): Promise<Date> {
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
      return Promise.reject(new InvalidOptionError('seconds', 'a finite number of seconds >= 0', seconds));
    }
    return this.move((at) => at + seconds * 1000);
  }

  /** Set the time to `date` (a valid Date; earlier than now is allowed). */
  set(date: Date): Promise<Date> {
    if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
      return Promise.reject(new InvalidOptionError('date', 'a valid Date', date));
    }
    return this.move(() => date.getTime());
  }

  private move(next: (at: number) => number): Promise<Date> {
    const moved = this.#moves.then(async () => {
      const at = next(this.#at);
      await this.#storage?.testKit.setTestClock(new Date(at));
      this.#at = at;
      return new Date(at);
    });
    this.#moves = moved.catch(() => {});
    return moved;
  }
}
