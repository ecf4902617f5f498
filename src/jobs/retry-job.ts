import type { EngineCore } from '../engine-core.js';
import { InvalidJobStateError, JobNotFoundError } from '../errors.js';
import type { Job } from '../model/job.js';

/**
 * Run a finished (or retry-waiting) job again now, with its failed descendants. The reopening
 * is one statement: when a `unique` job's key is held by another in-flight job it fails whole
 * and UniqueKeyConflictError says which job holds the key.
 */
export async function retryJob(core: EngineCore, jobId: string): Promise<Job> {
  return (await retryJobTree(core, jobId)).job;
}

/** The same, saying which jobs of the tree it reopened, the job itself among them. */
export async function retryJobTree(
  core: EngineCore,
  jobId: string,
): Promise<{ job: Job; reopened: string[] }> {
  const reopened = await core.storage.actions.retrySubtree(jobId);
  const job = await core.storage.jobs.getJob(jobId);
  if (!job) throw new JobNotFoundError(jobId);
  if (!reopened.includes(jobId)) {
    throw new InvalidJobStateError(jobId, job.status, 'only finished or retry-waiting jobs can be retried');
  }
  return { job, reopened };
}
