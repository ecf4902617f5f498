import { TidemarkError } from './base.js';

/**
 * A batch handler gave no usable outcome for a job: it left the job out, gave it twice, or
 * returned something that is no array of `{ id, output }` / `{ id, error }`. The job fails
 * with this error, and the queue's retry policy applies.
 */
export class BatchOutcomeError extends TidemarkError {
  readonly jobId: string;
  constructor(jobId: string, reason: string) {
    super('BATCH_OUTCOME', `the batch handler ${reason} for job ${jobId}`, { jobId });
    this.jobId = jobId;
  }
}

/**
 * A queue's `batch.key` function threw for a job, or gave no string of at most 512
 * characters: the job fails without running, and is not retried.
 */
export class BatchKeyError extends TidemarkError {
  readonly jobId: string;
  readonly retryable = false;
  constructor(jobId: string, reason: string, options?: { cause?: unknown }) {
    super('BATCH_KEY', `batch.key ${reason} for job ${jobId}`, { jobId }, options);
    this.jobId = jobId;
  }
}
