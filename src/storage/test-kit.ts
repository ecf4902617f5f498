import type { Job } from '../model/job.js';
import { toJob } from './rows.js';
import type { Runner } from './runner.js';
import * as sql from './sql/test-kit.js';

/** Move the test kit's clock to `at` (an engine opened with `testClockAt` only). */
export async function setTestClock(db: Runner, at: Date): Promise<void> {
  await db.run(sql.setTestClock, { at });
}

/** How many jobs of `queues` a worker could claim now. */
export async function countClaimableJobs(db: Runner, queues: string[]): Promise<number> {
  const [row] = await db.run(sql.countClaimableJobs, { queues });
  return row?.n ?? 0;
}

/** The jobs of `queue`, oldest first; of one status when given. */
export async function jobsOfQueue(db: Runner, queue: string, status: string | null): Promise<Job[]> {
  return (await db.run(sql.jobsOfQueue, { queue, status })).map(toJob);
}
