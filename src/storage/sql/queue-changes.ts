import { defineQuery } from './define-query.js';
import { JOB_COLUMNS, type JobRow } from './job-columns.js';
import { QUEUE_IDS_AFTER } from './statuses.js';

/*
 * `tm.subscribe({ queue })`: what of a queue may have changed since the last read, each part an
 * index walk of at most @limit rows.
 *
 * - added: ids above @after_id, one walk of jobs_queue_status_idx per status, merged;
 * - running: the queue's active jobs (their progress and metadata move);
 * - finished: by (finished_at, id) above the cursor, on jobs_queue_finished_idx;
 * - known: jobs the reader saw running last time, by id (a retry or a wait leaves no other trace).
 */

/** Where the last read of a queue's changes stopped. */
export type QueueChangeCursor = {
  after_id: string;
  /** A finish time in full (microseconds, UTC, ISO 8601): a Date would round it to the millisecond. */
  finished_after: string;
  finished_after_id: string;
};

/** A changed job, which walks found it, and its finish time in full for the cursor. */
export type QueueChangeRow = JobRow & { added: boolean; finished_walk: boolean; finished_key: string | null };

/** A finish time as the cursor keeps it. */
const FULL_TIME = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export const queueChanges = defineQuery<
  QueueChangeCursor & { queue: string; known: string[]; limit: number },
  QueueChangeRow
>(
  'queueChanges',
  /* sql */ `
  with added as (
    ${QUEUE_IDS_AFTER('@after_id', '@limit')}
  ),
  running as (
    select id from /*schema*/jobs where queue = @queue and status = 'active' order by id limit @limit
  ),
  finished as (
    select id from /*schema*/jobs
     where queue = @queue and finished_at >= @finished_after::timestamptz
       and (finished_at, id) > (@finished_after::timestamptz, @finished_after_id::bigint)
     order by finished_at, id limit @limit
  ),
  found as (
    select id from added union select id from running union select id from finished
    union select unnest(@known::bigint[])
  )
  select ${JOB_COLUMNS},
         id in (select id from added) as added,
         id in (select id from finished) as finished_walk,
         ${FULL_TIME('finished_at')} as finished_key
    from /*schema*/jobs
   where id in (select id from found)
   order by id`,
);

/**
 * Where a reader that starts now reads a queue's changes from: past the newest job, and past
 * the queue's newest finish (any finish, when it has none yet).
 */
export const queueChangesStart = defineQuery<{ queue: string }, QueueChangeCursor>(
  'queueChangesStart',
  /* sql */ `
  with newest as (select coalesce(max(id), 0) as id from /*schema*/jobs)
  select newest.id::text as after_id,
         ${FULL_TIME(`coalesce((select max(finished_at) from /*schema*/jobs
                                  where queue = @queue and finished_at is not null), 'epoch'::timestamptz)`)}
           as finished_after,
         newest.id::text as finished_after_id
    from newest`,
);
