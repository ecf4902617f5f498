import type { JobStatus } from '../../job-status.js';
import { defineQuery } from './define-query.js';

/** Job counts per queue and status, optionally only jobs created since a moment. */
export const countByQueueAndStatus = defineQuery<
  { since: Date | null },
  { queue: string; status: JobStatus; n: number; first_started: Date | null; last_finished: Date | null }
>(
  'countByQueueAndStatus',
  /* sql */ `
  select queue, status, count(*)::int as n,
         min(started_at) as first_started, max(finished_at) as last_finished
    from /*schema*/jobs
   where @since::timestamptz is null or created_at >= @since::timestamptz
   group by queue, status
   order by queue, status`,
);

/** A queue's waiting jobs of one status (pending or retry), split by whether they are due. */
export interface DueSplitRow {
  queue: string;
  status: string;
  /** Rows read: at most @cap, so `seen` = @cap means the cell holds more. */
  seen: number;
  /** Of those, due now (run_at ≤ now()). */
  ready: number;
  /** Seconds since the run_at of the oldest due job read; null when none is due. */
  oldest_ready_seconds: number | null;
}

/**
 * Ready (due now) versus scheduled (due later) jobs per queue and waiting status, and the age
 * of the oldest ready job by the database's clock. Each (queue, status) cell is one forward
 * walk of jobs_queue_status_idx, oldest ids first, that stops after @cap rows, so the split
 * is exact while a cell holds fewer than @cap jobs and its cost is bounded above. Run it
 * after `indexWalksOnly` in the same transaction, as `cappedStatusCounts`.
 */
export const dueSplitCapped = defineQuery<{ queues: string[]; statuses: string[]; cap: number }, DueSplitRow>(
  'dashDueSplitCapped',
  /* sql */ `
  select q.name as queue, s.status, c.seen, c.ready, c.oldest_ready_seconds
    from unnest(@queues::text[]) as q(name)
   cross join unnest(@statuses::text[]) as s(status)
   cross join lateral (
     select count(*)::int as seen,
            (count(*) filter (where x.run_at <= now()))::int as ready,
            extract(epoch from (now() - min(x.run_at) filter (where x.run_at <= now())))::float8
              as oldest_ready_seconds
       from (select j.run_at from /*schema*/jobs j
              where j.queue = q.name
                and (j.status, j.id) >= (s.status, 0::bigint)
                and (j.status, j.id) < (s.status, 9223372036854775807::bigint)
              order by j.status, j.id
              limit @cap) x
   ) c
   where c.seen > 0`,
);
