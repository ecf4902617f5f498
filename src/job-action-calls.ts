import { JobQueryCalls } from './job-query-calls.js';
import * as bulk from './jobs/bulk-actions.js';
import { deleteJob, deleteWorkflowSubtree } from './jobs/delete-jobs.js';
import { cancelJob, pauseJob, resumeJob, runNow } from './jobs/job-actions.js';
import { retryJob } from './jobs/retry-job.js';
import type { Job } from './model/job.js';

/**
 * The calls that change jobs one by one or by filter: cancel, retry, run now, pause, resume
 * and delete, each through the same rules as the dashboard's and the CLI's buttons.
 * `Tidemark` extends it.
 */
export abstract class JobActionCalls extends JobQueryCalls {
  /** Cancel a job and its in-flight descendants. A running handler's AbortSignal fires. */
  async cancelJob(id: string): Promise<Job> {
    return this.onJob(id, cancelJob);
  }

  /** Run a finished or retry-waiting job again now (UniqueKeyConflictError if its key is taken). */
  async retryJob(id: string): Promise<Job> {
    return this.onJob(id, retryJob);
  }

  /** Retry every job matching a filter, in bounded batches; refusals are counted, `dryRun` only counts. */
  async retryJobs(filter: bulk.BulkJobFilter, options?: bulk.BulkActionOptions): Promise<bulk.BulkOutcome> {
    return this.whenReady((core) => bulk.bulkAction(core, 'retry', filter, options));
  }

  /** Cancel every job matching a filter (with in-flight descendants), as `retryJobs` retries. */
  async cancelJobs(filter: bulk.BulkJobFilter, options?: bulk.BulkActionOptions): Promise<bulk.BulkOutcome> {
    return this.whenReady((core) => bulk.bulkAction(core, 'cancel', filter, options));
  }

  /**
   * Run a scheduled (pending, due later) or retry-waiting job now rather than at its time; one
   * already due stays as it is. Its attempts and its place among its key's jobs are kept, and it
   * waits for a free slot like any due job. Finished, running, waiting or paused jobs are
   * refused with InvalidJobStateError, and nothing is written.
   */
  async runNow(id: string): Promise<Job> {
    return this.onJob(id, runNow);
  }

  /**
   * Run now every job matching a filter (status `pending` or `retry`, or `ids`), in bounded
   * batches, as `retryJobs` retries; `dryRun` only counts.
   */
  async runJobsNow(filter: bulk.BulkJobFilter, options?: bulk.BulkActionOptions): Promise<bulk.BulkOutcome> {
    return this.whenReady((core) => bulk.bulkAction(core, 'run-now', filter, options));
  }

  /** Hold a pending, retry-waiting or waiting job until resumed. */
  async pauseJob(id: string): Promise<Job> {
    return this.onJob(id, pauseJob);
  }

  async resumeJob(id: string): Promise<Job> {
    return this.onJob(id, resumeJob);
  }

  /** Delete a finished job now (not one in flight, with children, held or inside a workflow tree). */
  async deleteJob(id: string): Promise<void> {
    return this.onJob(id, deleteJob);
  }

  /** Delete a finished job and all its descendants, on the same conditions as deleteJob. */
  async deleteWorkflowSubtree(id: string): Promise<number> {
    return this.onJob(id, deleteWorkflowSubtree);
  }
}
