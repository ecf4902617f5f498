import type { ArchivedJob } from '../model/archive.js';
import type { Queryable } from './driver/driver.js';
import { type JobRow, toJob } from './rows.js';
import type { Runner } from './runner.js';
import { getJobs } from './sql/jobs.js';
import { checkpointsOfJobs, signalsOfJobs } from './sql/retention-sweep.js';

/** These jobs with their checkpoints and signals, in id order, read on `tx`. */
export async function readArchivedJobs(db: Runner, ids: string[], tx: Queryable): Promise<ArchivedJob[]> {
  const [jobs, checkpoints, signals] = [
    await db.run<{ ids: string[] }, JobRow>(getJobs, { ids }, tx),
    await db.run<{ ids: string[] }, Record<string, unknown>>(checkpointsOfJobs, { ids }, tx),
    await db.run<{ ids: string[] }, Record<string, unknown>>(signalsOfJobs, { ids }, tx),
  ];
  return toArchived(jobs, checkpoints, signals);
}

function toArchived(
  jobs: JobRow[],
  checkpoints: Record<string, unknown>[],
  signals: Record<string, unknown>[],
): ArchivedJob[] {
  const byId = new Map<string, ArchivedJob>();
  for (const row of jobs) byId.set(String(row.id), { job: toJob(row), checkpoints: [], signals: [] });
  for (const c of checkpoints) {
    byId.get(String(c.job_id))?.checkpoints.push({
      name: c.name as string,
      kind: c.kind as string,
      output: c.output,
      createdAt: c.created_at as Date,
    });
  }
  for (const s of signals) {
    byId.get(String(s.job_id))?.signals.push({
      id: String(s.id),
      name: s.name as string,
      payload: s.payload,
      createdAt: s.created_at as Date,
      consumedAt: (s.consumed_at ?? null) as Date | null,
      consumedBy: (s.consumed_by ?? null) as string | null,
      purgeAfter: (s.purge_after ?? null) as Date | null,
      state: s.consumed_at ? 'consumed' : 'pending',
    });
  }
  return [...byId.values()].sort((a, b) => Number(a.job.id) - Number(b.job.id));
}
