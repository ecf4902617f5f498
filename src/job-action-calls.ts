import { type AuditBy, auditEntry, audited, auditOptionsOf, checkAuditOptions } from './audit/audited.js';
import type { EngineCore } from './engine-core.js';
import { JobQueryCalls } from './job-query-calls.js';
import * as bulk from './jobs/bulk-actions.js';
import { deleteJob, deleteWorkflowSubtree } from './jobs/delete-jobs.js';
import { type ForkJobOptions, forkJob } from './jobs/fork-job.js';
import { cancelJobTree, pauseJobChanged, resumeJob, runNow } from './jobs/job-actions.js';
import { retryJobTree } from './jobs/retry-job.js';
import type { AuditAction, AuditOptions } from './model/audit.js';
import type { Job } from './model/job.js';

/**
 * The calls that change jobs one by one or by filter: cancel, retry, run now, pause, resume
 * and delete, each through the same rules as the dashboard's and the CLI's buttons. Each takes
 * an optional `{ actor }` (AuditOptions) and is recorded in the audit (see `tm.listAudit`).
 * `Tidemark` extends it.
 */
export abstract class JobActionCalls extends JobQueryCalls {
  /** Cancel a job and its in-flight descendants. A running handler's AbortSignal fires. */
  async cancelJob(id: string, options?: AuditOptions): Promise<Job> {
    const by = checkAuditOptions(options);
    return this.onJob(id, async (core, jobId) => {
      const done = await audited(
        core,
        auditEntry(by, 'cancel', { jobId }),
        () => cancelJobTree(core, jobId),
        (r) => r.cancelled.length,
      );
      return done.job;
    });
  }

  /**
   * A new job of the same queue that starts again from a point of this one, keeping the results
   * it recorded before that point: `{ from: { step: name } }` or, for a failed job,
   * `{ from: { failure: true } }`, with the original's data or `data`. The fork is its own tree
   * and points back (`getJobDetail(id).lineage`); the original is left as it is.
   * InvalidOptionError names a fork point that does not exist.
   */
  async forkJob(id: string, options: ForkJobOptions & AuditOptions): Promise<Job> {
    const by = checkAuditOptions(auditOptionsOf(options));
    return this.onJob(id, (core, jobId) =>
      audited(core, auditEntry(by, 'fork', { jobId }), () => forkJob(core, jobId, options)),
    );
  }

  /**
   * Fork every job matching a filter (a status or ids is required, as for every bulk action),
   * as `forkJob` does each; `dryRun` counts them. A job without the fork point is refused by
   * reason (`no-fork-point`, `not-failed`) and the rest go on.
   */
  async forkJobs(
    filter: bulk.BulkJobFilter,
    options: bulk.BulkActionOptions & Pick<ForkJobOptions, 'from'>,
  ): Promise<bulk.BulkOutcome> {
    return this.bulk('fork', filter, options);
  }

  /** Run a finished or retry-waiting job again now (UniqueKeyConflictError if its key is taken). */
  async retryJob(id: string, options?: AuditOptions): Promise<Job> {
    const by = checkAuditOptions(options);
    return this.onJob(id, async (core, jobId) => {
      const done = await audited(
        core,
        auditEntry(by, 'retry', { jobId }),
        () => retryJobTree(core, jobId),
        (r) => r.reopened.length,
      );
      return done.job;
    });
  }

  /** Retry every job matching a filter, in bounded batches; refusals are counted, `dryRun` only counts. */
  async retryJobs(filter: bulk.BulkJobFilter, options?: bulk.BulkActionOptions): Promise<bulk.BulkOutcome> {
    return this.bulk('retry', filter, options);
  }

  /** Cancel every job matching a filter (with in-flight descendants), as `retryJobs` retries. */
  async cancelJobs(filter: bulk.BulkJobFilter, options?: bulk.BulkActionOptions): Promise<bulk.BulkOutcome> {
    return this.bulk('cancel', filter, options);
  }

  /**
   * Run a scheduled (pending, due later) or retry-waiting job now rather than at its time; one
   * already due stays as it is. Its attempts and its place among its key's jobs are kept, and it
   * waits for a free slot like any due job. Finished, running, waiting or paused jobs are
   * refused with InvalidJobStateError, and nothing is written.
   */
  async runNow(id: string, options?: AuditOptions): Promise<Job> {
    return this.onJobAudited(id, options, 'run-now', runNow);
  }

  /**
   * Run now every job matching a filter (status `pending` or `retry`, or `ids`), in bounded
   * batches, as `retryJobs` retries; `dryRun` only counts.
   */
  async runJobsNow(filter: bulk.BulkJobFilter, options?: bulk.BulkActionOptions): Promise<bulk.BulkOutcome> {
    return this.bulk('run-now', filter, options);
  }

  /** Hold a pending, retry-waiting or waiting job until resumed (one already paused stays so). */
  async pauseJob(id: string, options?: AuditOptions): Promise<Job> {
    const by = checkAuditOptions(options);
    return this.onJob(id, async (core, jobId) => {
      const done = await audited(
        core,
        auditEntry(by, 'pause', { jobId }),
        () => pauseJobChanged(core, jobId),
        (r) => (r.changed ? 1 : 0),
      );
      return done.job;
    });
  }

  /** Let a paused job run again (InvalidJobStateError for any other state). */
  async resumeJob(id: string, options?: AuditOptions): Promise<Job> {
    return this.onJobAudited(id, options, 'resume', resumeJob);
  }

  /** Delete a finished job now (not one in flight, with children, held or inside a workflow tree). */
  async deleteJob(id: string, options?: AuditOptions): Promise<void> {
    const by = checkAuditOptions(options);
    return this.onJob(id, (core, jobId) => deleteJob(core, jobId, auditEntry(by, 'delete', { jobId })));
  }

  /** Delete a finished job and all its descendants, on the same conditions as deleteJob. */
  async deleteWorkflowSubtree(id: string, options?: AuditOptions): Promise<number> {
    const by = checkAuditOptions(options);
    return this.onJob(id, (core, jobId) =>
      deleteWorkflowSubtree(core, jobId, auditEntry(by, 'delete-subtree', { jobId })),
    );
  }

  private async onJobAudited(
    id: string,
    options: AuditOptions | undefined,
    action: AuditAction,
    run: (core: EngineCore, jobId: string) => Promise<Job>,
  ): Promise<Job> {
    const by = checkAuditOptions(options);
    return this.onJob(id, (core, jobId) =>
      audited(core, auditEntry(by, action, { jobId }), () => run(core, jobId)),
    );
  }

  private async bulk(
    action: bulk.BulkActionName,
    filter: bulk.BulkJobFilter,
    options: bulk.BulkActionOptions = {},
  ): Promise<bulk.BulkOutcome> {
    const { actor, source, ...rest } = options;
    const by: AuditBy = checkAuditOptions(
      actor === undefined && source === undefined ? undefined : { actor, source },
    );
    return this.whenReady(async (core) => {
      const outcome = await bulk.bulkAction(core, action, filter, rest);
      if (!outcome.dryRun) {
        const target = { filter: { ...filter, throughId: outcome.throughId } };
        await core.storage.audit.record({ ...auditEntry(by, `bulk-${action}`, target), rows: outcome.done });
      }
      return outcome;
    });
  }
}
