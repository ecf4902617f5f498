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

/** Reopen the job's tree; with a filter, only while the job still matches it (nothing otherwise). */
export async function retrySubtree(
  db: Runner,
  id: string,
  match: JobFilterParams = ANY_JOB,
): Promise<string[]> {
  const rows = await retryOnDeadlock(() =>
    db.run(actions.retrySubtree, { ...match, id, channel: db.channel }),
  );
  return rows.map((r) => String(r.id));
}

export async function pauseJob(db: Runner, id: string): Promise<boolean> {
  return (await db.run(actions.pauseJob, { id })).length > 0;
}

export async function resumeJob(db: Runner, id: string): Promise<boolean> {
  return (await db.run(actions.resumeJob, { id, channel: db.channel })).length > 0;
}
