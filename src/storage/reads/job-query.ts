import type { Job } from '../../model/job.js';
import { toJob } from '../rows.js';
import type { Runner } from '../runner.js';
import {
  QUERY_COUNTS,
  QUERY_PAGES,
  type QueryOrder,
  type QueryPath,
  type QueryWindow,
} from '../sql/job-query.js';

export type { QueryOrder, QueryPath, QueryWindow } from '../sql/job-query.js';

/** One page of whole jobs by the walk `path`, in id order `order`: at most `window.limit`. */
export async function queryJobs(
  db: Runner,
  path: QueryPath,
  order: QueryOrder,
  window: QueryWindow,
): Promise<Job[]> {
  const rows = await db.run(QUERY_PAGES[path][order], window);
  return rows.map(toJob);
}

/** The jobs the walk `path` finds matching, counted up to `window.limit`. */
export async function countJobsUpTo(db: Runner, path: QueryPath, window: QueryWindow): Promise<number> {
  const [row] = await db.run(QUERY_COUNTS[path], window);
  return row?.n ?? 0;
}
