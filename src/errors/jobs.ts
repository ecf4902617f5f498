import { codeOf, errorSuffix, TidemarkError } from './base.js';

export class JobNotFoundError extends TidemarkError {
  readonly jobId: string;
  constructor(jobId: string) {
    super('JOB_NOT_FOUND', `job ${jobId} not found`, { jobId });
    this.jobId = jobId;
  }
}

export class QueueNotFoundError extends TidemarkError {
  readonly queue: string;
  constructor(queue: string) {
    super('QUEUE_NOT_FOUND', `queue '${queue}' does not exist: create it with tm.createQueue first`, {
      queue,
    });
    this.queue = queue;
  }
}

/** The operation needs a finished job (or a job in another state) and the job is not in it. */
export class InvalidJobStateError extends TidemarkError {
  readonly jobId: string;
  readonly status: string;
  constructor(jobId: string, status: string, wanted: string) {
    super('INVALID_JOB_STATE', `job ${jobId} is ${status}; ${wanted}`, { jobId, status });
    this.jobId = jobId;
    this.status = status;
  }
}

/** Deleting a job that is still in flight is refused: cancel it first. */
export class JobInFlightError extends InvalidJobStateError {
  constructor(jobId: string, status: string) {
    super(jobId, status, 'in-flight jobs are never deleted: cancel it first');
    this.recode('JOB_IN_FLIGHT');
  }
}

/**
 * `retryJob` of a `unique` job whose key another in-flight job took meanwhile: two jobs in
 * flight with one key would break the promise of `unique`, so nothing is reopened.
 * `holderId` is the job holding the key (null when it finished as the error was built).
 */
export class UniqueKeyConflictError extends TidemarkError {
  readonly jobId: string;
  readonly uniqueKey: string;
  readonly holderId: string | null;
  constructor(jobId: string, queue: string, uniqueKey: string, holderId: string | null, cause?: unknown) {
    super(
      'UNIQUE_KEY_CONFLICT',
      `job ${jobId} cannot run again: its unique key '${uniqueKey}' on queue '${queue}' is held by ${holderId === null ? 'another in-flight job' : `job ${holderId}`}, in flight; retry it once that job has finished`,
      { jobId, queue, uniqueKey, holderId },
      { cause },
    );
    this.jobId = jobId;
    this.uniqueKey = uniqueKey;
    this.holderId = holderId;
  }
}

/** A handler ran longer than its queue's `timeoutSeconds`. */
export class JobTimeoutError extends TidemarkError {
  constructor(seconds: number) {
    super('JOB_TIMEOUT', `handler timed out after ${seconds}s`, { seconds });
  }
}

/**
 * The database refused to store an attempt's outcome (a value it cannot hold). The attempt is
 * failed with this error instead, and the queue's retry policy applies; the jobs finished in
 * the same batch are written as usual.
 */
export class OutcomeRefusedError extends TidemarkError {
  constructor(jobId: string, what: 'output' | 'error', cause: unknown) {
    const sqlState = codeOf(cause);
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      'OUTCOME_REFUSED',
      `the database refused to store the ${what} of job ${jobId}'s attempt (${typeof sqlState === 'string' ? `${sqlState}: ` : ''}${reason}); the attempt failed instead`,
      { jobId, what, sqlState: typeof sqlState === 'string' ? sqlState : null },
      { cause },
    );
  }
}

/**
 * `result(id)` was awaited on a job that ended failed, cancelled or expired. The message carries
 * the job's last error; `details.error` holds it whole (`{ name, message, stack }`).
 */
export class JobFailedError extends TidemarkError {
  readonly jobId: string;
  readonly status: string;
  constructor(jobId: string, status: string, error: unknown) {
    super('JOB_FAILED', `job ${jobId} ended ${status}${errorSuffix(error)}`, { jobId, status, error });
    this.jobId = jobId;
    this.status = status;
  }
}

/** `result(id, { timeoutSeconds })` gave up before the job finished. The job itself goes on. */
export class ResultTimeoutError extends TidemarkError {
  readonly jobId: string;
  readonly status: string;
  constructor(jobId: string, status: string, seconds: number) {
    super(
      'RESULT_TIMEOUT',
      `job ${jobId} did not finish within ${seconds}s (it is ${status}); the job itself goes on`,
      { jobId, status, seconds },
    );
    this.jobId = jobId;
    this.status = status;
  }
}

/** A schedule of that name does not exist. */
export class ScheduleNotFoundError extends TidemarkError {
  constructor(name: string) {
    super('SCHEDULE_NOT_FOUND', `schedule '${name}' not found`, { name });
  }
}

/**
 * A bulk retry or cancel given the count that was confirmed (`maxMatched`) found more jobs
 * matching now: nothing was changed, and `matched` is the fresh count to confirm again.
 */
export class BulkSetGrewError extends TidemarkError {
  readonly matched: number;
  readonly confirmed: number;
  constructor(action: string, matched: number, confirmed: number) {
    super(
      'BULK_SET_GREW',
      `${matched} jobs match the filter now, more than the ${confirmed} confirmed: nothing was changed (${action}); count and confirm again`,
      { action, matched, confirmed },
    );
    this.matched = matched;
    this.confirmed = confirmed;
  }
}

/**
 * The test kit's `runUntilIdle` started its limit of attempts and work was still due: a job
 * that adds itself forever, or a limit too low for the test. Pass `{ maxJobs }` to stop at a
 * count without this error.
 */
export class StillBusyError extends TidemarkError {
  readonly attempts: number;
  constructor(attempts: number) {
    super(
      'STILL_BUSY',
      `runUntilIdle started ${attempts} attempts and work is still due: a job that adds itself forever? Pass { maxJobs } to stop at a count without this error`,
      { attempts },
    );
    this.attempts = attempts;
  }
}
