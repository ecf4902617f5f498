import type { ListAuditOptions } from '../audit/list-audit.js';
import type { ApiEngine } from '../http-api/engine-port.js';
import type { BulkActionOptions, BulkJobFilter, BulkOutcome } from '../jobs/bulk-actions.js';
import type { ForkJobOptions } from '../jobs/fork-job.js';
import type { JobDetail } from '../jobs/job-detail.js';
import type { AuditRecord, AuditOptions as By } from '../model/audit.js';
import type { Job } from '../model/job.js';
import type { KeyInfo, KeyLimit } from '../model/keys.js';
import type { LimiterInfo } from '../model/limiter.js';
import type { ListKeysOptions } from '../queues/key-settings.js';
import type { ApplyRetentionOptions, ApplyRetentionResult } from '../retention/apply-retention.js';
import type { HoldJobsOptions, HoldResult } from '../retention/holds.js';
import type { PauseRetentionOptions, RetentionStatus } from '../retention/pause.js';
import type { RemoveJobsOptions } from '../retention/remove-jobs.js';
import type { SweepPreview } from '../retention/sweep-types.js';
import type { DriverKind } from '../storage/storage.js';

/**
 * The engine as the dashboard uses it: the public calls its pages and buttons make (and the
 * HTTP API's, which it can serve beside them), and the handle its read models (src/admin) read
 * through. A Tidemark engine is one; the dashboard names this port rather than the engine's
 * class, so it depends only on what it calls.
 */
export interface DashboardEngine extends ApiEngine {
  readonly schema: string;
  readonly driverKind: DriverKind;
  listQueues(): Promise<{ name: string; options: Record<string, unknown>; paused: boolean }[]>;
  pauseQueue(name: string, by?: By): Promise<void>;
  resumeQueue(name: string, by?: By): Promise<void>;
  getJobDetail(id: string): Promise<JobDetail | null>;
  pauseJob(id: string, by?: By): Promise<Job>;
  resumeJob(id: string, by?: By): Promise<Job>;
  deleteJob(id: string, by?: By): Promise<void>;
  deleteWorkflowSubtree(id: string, by?: By): Promise<number>;
  removeJobs(options?: RemoveJobsOptions): Promise<number>;
  sweep(options: { dryRun: true }): Promise<SweepPreview>;
  retentionStatus(): Promise<RetentionStatus>;
  pauseRetention(options: PauseRetentionOptions): Promise<RetentionStatus>;
  resumeRetention(by?: By): Promise<RetentionStatus>;
  holdJobs(options: HoldJobsOptions): Promise<HoldResult>;
  releaseHold(holdId: string, by?: By): Promise<void>;
  applyRetention(options: ApplyRetentionOptions): Promise<ApplyRetentionResult>;
  retryJobs(filter: BulkJobFilter, options?: BulkActionOptions): Promise<BulkOutcome>;
  cancelJobs(filter: BulkJobFilter, options?: BulkActionOptions): Promise<BulkOutcome>;
  runJobsNow(filter: BulkJobFilter, options?: BulkActionOptions): Promise<BulkOutcome>;
  runNow(id: string, by?: By): Promise<Job>;
  forkJob(id: string, options: ForkJobOptions & By): Promise<Job>;
  unschedule(name: string, by?: By): Promise<void>;
  pauseSchedule(name: string, by?: By): Promise<void>;
  resumeSchedule(name: string, by?: By): Promise<void>;
  triggerSchedule(name: string, by?: By): Promise<string | null>;
  listKeys(queue: string, options?: ListKeysOptions): Promise<KeyInfo[]>;
  setKeyLimit(queue: string, key: string, limit: KeyLimit | null, by?: By): Promise<void>;
  pauseKey(queue: string, key: string, by?: By): Promise<void>;
  resumeKey(queue: string, key: string, by?: By): Promise<void>;
  listLimiters(): Promise<LimiterInfo[]>;
  listAudit(options?: ListAuditOptions): Promise<AuditRecord[]>;
}
