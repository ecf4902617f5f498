import type { EngineCore } from '../engine-core.js';
import { InvalidJobStateError, JobNotFoundError } from '../errors.js';
import type { Job } from '../model/job.js';

/** The job as stored now; JobNotFoundError when there is none. */
export async function existingJob(core: EngineCore, id: string): Promise<Job> {
  const job = await core.storage.jobs.getJob(id);
  if (!job) throw new JobNotFoundError(id);
  return job;
}

/** Cancel a job and its in-flight descendants; the job as it is after. */
export async function cancelJob(core: EngineCore, jobId: string): Promise<Job> {
  return (await cancelJobTree(core, jobId)).job;
}

/** The same, saying which jobs of the tree it cancelled (none when the job had finished). */
export async function cancelJobTree(
  core: EngineCore,
  jobId: string,
): Promise<{ job: Job; cancelled: string[] }> {
  const cancelled = await core.storage.actions.cancelSubtree(jobId);
  return { job: await existingJob(core, jobId), cancelled };
}

/**
 * Run a scheduled or retry-waiting job now rather than at its time; one already due is left
 * as it is. Any other state is refused with InvalidJobStateError, and nothing is written.
 */
export async function runNow(core: EngineCore, jobId: string): Promise<Job> {
  if (!(await core.storage.actions.runJobNow(jobId))) {
    const job = await existingJob(core, jobId);
    throw new InvalidJobStateError(jobId, job.status, 'only pending or retry-waiting jobs can be run now');
  }
  return existingJob(core, jobId);
}

/** Hold a pending, retry-waiting or waiting job; a job already paused stays so. */
export async function pauseJob(core: EngineCore, jobId: string): Promise<Job> {
  return (await pauseJobChanged(core, jobId)).job;
}

/** The same, saying whether it paused the job (false: it was paused already). */
export async function pauseJobChanged(
  core: EngineCore,
  jobId: string,
): Promise<{ job: Job; changed: boolean }> {
  const changed = await core.storage.actions.pauseJob(jobId);
  if (!changed) {
    const job = await existingJob(core, jobId);
    if (job.status !== 'paused') {
      throw new InvalidJobStateError(jobId, job.status, 'only pending, retry or waiting jobs can be paused');
    }
  }
  return { job: await existingJob(core, jobId), changed };
}

/** Let a paused job run again; any other state is refused with InvalidJobStateError. */
export async function resumeJob(core: EngineCore, jobId: string): Promise<Job> {
  if (!(await core.storage.actions.resumeJob(jobId))) {
    const job = await existingJob(core, jobId);
    throw new InvalidJobStateError(jobId, job.status, 'only paused jobs can be resumed');
  }
  return existingJob(core, jobId);
}
