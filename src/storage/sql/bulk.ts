import { defineQuery } from './define-query.js';
import { JOB_FILTER, type JobFilterParams } from './job-filter.js';

/**
 * Statements of the bulk actions (retry or cancel every job matching a filter). The jobs
 * are chosen in batches by keyset: ids above @after and at most @ceiling, the highest id
 * when the action began, so jobs added meanwhile are never touched and a job changed by
 * an earlier batch is not chosen again. The filter is the job list's own (JOB_FILTER), and
 * the statement that changes a chosen job checks it again on the locked row.
 */

/** Where a bulk action's walk stops: the highest job id now (0 with no jobs). */
export const bulkCeiling = defineQuery<Record<string, never>, { ceiling: string }>(
  'bulkCeiling',
  /* sql */ `select coalesce(max(id), 0)::text as ceiling from /*schema*/jobs`,
);

/** The filter and the keyset of one bulk selection. */
type BulkWindow = JobFilterParams & {
  after: string;
  ceiling: string;
  limit: number;
};

/**
 * The next batch of jobs of one status in the given queues, oldest id first: a forward walk
 * of jobs_queue_status_idx per queue, each stopping after @limit rows, merged. The status
 * and the keyset are one row comparison so the walk stays on that index (see
 * listJobsByQueueStatus).
 */
export const bulkBatchByStatus = defineQuery<
  BulkWindow & { queues: string[]; status: string },
  { id: string }
>(
  'bulkBatchByStatus',
  /* sql */ `
  select m.id::text as id from unnest(@queues::text[]) as q(name)
   cross join lateral (
     select j.id from /*schema*/jobs j
      where j.queue = q.name
        and (j.status, j.id) > (@status::text, @after::bigint)
        and (j.status, j.id) <= (@status::text, @ceiling::bigint)
        and ${JOB_FILTER}
      order by j.status, j.id
      limit @limit
   ) m
   order by m.id
   limit @limit`,
);

/** The next batch of the chosen jobs (ids given by hand) that also match the other fields. */
export const bulkBatchByIds = defineQuery<BulkWindow & { ids: string[] }, { id: string }>(
  'bulkBatchByIds',
  /* sql */ `
  select j.id::text as id from /*schema*/jobs j
   where j.id = any(@ids::bigint[])
     and j.id > @after::bigint and j.id <= @ceiling::bigint
     and ${JOB_FILTER}
   order by j.id
   limit @limit`,
);
