import { auditEntry, auditOptionsOf, checkAuditOptions } from './audit/audited.js';
import { AuditCalls } from './audit-calls.js';
import { checkSweepRequest, sweepNow } from './maintenance/retention-sweep/sweep-now.js';
import type { AuditOptions } from './model/audit.js';
import { checkInteger } from './options/check.js';
import * as reframe from './retention/apply-retention.js';
import * as holds from './retention/holds.js';
import * as pause from './retention/pause.js';
import { type RemoveJobsOptions, removeJobs } from './retention/remove-jobs.js';
import type { SweepOutcome, SweepPreview, SweepRecord } from './retention/sweep-types.js';

/**
 * The retention calls of the Tidemark engine: sweeps, bulk removal, the cluster-wide pause,
 * holds and re-freezing. `Tidemark` extends it; see retention.md.
 */
export abstract class RetentionCalls extends AuditCalls {
  /** Purge finished jobs older than a cutoff, whole trees, holds kept; refused while paused. Audited unless `dryRun`. */
  async removeJobs(options: RemoveJobsOptions = {}): Promise<number> {
    if (options?.dryRun === true) return this.whenReady((core) => removeJobs(core, options));
    const { queue, statuses, olderThanSeconds } = options ?? {};
    const filter = { queue, statuses, olderThanSeconds };
    return this.audit(
      auditOptionsOf(options),
      'purge',
      { filter },
      (core) => removeJobs(core, options),
      (n) => n,
    );
  }
  /** One full retention pass now: what it deleted, or with `{ dryRun: true }` would; `batchSize` 1..10000. */
  sweep(options?: { dryRun?: false; batchSize?: number }): Promise<SweepOutcome>;
  sweep(options: { dryRun: true }): Promise<SweepPreview>;
  sweep(options?: { dryRun?: boolean; batchSize?: number }): Promise<SweepOutcome | SweepPreview>;
  async sweep(options: { dryRun?: boolean; batchSize?: number } = {}): Promise<SweepOutcome | SweepPreview> {
    const request = checkSweepRequest(options);
    return this.whenReady((core) => sweepNow(core, request));
  }

  /** Stop all deletion cluster-wide and durably until `resumeRetention()`; `deleteJob` still works. */
  async pauseRetention(options: pause.PauseRetentionOptions): Promise<pause.RetentionStatus> {
    const target = { detail: options?.reason };
    return this.audit(auditOptionsOf(options), 'pause-retention', target, (core) =>
      pause.pauseRetention(core, options),
    );
  }

  /** Let sweeps and bulk removal delete again. */
  async resumeRetention(options?: AuditOptions): Promise<pause.RetentionStatus> {
    return this.audit(options, 'resume-retention', {}, pause.resumeRetention);
  }

  /** The cluster-wide pause switch (`{ paused, reason, since, pausedBy }`) and how many holds there are. */
  async retentionStatus(): Promise<pause.RetentionStatus> {
    return this.whenReady(pause.retentionStatus);
  }

  /** Keep jobs (by id or a whole queue) and their trees through every deletion until released. */
  async holdJobs(options: holds.HoldJobsOptions): Promise<holds.HoldResult> {
    const by = checkAuditOptions(auditOptionsOf(options));
    const { queue, reason, ids } = options ?? {};
    const entry = auditEntry(by, 'hold', { queue, detail: reason, ...(ids ? { filter: { ids } } : {}) });
    return this.whenReady((core) => holds.holdJobs(core, options, entry));
  }

  async releaseHold(holdId: string, options?: AuditOptions): Promise<void> {
    return this.audit(options, 'release-hold', { holdId: String(holdId) }, (core) =>
      holds.releaseHold(core, holdId),
    );
  }

  /** Every retention hold in place, oldest first. */
  async listHolds(): Promise<holds.HoldRecord[]> {
    return this.whenReady((core) => core.storage.controls.listHolds());
  }

  /** Re-freeze the retention windows of a queue's stored jobs; bounded batches, `dryRun` counts. */
  async applyRetention(options: reframe.ApplyRetentionOptions): Promise<reframe.ApplyRetentionResult> {
    // Read through its option set first: an option that throws when read is refused by name.
    const { dryRun, queue, actor, source } = reframe.applyRetentionOptions.read(options, '', []);
    if (dryRun) return this.whenReady((core) => reframe.applyRetention(core, options));
    const target = { queue };
    return this.audit(
      auditOptionsOf({ actor, source }),
      'apply-retention',
      target,
      (core) => reframe.applyRetention(core, options),
      (r) => r.jobs,
    );
  }

  /** The most recent sweeps (newest first, up to `limit`, default 20) and what they deleted. */
  async listSweeps(limit = 20): Promise<SweepRecord[]> {
    const n = checkInteger(limit, 'limit', 1, 500);
    return this.whenReady((core) => core.storage.reads.listSweepRecords(n));
  }
}
