import { UniqueKeyConflictError } from '../errors.js';
import { propertyOf } from '../model/guards.js';
import { sqlState } from './database-errors.js';
import { retryOnDeadlock } from './retry-deadlock.js';
import type { Runner } from './runner.js';
import * as actions from './sql/job-actions.js';
import { ANY_JOB, type JobFilterParams } from './sql/job-filter.js';

/** Cancel the job's tree; with a filter, only while the job still matches it (nothing otherwise). */
export async function cancelSubtree(
  db: Runner,
  id: string,
  match: JobFilterParams = ANY_JOB,
): Promise<string[]> {
  const rows = await retryOnDeadlock(() =>
    db.run(actions.cancelSubtree, { ...match, id, channel: db.channel }),
  );
  return rows.map((r) => String(r.id));
}

/** Make the job due now (see runJobNow); false when it was left as it was. */
export async function runJobNow(db: Runner, id: string, match: JobFilterParams = ANY_JOB): Promise<boolean> {
  const rows = await db.run(actions.runJobNow, { ...match, id, channel: db.channel });
  return rows.length > 0;
}

/** SQLSTATE unique_violation, and the index that keeps one in-flight job per `unique` key. */
const UNIQUE_VIOLATION = '23505';
const UNIQUE_KEY_INDEX = 'jobs_unique_key_idx';

/**
 * Reopen the job's tree in one statement, only while the job still matches `match` (every
 * job for a single retry); the ids reopened, none when it was left as it was. When a `unique`
 * job's key is held by another in-flight job the statement fails whole, and
 * UniqueKeyConflictError says which job holds the key.
 */
export async function retrySubtree(
  db: Runner,
  id: string,
  match: JobFilterParams = ANY_JOB,
): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      const rows = await retryOnDeadlock(() =>
        db.run(actions.retrySubtree, { ...match, id, channel: db.channel }),
      );
      return rows.map((r) => String(r.id));
    } catch (error) {
      if (!isUniqueKeyViolation(error)) throw error;
      const [conflict] = await db.run(actions.uniqueKeyConflict, { id });
      // The holder finished between the two statements: the key is free, so try again.
      if (conflict && conflict.holder_id === null && attempt < 3) continue;
      if (!conflict) throw error;
      throw new UniqueKeyConflictError(
        id,
        conflict.queue,
        userKey(conflict.unique_key),
        conflict.holder_id,
        error,
      );
    }
  }
}

/** The database refused a row because another in-flight job of its queue holds its `unique` key. */
export function isUniqueKeyViolation(error: unknown): boolean {
  return sqlState(error) === UNIQUE_VIOLATION && propertyOf(error, 'constraint') === UNIQUE_KEY_INDEX;
}

/** The key as the job's `unique` option gave it; a key taken from the data stays `data:<hash>`. */
function userKey(stored: string): string {
  return stored.startsWith('key:') ? stored.slice('key:'.length) : stored;
}

export async function pauseJob(db: Runner, id: string): Promise<boolean> {
  return (await db.run(actions.pauseJob, { id })).length > 0;
}

export async function resumeJob(db: Runner, id: string): Promise<boolean> {
  return (await db.run(actions.resumeJob, { id, channel: db.channel })).length > 0;
}
