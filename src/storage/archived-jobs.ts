import type { ArchivedJob } from '../model/archive.js';
import type { Queryable } from './driver/driver.js';
import { toCheckpoint, toJob, toSignal } from './rows.js';
import type { Runner } from './runner.js';
import type { JobRow } from './sql/job-columns.js';
import { getJobs } from './sql/jobs.js';
import { checkpointsOfJobs, signalsOfJobs } from './sql/retention-sweep.js';
import type { StoredCheckpoint, StoredSignal } from './sql/workflow.js';

/** These jobs with their checkpoints and signals, in id order, read on `tx`. */
export async function readArchivedJobs(db: Runner, ids: string[], tx: Queryable): Promise<ArchivedJob[]> {
  const [jobs, checkpoints, signals] = [
    await db.run(getJobs, { ids }, tx),
    await db.run(checkpointsOfJobs, { ids }, tx),
    await db.run(signalsOfJobs, { ids }, tx),
  ];
  return toArchived(jobs, checkpoints, signals);
}

function toArchived(
  jobs: JobRow[],
  checkpoints: (StoredCheckpoint & { job_id: string })[],
  signals: (StoredSignal & { job_id: string })[],
): ArchivedJob[] {
  const byId = new Map<string, ArchivedJob>();
  for (const row of jobs) byId.set(String(row.id), { job: toJob(row), checkpoints: [], signals: [] });
  for (const c of checkpoints) {
    byId.get(String(c.job_id))?.checkpoints.push(toCheckpoint(c));
  }
  for (const s of signals) {
    byId.get(String(s.job_id))?.signals.push(toSignal(s));
  }
  return [...byId.values()].sort((a, b) => Number(a.job.id) - Number(b.job.id));
}
