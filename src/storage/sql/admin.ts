import { defineQuery, type NoParams } from './define-query.js';

/**
 * Read-only statements of the dashboard and the CLI. Each is bounded so it stays fast on a
 * table of millions of jobs: index probes with LIMIT, capped counts, and planner estimates
 * instead of counting whole tables.
 */

/** A (queue, status) cell counted up to the cap; `n` is at most the cap. */
export interface BoundedCountRow {
  queue: string;
  status: string;
  n: number;
}

/**
 * Jobs per queue and status, each count capped at @cap rows: every (queue, status) cell is
 * one backward walk of jobs_queue_status_idx that stops at the cap, so a million completed
 * jobs cost @cap index entries, not a scan. Run it after `indexWalksOnly` in the same
 * transaction: left to itself the planner, whose estimate for a cell is a few hundred rows
 * whatever its size, reads the whole cell by a bitmap scan and sorts it (seconds on a
 * million rows; before any ANALYZE even at a cap of 1,000).
 * The status is bounded by row comparisons rather than `status =`: with an equality the
 * planner knows the order reduces to the id and may pick another path; this way the only
 * ordered path is this index, and the walk stops where the status ends. The queue names
 * come as a parameter: joining the (rarely analyzed) queues table inflates the cost
 * estimate enough to trigger JIT compilation, which costs more than the whole query.
 */
export const cappedStatusCounts = defineQuery<
  { queues: string[]; statuses: string[]; cap: number },
  BoundedCountRow
>(
  'dashCappedStatusCounts',
  /* sql */ `
  select q.name as queue, s.status, c.n
    from unnest(@queues::text[]) as q(name)
   cross join unnest(@statuses::text[]) as s(status)
   cross join lateral (
     select count(*)::int as n
       from (select j.id from /*schema*/jobs j
              where j.queue = q.name
                and (j.status, j.id) >= (s.status, 0::bigint)
                and (j.status, j.id) < (s.status, 9223372036854775807::bigint)
              order by j.status desc, j.id desc
              limit @cap) x
   ) c
   where c.n > 0`,
);

/**
 * For the rest of the transaction, plan with ordered index scans only: no sequential or
 * bitmap scan, no sort (they stay possible where nothing else is, at a high cost). JIT is
 * switched off because those costs would otherwise cross its threshold and compile a
 * statement that runs in milliseconds.
 */
export const indexWalksOnly = defineQuery<Record<string, never>, Record<string, string>>(
  'dashIndexWalksOnly',
  /* sql */ `
  select set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true),
         set_config('enable_sort', 'off', true), set_config('jit', 'off', true)`,
);

/** The planner's statistics on the jobs table (all null before its first ANALYZE). */
export interface JobEstimatesRow {
  reltuples: number | null;
  status_vals: string[] | null;
  status_freqs: number[] | null;
  queue_vals: string[] | null;
  queue_freqs: number[] | null;
}

/** The planner's row estimate of the jobs table and the share of each queue and status. */
export const jobEstimates = defineQuery<{ schema: string }, JobEstimatesRow>(
  'dashJobEstimates',
  /* sql */ `
  select c.reltuples::float8 as reltuples,
         (select most_common_vals::text::text[] from pg_stats
           where schemaname = @schema and tablename = 'jobs' and attname = 'status') as status_vals,
         (select most_common_freqs::float8[] from pg_stats
           where schemaname = @schema and tablename = 'jobs' and attname = 'status') as status_freqs,
         (select most_common_vals::text::text[] from pg_stats
           where schemaname = @schema and tablename = 'jobs' and attname = 'queue') as queue_vals,
         (select most_common_freqs::float8[] from pg_stats
           where schemaname = @schema and tablename = 'jobs' and attname = 'queue') as queue_freqs
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = @schema and c.relname = 'jobs'`,
);

/**
 * Jobs finished per minute over the last hour, per queue and status (minute 0 is the
 * current one). Reads jobs_finished_idx; @max_rows bounds the work on very busy systems.
 */
export const throughputLastHour = defineQuery<
  { max_rows: number },
  { queue: string; status: string; minute_ago: number; n: number }
>(
  'dashThroughputLastHour',
  /* sql */ `
  select queue, status, floor(extract(epoch from (now() - finished_at)) / 60)::int as minute_ago,
         count(*)::int as n
    from (select queue, status, finished_at from /*schema*/jobs
           where finished_at > now() - interval '1 hour'
           order by finished_at desc limit @max_rows) recent
   group by 1, 2, 3`,
);

/** A job of a tree, with its depth below the job asked for. */
export interface TreeNode {
  id: string;
  parent_id: string | null;
  queue: string;
  status: string;
  depth: number;
}

/** A job's descendants (depth-first order by id), bounded in depth and size. */
export const jobTree = defineQuery<{ id: string; max_rows: number }, TreeNode>(
  'dashJobTree',
  /* sql */ `
  with recursive tree as (
    select j.id, j.parent_id, j.queue, j.status, 0 as depth, array[j.id] as path
      from /*schema*/jobs j where j.id = @id::bigint
    union all
    select c.id, c.parent_id, c.queue, c.status, t.depth + 1, t.path || c.id
      from /*schema*/jobs c join tree t on c.parent_id = t.id
     where t.depth < 32
  )
  select id::text as id, parent_id::text as parent_id, queue, status, depth
    from tree order by path limit @max_rows`,
);

/** One failed attempt in a job's `attempt_log` (written by log_attempt). */
export interface AttemptEntry {
  attempt: number;
  startedAt: string | null;
  endedAt: string | null;
  name: string | null;
  message: string | null;
  /** The worker that ran it (entries written before the run history have none). */
  worker?: string | null;
}

/** Failed attempts recorded on a job (the attempts timeline). */
export const jobAttemptLog = defineQuery<{ id: string }, { attempt_log: AttemptEntry[] | null }>(
  'dashJobAttemptLog',
  /* sql */ `select attempt_log from /*schema*/jobs where id = @id::bigint`,
);

/**
 * Embedded PGlite is one backend that never goes idle, so its table statistics are not
 * published until asked: this makes the next statement flush them (PostgreSQL 15+).
 */
export const flushStats = defineQuery<NoParams, { pg_stat_force_next_flush: unknown }>(
  'dashFlushStats',
  /* sql */ `select pg_stat_force_next_flush()`,
);

/** A table's size and row statistics (pg_class, pg_stat_user_tables). */
export interface TableStat {
  name: string;
  total_bytes: number;
  table_bytes: number;
  index_bytes: number;
  estimated_rows: number;
  live_rows: number | null;
  dead_rows: number | null;
  last_vacuum: Date | null;
  last_autovacuum: Date | null;
  last_analyze: Date | null;
  last_autoanalyze: Date | null;
}

/** An index's size and how often it was scanned. */
export interface IndexStat {
  name: string;
  table_name: string;
  bytes: number;
  scans: number | null;
}

/** Tables of the schema: sizes, live and dead rows, vacuum and analyze times. */
export const tableStats = defineQuery<{ schema: string }, TableStat>(
  'dashTableStats',
  /* sql */ `
  select c.relname as name,
         pg_total_relation_size(c.oid)::float8 as total_bytes,
         pg_relation_size(c.oid)::float8 as table_bytes,
         pg_indexes_size(c.oid)::float8 as index_bytes,
         c.reltuples::float8 as estimated_rows,
         s.n_live_tup::float8 as live_rows, s.n_dead_tup::float8 as dead_rows,
         s.last_vacuum, s.last_autovacuum, s.last_analyze, s.last_autoanalyze
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    left join pg_stat_user_tables s on s.relid = c.oid
   where n.nspname = @schema and c.relkind = 'r'
   order by pg_total_relation_size(c.oid) desc, c.relname`,
);

/** Indexes of the schema with their sizes and how often they were scanned. */
export const indexStats = defineQuery<{ schema: string }, IndexStat>(
  'dashIndexStats',
  /* sql */ `
  select i.relname as name, t.relname as table_name,
         pg_relation_size(i.oid)::float8 as bytes,
         s.idx_scan::float8 as scans
    from pg_index x
    join pg_class i on i.oid = x.indexrelid
    join pg_class t on t.oid = x.indrelid
    join pg_namespace n on n.oid = t.relnamespace
    left join pg_stat_user_indexes s on s.indexrelid = i.oid
   where n.nspname = @schema
   order by pg_relation_size(i.oid) desc, i.relname`,
);
