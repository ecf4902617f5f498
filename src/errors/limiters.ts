import { TidemarkError } from './base.js';

/**
 * The limiter named does not exist: `tm.limiterStatus` of an unknown name, or a job whose
 * queue names one (the job fails without starting and is not retried: define the limiter,
 * then retry the job).
 */
export class LimiterNotFoundError extends TidemarkError {
  readonly limiter: string;
  /** A job failed with it would fail the same way again. */
  readonly retryable = false;
  constructor(limiter: string) {
    super('LIMITER_NOT_FOUND', `limiter '${limiter}' does not exist: define it with tm.defineLimiter`, {
      limiter,
    });
    this.limiter = limiter;
  }
}

/**
 * A job's limiter could not be applied: its queue's `key` or `cost` function threw or gave a
 * value that is no key or no cost, or the cost is more than the bucket ever holds. The job
 * fails without starting, no tokens move, and it is not retried.
 */
export class LimiterRefusedError extends TidemarkError {
  readonly limiter: string;
  /** The queue option at fault, such as `limiters[0].cost`. */
  readonly field: string;
  readonly retryable = false;
  constructor(limiter: string, field: string, reason: string, options?: { cause?: unknown }) {
    super('LIMITER_REFUSED', `${field} (limiter '${limiter}'): ${reason}`, { limiter, field }, options);
    this.limiter = limiter;
    this.field = field;
  }
}
