import type { EngineCore } from '../engine-core.js';
import { InvalidJobStateError, JobNotFoundError, UniqueKeyConflictError } from '../errors.js';
import type { Job } from '../storage/rows.js';
import { uniqueKeyConflict } from '../storage/sql/job-actions.js';
import { ANY_JOB, type JobFilterParams } from '../storage/sql/job-filter.js';

/** SQLSTATE unique_violation, and the index that keeps one in-flight job per `unique` key. */
const UNIQUE_VIOLATION = '23505';
const UNIQUE_KEY_INDEX = 'jobs_unique_key_idx';

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
  const reopened = await reopenSubtree(core, jobId);
  const job = await core.storage.getJob(jobId);
  if (!job) throw new JobNotFoundError(jobId);
  if (!reopened.includes(jobId)) {
    throw new InvalidJobStateError(jobId, job.status, 'only finished or retry-waiting jobs can be retried');
  }
  return { job, reopened };
}

/**
 * Reopen the job's tree in one statement, only while the job still matches `match` (every
 * job for a single retry); the ids reopened, none when it was left as it was.
 */
export async function reopenSubtree(
  core: EngineCore,
  jobId: string,
  match: JobFilterParams = ANY_JOB,
): Promise<string[]> {
  let reopened: string[] | undefined;
  for (let attempt = 1; reopened === undefined; attempt++) {
    try {
      reopened = await core.storage.retrySubtree(jobId, match);
    } catch (error) {
      if (!isUniqueKeyViolation(error)) throw error;
      const [conflict] = await core.storage.run(uniqueKeyConflict, { id: jobId });
      // The holder finished between the two statements: the key is free, so try again.
      if (conflict && conflict.holder_id === null && attempt < 3) continue;
      if (!conflict) throw error;
      throw new UniqueKeyConflictError(
        jobId,
        conflict.queue,
        userKey(conflict.unique_key),
        conflict.holder_id,
        error,
      );
    }
  }
  return reopened;
}

function isUniqueKeyViolation(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return code === UNIQUE_VIOLATION && constraint === UNIQUE_KEY_INDEX;
}

/** The key as the job's `unique` option gave it; a key taken from the data stays `data:<hash>`. */
function userKey(stored: string): string {
  return stored.startsWith('key:') ? stored.slice('key:'.length) : stored;
}
