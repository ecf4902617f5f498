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

/**
 * Waiting and never run: pending or paused, no attempt counted and none logged (a job given
 * back unstarted, by a stopping worker or a limiter, still is; one that ran and was deferred
 * with retryAfter is not). Its data and run time may still change.
 */
const UNSTARTED = (job: string) =>
  `(${job}status in ('pending', 'paused') and ${job}attempts = 0 and ${job}attempt_log is null)`;

/** The newest job of a fold key, as a fold decides on it, in seconds of the database's clock. */
export interface FoldedJobRow {
  id: string;
  /** Waiting and never run (UNSTARTED). */
  unstarted: boolean;
  /** Seconds since the job was added: the first add of its debounce. */
  since_added: number;
  /**
   * Seconds since the latest start of the newest job of the key that started (this one, or an
   * older one when this one never ran); null when none did.
   */
  since_started: number | null;
}

/**
 * The newest job of the key, locked: a worker claiming it meanwhile is waited for, and the
 * row is then read as the claim left it (started), so a fold never changes a started job.
 */
export const newestFoldedJob = defineQuery<FoldScope, FoldedJobRow>(
  'newestFoldedJob',
  /* sql */ `
  select j.id::text as id,
         ${UNSTARTED('j.')} as unstarted,
         extract(epoch from now() - j.created_at)::float8 as since_added,
         extract(epoch from now() - coalesce(
           case when ${UNSTARTED('j.')} then null else j.started_at end,
           (select s.started_at from /*schema*/jobs s
             where s.queue = @queue and s.fold_key = @fold_key and s.started_at is not null
               and s.id < j.id and not ${UNSTARTED('s.')}
             order by s.id desc limit 1)))::float8 as since_started
    from /*schema*/jobs j
   where j.queue = @queue and j.fold_key = @fold_key
   -- j.id, the bigint: the output column id is text, and '99' sorts after '100'
   order by j.id desc
   limit 1
     for update of j`,
);

/**
 * A trailing debounce's later add: the waiting job takes its data and runs @delay_seconds from
 * now; its expiry keeps its distance from the run time. Matches nothing once the job has run.
 */
export const refoldJob = defineQuery<{ id: string; data: string; delay_seconds: number }, NoRows>(
  'refoldJob',
  /* sql */ `
  update /*schema*/jobs
     set data = @data::jsonb,
         run_at = now() + @delay_seconds::float8 * interval '1 second',
         expire_at = now() + @delay_seconds::float8 * interval '1 second' + (expire_at - run_at)
   where id = @id::bigint and ${UNSTARTED('')}`,
);
