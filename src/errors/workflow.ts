import { errorSuffix, TidemarkError } from './base.js';

/** The queue does not declare a signal of this name. */
export class UnknownSignalError extends TidemarkError {
  constructor(queue: string, signal: string) {
    super('UNKNOWN_SIGNAL', `queue '${queue}' does not declare signal '${signal}'`, { queue, signal });
  }
}

/** A workflow used the same step name twice in one run. */
export class DuplicateStepError extends TidemarkError {
  constructor(name: string) {
    super('DUPLICATE_STEP', `step name '${name}' is used twice in this run; step names must be unique`, {
      name,
    });
  }
}

/** A child job failed or was cancelled; thrown from `ctx.runChild`. Its message carries the child's error. */
export class ChildJobFailedError extends TidemarkError {
  readonly childId: string;
  readonly queue: string | undefined;
  readonly status: string;
  constructor(childId: string, status: string, error: unknown, queue?: string) {
    const where = queue === undefined ? `child job ${childId}` : `child job ${childId} (queue '${queue}')`;
    super('CHILD_JOB_FAILED', `${where} ended ${status}${errorSuffix(error)}`, {
      childId,
      queue,
      status,
      error,
    });
    this.childId = childId;
    this.queue = queue;
    this.status = status;
  }
}
