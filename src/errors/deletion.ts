import { TidemarkError } from './base.js';
import { JobInFlightError } from './jobs.js';

/**
 * Deleting a finished job is refused while an ancestor of it is in flight: the ancestor's
 * replay would create the deleted child again and run its handler twice. `jobId` is the
 * job asked for; `ancestorId` and `status` name the ancestor in flight.
 */
export class AncestorInFlightError extends JobInFlightError {
  readonly ancestorId: string;
  constructor(jobId: string, ancestorId: string, ancestorStatus: string) {
    super(jobId, ancestorStatus);
    this.recode('ANCESTOR_IN_FLIGHT');
    this.message = `job ${jobId} cannot be deleted while its ancestor ${ancestorId} is ${ancestorStatus}: the ancestor's replay would create it again; cancel or finish job ${ancestorId} first`;
    Object.assign(this.details, { ancestorId, ancestorStatus });
    this.ancestorId = ancestorId;
  }
}

/**
 * A job below the top of a workflow tree cannot be deleted on its own, even when the whole
 * tree has finished: a retry of the workflow would replay it and create the job again, so
 * its work would run twice. Delete the tree from its top.
 */
export class PartOfWorkflowError extends TidemarkError {
  readonly jobId: string;
  readonly topId: string;
  constructor(jobId: string, topId: string) {
    super(
      'PART_OF_WORKFLOW',
      `job ${jobId} belongs to the workflow tree of job ${topId}: a retry of job ${topId} would create it again, so the tree goes whole; delete it with deleteWorkflowSubtree('${topId}')`,
      { jobId, topId },
    );
    this.jobId = jobId;
    this.topId = topId;
  }
}

/** A hold keeps this job's tree: release the hold first. */
export class JobHeldError extends TidemarkError {
  readonly jobId: string;
  readonly holdId: string;
  constructor(jobId: string, holdId: string, reason: string) {
    super(
      'JOB_HELD',
      `job ${jobId} is kept by retention hold ${holdId} (${reason}): release the hold with tm.releaseHold('${holdId}') first`,
      { jobId, holdId, reason },
    );
    this.jobId = jobId;
    this.holdId = holdId;
  }
}

/** No retention hold has this id (it was released, or never existed). */
export class HoldNotFoundError extends TidemarkError {
  readonly holdId: string;
  constructor(holdId: string) {
    super('HOLD_NOT_FOUND', `retention hold ${holdId} not found`, { holdId });
    this.holdId = holdId;
  }
}

/**
 * Retention is paused cluster-wide (`tm.pauseRetention`), so a bulk removal is refused.
 * `details.deleted` counts what a removal had deleted before the pause stopped it.
 */
export class RetentionPausedError extends TidemarkError {
  readonly reason: string | null;
  readonly since: Date | null;
  constructor(reason: string | null, since: Date | null, deleted = 0) {
    super(
      'RETENTION_PAUSED',
      `retention is paused${reason ? ` (${reason})` : ''}${since ? ` since ${since.toISOString()}` : ''}: nothing is removed in bulk until it is resumed (tm.resumeRetention(), or tidemark retention resume)${deleted > 0 ? `; ${deleted} jobs were deleted before the pause` : ''}`,
      { reason, since, deleted },
    );
    this.reason = reason;
    this.since = since;
  }
}

/** `deleteJob` refuses a job that has children; use `deleteWorkflowSubtree`. */
export class JobHasChildrenError extends TidemarkError {
  readonly jobId: string;
  constructor(jobId: string) {
    super('JOB_HAS_CHILDREN', `job ${jobId} has child jobs: use deleteWorkflowSubtree`, { jobId });
    this.jobId = jobId;
  }
}

/** The storage has no retention capability, so it cannot sweep or purge. */
export class RetentionUnsupportedError extends TidemarkError {
  constructor(operation: string) {
    super('RETENTION_UNSUPPORTED', `${operation} needs the storage's retention capability, which it lacks`, {
      operation,
    });
  }
}

/**
 * A deletion batch met holds placed or released after its snapshot `attempts` times in a
 * row, and deleted nothing in its last attempt. What earlier batches deleted stays deleted
 * (`details.deleted` of this call); call again, or once the holds settle, to go on.
 */
export class HoldsChangingError extends TidemarkError {
  constructor(attempts: number, deleted = 0) {
    super(
      'HOLDS_CHANGING',
      `retention holds changed ${attempts} times while one batch tried to delete; that batch deleted nothing${deleted > 0 ? ` (${deleted} jobs were deleted before it)` : ''}: try again once the holds settle`,
      { attempts, deleted },
    );
  }
}
