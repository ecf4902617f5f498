import type { EngineCore } from '../engine-core.js';
import type { DependencyOutcome } from '../model/dependencies.js';
import type { RunHistory } from '../model/history.js';
import type { Job } from '../model/job.js';
import type { JobLogs } from '../model/notes.js';
import type { JobLineage } from '../model/workflow.js';
import type { HoldRecord } from '../retention/holds.js';
import type { CheckpointRow, JobTokenRow, SignalRow } from '../storage/storage.js';
import { getJobLogs } from './job-logs.js';
import { loadRunHistory } from './run-history.js';

/** Everything about one job: for dashboards and debugging. */
export interface JobDetail {
  job: Job;
  checkpoints: CheckpointRow[];
  signals: SignalRow[];
  children: Job[];
  /** Retention holds that keep this job's tree (see `tm.holdJobs`). */
  holds: HoldRecord[];
  /** The first 100 lines of the job's log (`tm.getJobLogs` pages through the rest). */
  logs: JobLogs;
  /** Every attempt, and every event of a workflow's runs, oldest first. */
  history: RunHistory;
  /** The jobs it was added to wait for (`dependsOn`), as they are now, in id order; empty without. */
  dependencies: DependencyOutcome[];
  /** The job it was forked from and the forks made of it (`tm.forkJob`). */
  lineage: JobLineage;
  /** The callback tokens its workflow made (`ctx.createToken`), oldest first; empty without. */
  tokens: JobTokenRow[];
}

/** A job with its checkpoints, signals, children and holds; null when there is no such job. */
export async function getJobDetail(core: EngineCore, jobId: string): Promise<JobDetail | null> {
  const job = await core.storage.jobs.getJob(jobId);
  if (!job) return null;
  const [checkpoints, signals, children, holds, logs, history, dependencies, lineage, tokens] =
    await Promise.all([
      core.storage.workflow.listCheckpoints(jobId),
      core.storage.workflow.listSignals(jobId),
      core.storage.jobs.listChildren(jobId),
      core.storage.controls.holdsOfJob(jobId),
      getJobLogs(core, jobId, {}),
      loadRunHistory(core, job),
      core.storage.jobs.dependenciesOf(jobId),
      core.storage.workflow.jobLineage(jobId),
      core.storage.tokens.listJobTokens(jobId),
    ]);
  const noLogs = { lines: [], dropped: 0, next: null };
  return {
    job,
    checkpoints,
    signals,
    children,
    holds,
    logs: logs ?? noLogs,
    history,
    dependencies,
    lineage,
    tokens,
  };
}
