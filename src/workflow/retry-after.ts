import { InvalidOptionError } from '../errors.js';
import { checkSeconds } from '../options/check.js';

/** The longest `ctx.retryAfter` accepts: as long as a durable sleep. */
const MAX_RETRY_AFTER_SECONDS = 3_153_600_000;
/** The longest reason kept in the job's attempt log. */
export const MAX_RETRY_AFTER_REASON = 1_000;

/** Options of `ctx.retryAfter`. */
export interface RetryAfterOptions {
  /** Why the job waits (an HTTP 429, a quota): kept in the job's attempt log. */
  reason?: string;
  /**
   * Empty a rate limiter's bucket for as long, so that no job of that bucket starts before
   * the delay has passed: `true` empties every bucket the job took tokens from; a limiter's
   * name empties that one (the job's key for it, or its bucket without a key when the job's
   * queue does not name it). See flow-control.md, *Rate limits*.
   */
  drainLimiter?: boolean | string;
}

/**
 * Thrown by a handler, made by `ctx.retryAfter(seconds)`: the job goes back to `pending`,
 * due in `seconds`, and the attempt does not count against its `maxAttempts`. Not a failure:
 * no `job:failed`, no backoff; `job:deferred` is emitted instead.
 */
export class RetryAfter extends Error {
  readonly seconds: number;
  readonly reason: string | null;
  /** The limiter buckets to empty for `seconds`: all the job's (true), one limiter's, or none. */
  readonly drainLimiter: boolean | string;

  constructor(seconds: number, options: RetryAfterOptions = {}) {
    const checked = checkSeconds(seconds, 'seconds', { max: MAX_RETRY_AFTER_SECONDS });
    const { reason } = options;
    if (reason !== undefined && (typeof reason !== 'string' || reason.length > MAX_RETRY_AFTER_REASON)) {
      throw new InvalidOptionError(
        'reason',
        `a string of at most ${MAX_RETRY_AFTER_REASON} characters`,
        reason,
      );
    }
    const { drainLimiter = false } = options;
    if (typeof drainLimiter !== 'boolean' && (typeof drainLimiter !== 'string' || drainLimiter === '')) {
      throw new InvalidOptionError('drainLimiter', "true, or a limiter's name", drainLimiter);
    }
    super(`retry after ${checked} s${reason ? `: ${reason}` : ''}`);
    this.name = 'RetryAfter';
    this.seconds = checked;
    this.reason = reason ?? null;
    this.drainLimiter = drainLimiter;
  }
}
