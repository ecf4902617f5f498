import { defineQuery } from './define-query.js';

/** One bucket of a queue's charts, or (bucket_ago null) the whole window. */
export interface QueueChartRow {
  /** Whole buckets between the bucket and now (0 = the current one); null on the total row. */
  bucket_ago: number | null;
  finished: number;
  completed: number;
  failed: number;
  /** Percentiles of started_at − run_at in milliseconds; null when no job in it started. */
  wait_p50_ms: number | null;
  wait_p95_ms: number | null;
  /** Percentiles of finished_at − started_at (the run of the attempt that finished); null when none started. */
  run_p50_ms: number | null;
  run_p95_ms: number | null;
}

/**
 * A queue's finished jobs over a window, per bucket and in all (grouping sets): completed,
 * failed, the p50/p95 wait from run_at to started_at of the attempt that finished and the
 * p50/p95 execution time from started_at to finished_at (jobs that never started count in
 * neither: percentile_cont skips nulls). Reads
 * the newest @max_rows jobs of the queue that finished in the window by one backward walk of
 * jobs_queue_finished_idx, so its cost is bounded however busy the queue or long the window.
 */
export const queueChartBuckets = defineQuery<
  { queue: string; window_seconds: number; bucket_seconds: number; max_rows: number },
  QueueChartRow
>(
  'dashQueueChartBuckets',
  /* sql */ `
  select greatest(floor(extract(epoch from (now() - r.finished_at)) / @bucket_seconds::float8), 0)::int as bucket_ago,
         count(*)::int as finished,
         (count(*) filter (where r.status = 'completed'))::int as completed,
         (count(*) filter (where r.status = 'failed'))::int as failed,
         percentile_cont(0.5) within group (order by r.wait_ms) as wait_p50_ms,
         percentile_cont(0.95) within group (order by r.wait_ms) as wait_p95_ms,
         percentile_cont(0.5) within group (order by r.run_ms) as run_p50_ms,
         percentile_cont(0.95) within group (order by r.run_ms) as run_p95_ms
    from (select j.status, j.finished_at,
                 (extract(epoch from (j.started_at - j.run_at)) * 1000)::float8 as wait_ms,
                 (extract(epoch from (j.finished_at - j.started_at)) * 1000)::float8 as run_ms
            from /*schema*/jobs j
           where j.queue = @queue
             and j.finished_at > now() - @window_seconds::float8 * interval '1 second'
           order by j.finished_at desc
           limit @max_rows) r
   group by grouping sets ((1), ())`,
);
