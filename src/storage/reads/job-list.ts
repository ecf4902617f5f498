import type { Runner } from '../runner.js';
import type { JobFilterParams } from '../sql/job-filter.js';
import {
  type FinishedListRow,
  type JobListRow,
  jobAtOrAfter,
  jobIdBounds,
  listJobsAll,
  listJobsAllNewer,
  listJobsByFinished,
  listJobsByFinishedInQueue,
  listJobsByQueueStatus,
  listJobsByQueueStatusNewer,
} from '../sql/job-list.js';

export type { FinishedListRow, JobListRow } from '../sql/job-list.js';

/** Which way a page walks the ids: down from `before` (older) or up from `floor` (newer). */
export type ListWalk = 'older' | 'newer';

/** The ids a page may hold (floor ≤ id < before), how many rows at most, and its filter. */
export interface ListWindow {
  match: JobFilterParams;
  floor: string;
  before: string;
  limit: number;
  /** Walk these (queue, status) pairs by their index; null walks the primary key. */
  pairs: { queues: string[]; statuses: string[] } | null;
}

/** The lowest and highest job id; nulls with no jobs. */
export async function jobIdRange(db: Runner): Promise<{ lo: string | null; hi: string | null }> {
  const [row] = await db.run(jobIdBounds, {});
  return { lo: row?.lo ?? null, hi: row?.hi ?? null };
}

/** The first job at or after this id, with its creation time; null past the last. */
export async function firstJobFrom(db: Runner, id: string): Promise<{ id: string; createdAt: Date } | null> {
  const [row] = await db.run(jobAtOrAfter, { id });
  return row ? { id: String(row.id), createdAt: new Date(row.created_at) } : null;
}

/** One page of the job list: an index walk that stops after `limit` rows. */
export function listJobPage(db: Runner, walk: ListWalk, window: ListWindow): Promise<JobListRow[]> {
  const params = { ...window.match, before: window.before, floor: window.floor, limit: window.limit };
  if (window.pairs === null) return db.run(walk === 'older' ? listJobsAll : listJobsAllNewer, params);
  return db.run(walk === 'older' ? listJobsByQueueStatus : listJobsByQueueStatusNewer, {
    ...params,
    queues: window.pairs.queues,
    statuses: window.pairs.statuses,
  });
}

/** One page of finished jobs, the latest finished first (keyset on finished_at, id). */
export function listFinishedPage(
  db: Runner,
  window: Omit<ListWindow, 'pairs'>,
  after: { us: string; id: string } | null,
): Promise<FinishedListRow[]> {
  const params = {
    ...window.match,
    before: window.before,
    floor: window.floor,
    limit: window.limit,
    after_us: after?.us ?? null,
    after_id: after?.id ?? null,
  };
  return db.run(window.match.queue === null ? listJobsByFinished : listJobsByFinishedInQueue, params);
}
