import { defineQuery, type NoRows } from './define-query.js';

/** Where an add with `debounce` or `throttle` finds its key (migration 9). */
export type FoldScope = { queue: string; fold_key: string };

/**
 * Serialise the adds of one queue and fold key until the transaction ends, in every process:
 * the next statement's snapshot then holds the job any earlier add of the key committed. A
 * hash collision only makes two keys wait on each other.
 */
export const lockFoldKey = defineQuery<FoldScope, NoRows>(
  'lockFoldKey',
  /* sql */ `select pg_advisory_xact_lock(hashtextextended(@queue || chr(31) || @fold_key, 9))`,
);

/** The newest job of a fold key, as a fold decides on it, in seconds of the database's clock. */
export interface FoldedJobRow {
  id: string;
  /** Pending and never claimed: its data and run time may still change. */
  unstarted: boolean;
  /** Seconds since the job was added: the first add of its debounce. */
  since_added: number;
  /** Seconds since its latest start; null when it never started. */
  since_started: number | null;
}

/**
 * The newest job of the key, locked: a worker claiming it meanwhile is waited for, and the
 * row is then read as the claim left it (started), so a fold never changes a started job.
 */
export const newestFoldedJob = defineQuery<FoldScope, FoldedJobRow>(
  'newestFoldedJob',
  /* sql */ `
  select id::text as id,
         status = 'pending' and started_at is null as unstarted,
         extract(epoch from now() - created_at)::float8 as since_added,
         extract(epoch from now() - started_at)::float8 as since_started
    from /*schema*/jobs
   where queue = @queue and fold_key = @fold_key
   -- jobs.id, the bigint: the output column id is text, and '99' sorts after '100'
   order by jobs.id desc
   limit 1
     for update`,
);

/**
 * A trailing debounce's later add: the pending job takes its data and runs @delay_seconds
 * from now. Matches nothing once the job has started.
 */
export const refoldJob = defineQuery<{ id: string; data: string; delay_seconds: number }, NoRows>(
  'refoldJob',
  /* sql */ `
  update /*schema*/jobs
     set data = @data::jsonb,
         run_at = now() + @delay_seconds::float8 * interval '1 second'
   where id = @id::bigint and status = 'pending' and started_at is null`,
);
