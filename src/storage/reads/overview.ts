import type { JobStatus } from '../../job-status.js';
import type { Runner } from '../runner.js';
import {
  type BoundedCountRow,
  cappedStatusCounts,
  indexWalksOnly,
  type JobEstimatesRow,
  jobEstimates,
  throughputLastHour,
} from '../sql/admin.js';
import { countByQueueAndStatus, type DueSplitRow, dueSplitCapped } from '../sql/stats.js';

export type { BoundedCountRow, JobEstimatesRow } from '../sql/admin.js';
export type { DueSplitRow } from '../sql/stats.js';

/**
 * Jobs per queue and status, each cell counted up to `cap`, in a transaction planned with
 * ordered index walks only (see `indexWalksOnly`).
 */
export function countStatusesCapped(
  db: Runner,
  queues: string[],
  statuses: readonly string[],
  cap: number,
): Promise<BoundedCountRow[]> {
  return db.driver.transaction(async (tx) => {
    await db.run(indexWalksOnly, {}, tx);
    const rows = await db.run(cappedStatusCounts, { queues, statuses: [...statuses], cap }, tx);
    return rows.map((row) => ({ ...row, n: Number(row.n) }));
  });
}

/**
 * Waiting jobs per queue and status split into due now and due later, each cell read up to
 * `cap` rows (oldest first) in a transaction planned with ordered index walks only.
 */
export function splitDueCapped(
  db: Runner,
  queues: string[],
  statuses: readonly string[],
  cap: number,
): Promise<DueSplitRow[]> {
  return db.driver.transaction(async (tx) => {
    await db.run(indexWalksOnly, {}, tx);
    const rows = await db.run(dueSplitCapped, { queues, statuses: [...statuses], cap }, tx);
    return rows.map((row) => ({
      ...row,
      seen: Number(row.seen),
      ready: Number(row.ready),
      oldest_ready_seconds: row.oldest_ready_seconds === null ? null : Number(row.oldest_ready_seconds),
    }));
  });
}

/** The planner's statistics of the jobs table (row estimate, common queues and statuses). */
export async function estimateJobs(db: Runner): Promise<JobEstimatesRow | null> {
  const [row] = await db.run(jobEstimates, { schema: db.schema });
  return row ?? null;
}

/** Jobs finished in the last hour per queue, status and minute, from at most `maxRows` of them. */
export async function finishedLastHour(
  db: Runner,
  maxRows: number,
): Promise<{ queue: string; status: string; minuteAgo: number; n: number }[]> {
  const rows = await db.run(throughputLastHour, { max_rows: maxRows });
  return rows.map((row) => ({
    queue: row.queue,
    status: row.status,
    minuteAgo: Number(row.minute_ago),
    n: Number(row.n),
  }));
}

/** Every job counted by queue and status, exactly (a full scan), optionally those created since. */
export async function countJobsExactly(
  db: Runner,
  since: Date | null,
): Promise<{ queue: string; status: JobStatus; n: number }[]> {
  const rows = await db.run(countByQueueAndStatus, { since });
  return rows.map((row) => ({ queue: row.queue, status: row.status, n: Number(row.n) }));
}
