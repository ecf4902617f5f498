import { defineQuery } from './define-query.js';

/**
 * Statements of the bulk actions (retry or cancel every job matching a filter). The jobs
 * are chosen in batches by keyset: ids above @after and at most @ceiling, the highest id
 * when the action began, so jobs added meanwhile are never touched and a job changed by
 * an earlier batch is not chosen again.
 */

/** Where a bulk action's walk stops: the highest job id now (0 with no jobs). */
export const bulkCeiling = defineQuery<Record<string, never>, { ceiling: string }>(
  'bulkCeiling',
  /* sql */ `select coalesce(max(id), 0)::text as ceiling from /*schema*/jobs`,
);

/** The filter fields every bulk selection applies besides queue, status and ids. */
type BulkWindow = {
  after: string;
  ceiling: string;
  from: Date | null;
  to: Date | null;
  /** An ILIKE pattern over the data as JSON text, or null. */
  pattern: string | null;
  limit: number;
};

const WINDOW = /* sql */ `
      and (@from::timestamptz is null or j.created_at >= @from::timestamptz)
      and (@to::timestamptz is null or j.created_at < @to::timestamptz)
      and (@pattern::text is null or j.data::text ilike @pattern::text)`;

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
        and (j.status, j.id) <= (@status::text, @ceiling::bigint)${WINDOW}
      order by j.status, j.id
      limit @limit
   ) m
   order by m.id
   limit @limit`,
);

/** The next batch of the chosen jobs (ids given by hand) that also match the other fields. */
export const bulkBatchByIds = defineQuery<
  BulkWindow & { ids: string[]; queue: string | null; status: string | null },
  { id: string }
>(
  'bulkBatchByIds',
  /* sql */ `
  select j.id::text as id from /*schema*/jobs j
   where j.id = any(@ids::bigint[])
     and j.id > @after::bigint and j.id <= @ceiling::bigint
     and (@queue::text is null or j.queue = @queue::text)
     and (@status::text is null or j.status = @status::text)${WINDOW}
   order by j.id
   limit @limit`,
);
