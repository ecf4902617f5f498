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
