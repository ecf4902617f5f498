import type { Runner } from './runner.js';
import { bulkBatchByIds, bulkBatchByStatus, bulkCeiling } from './sql/bulk.js';
import type { JobFilterParams } from './sql/job-filter.js';

/** Where a bulk action's walk stops: the highest job id now ('0' with no jobs). */
export async function highestJobId(db: Runner): Promise<string> {
  const [row] = await db.run(bulkCeiling, {});
  return String(row.ceiling);
}

/** The keyset of one bulk selection: ids above `after`, at most `ceiling`, `limit` of them. */
export interface BulkWindow {
  match: JobFilterParams;
  after: string;
  ceiling: string;
  limit: number;
}

/** The next batch of jobs of one status in these queues that match the filter, oldest id first. */
export async function nextBatchByStatus(
  db: Runner,
  window: BulkWindow,
  queues: string[],
  status: string,
): Promise<string[]> {
  const { match, ...keys } = window;
  const rows = await db.run(bulkBatchByStatus, { ...match, ...keys, queues, status });
  return rows.map((row) => String(row.id));
}

/** The next batch of the jobs chosen by id that also match the filter. */
export async function nextBatchByIds(db: Runner, window: BulkWindow, ids: string[]): Promise<string[]> {
  const { match, ...keys } = window;
  const rows = await db.run(bulkBatchByIds, { ...match, ...keys, ids });
  return rows.map((row) => String(row.id));
}
