import type { JobStatus } from '../job-status.js';
import type { FrozenRetention, Job, JobError } from '../model/job.js';

export type { FrozenRetention, Job, JobError } from '../model/job.js';

export type JobRow = Record<string, unknown>;

export function toJob(row: JobRow): Job {
  return {
    id: String(row.id),
    queue: row.queue as string,
    status: row.status as JobStatus,
    data: row.data,
    output: (row.output ?? null) as unknown,
    error: (row.error ?? null) as JobError | null,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    priority: Number(row.priority),
    runAt: toDate(row.run_at) as Date,
    expireAt: toDate(row.expire_at),
    createdAt: toDate(row.created_at) as Date,
    startedAt: toDate(row.started_at),
    finishedAt: toDate(row.finished_at),
    parentId: row.parent_id == null ? null : String(row.parent_id),
    rootId: row.root_id == null ? null : String(row.root_id),
    lockedBy: (row.locked_by ?? null) as string | null,
    lockedUntil: toDate(row.locked_until),
    retention: (row.retention ?? {}) as FrozenRetention,
    purgeAfter: toDate(row.purge_after),
  };
}

/**
 * A row the claim just made `active` (see claimJobs): the claim does not return what it
 * implies, so its status, owner and lock expiry are filled in here (its finish and purge
 * times are absent, so null).
 */
export function toClaimedJob(row: JobRow, workerId: string, lockSeconds: number): Job {
  const job = toJob(row);
  job.status = 'active';
  job.lockedBy = workerId;
  job.lockedUntil = new Date((row.started_at as number) + lockSeconds * 1000);
  return job;
}

/** Timestamps arrive as Date on both drivers; `infinity` arrives as a string or Infinity. */
export function toDate(value: unknown): Date | null {
  if (value == null) return null;
  if (value instanceof Date) return value;
  if (value === 'infinity' || value === Number.POSITIVE_INFINITY) return new Date(8.64e15);
  if (value === '-infinity' || value === Number.NEGATIVE_INFINITY) return new Date(-8.64e15);
  return new Date(value as string);
}
