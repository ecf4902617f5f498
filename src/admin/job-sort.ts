import type { EngineCore } from '../engine-core.js';
import { idRangeOf } from '../jobs/id-range.js';
import { type FinishedListRow, jobFilterParams } from '../storage/storage.js';
import { type JobFilter, PAGE_SIZE } from './job-list.js';

/**
 * The orders of the job list: `created` (newest first, by id: ids grow with creation time)
 * and `finished` (the latest finished first; jobs that have not finished are not listed).
 */
export const JOB_SORTS = ['created', 'finished'] as const;
export type JobSort = (typeof JOB_SORTS)[number];

/** A page cursor of the finished order: the last row's finishing time (µs since the epoch) and id. */
export interface FinishedCursor {
  us: string;
  id: string;
}

/** `?sort=` and, for `finished`, `?cursor=`: read, or the problems found, by parameter name. */
export function parseSort(params: URLSearchParams): {
  sort: JobSort;
  cursor: FinishedCursor | null;
  problems: string[];
} {
  const raw = params.get('sort')?.trim() || 'created';
  const problems: string[] = [];
  const sort = (JOB_SORTS as readonly string[]).includes(raw) ? (raw as JobSort) : 'created';
  if (sort !== raw) problems.push(`'sort' must be one of ${JOB_SORTS.join(', ')}, got '${raw}'`);
  const text = params.get('cursor')?.trim();
  let cursor: FinishedCursor | null = null;
  if (text) {
    const match = /^(-?\d{1,19})\.(\d{1,19})$/.exec(text);
    if (match && sort === 'finished') cursor = { us: match[1], id: match[2] };
    else problems.push(`'cursor' must be a page cursor of the finished order, got '${text}'`);
  }
  return { sort, cursor, problems };
}

/** Where filters the finished order cannot serve from an index are refused, by name. */
export function finishedSortProblems(filter: JobFilter): string[] {
  const problems: string[] = [];
  if (filter.q !== undefined || filter.tags !== undefined)
    problems.push(
      `'sort=finished' reads the finishing-time index: clear the text and tag filters, or sort by created`,
    );
  if (filter.before !== undefined || filter.after !== undefined)
    problems.push(`'before' and 'after' page the created order: the finished order pages with 'cursor'`);
  return problems;
}

/** One page of the finished order and the cursor of the next (null at the end). */
export interface FinishedPage {
  rows: FinishedListRow[];
  next: string | null;
}

/**
 * One page of jobs, the latest finished first, by keyset on (finished_at, id): one backward
 * walk of jobs_finished_idx, or of jobs_queue_finished_idx with a queue, that stops after a
 * page. The time range (created) bounds the ids as in the created order.
 */
export async function listJobsByFinished(
  core: EngineCore,
  filter: JobFilter,
  cursor: FinishedCursor | null,
  now = core.clock.now(),
): Promise<FinishedPage> {
  const match = jobFilterParams(filter, now);
  const ids = await idRangeOf(core, match.from, match.to);
  if (ids === null) return { rows: [], next: null };
  const rows = await core.storage.reads.listFinishedPage(
    { match, floor: String(ids.lowest), before: String(ids.ceiling), limit: PAGE_SIZE + 1 },
    cursor,
  );
  if (rows.length <= PAGE_SIZE) return { rows, next: null };
  const page = rows.slice(0, PAGE_SIZE);
  const last = page[PAGE_SIZE - 1];
  return { rows: page, next: `${last.finished_us}.${last.id}` };
}
