import { defineQuery, type NoRows } from './define-query.js';
import type { IdRow } from './jobs.js';

/**
 * "Is it my turn?" One node per interval across the cluster: the row update succeeds for
 * exactly one caller per interval (a concurrent caller waits on the row, then finds it
 * fresh). Run inside a transaction that already holds the service's advisory lock.
 *
 * A last run later than the database's clock means the clock stepped back: the turn is
 * free, or no node would run the service until the clock caught up. That test reads
 * clock_timestamp(), not the transaction's start: a caller whose transaction began just
 * before the winner's must still find the winner's run in its past.
 */
export const takeTurn = defineQuery<{ name: string; interval_seconds: number }, { name: string }>(
  'takeTurn',
  /* sql */ `
  insert into /*schema*/maintenance as m (name, last_run_at) values (@name, now())
  on conflict (name) do update set last_run_at = now()
   where m.last_run_at is null or m.last_run_at <= now() - @interval_seconds * interval '1 second'
      or m.last_run_at > clock_timestamp()
  returning name`,
);

export const tryAdvisoryLock = defineQuery<{ key: string }, { locked: boolean }>(
  'tryAdvisoryLock',
  /* sql */ `select pg_try_advisory_xact_lock(hashtext(@key)) as locked`,
);

export const recordTurnResult = defineQuery<{ name: string; result: string }, NoRows>(
  'recordTurnResult',
  /* sql */ `update /*schema*/maintenance set last_result = @result::jsonb where name = @name`,
);

export const readTurn = defineQuery<
  { name: string },
  { name: string; last_run_at: Date | null; last_result: unknown }
>(
  'readTurn',
  /* sql */ `select name, last_run_at, last_result from /*schema*/maintenance where name = @name`,
);

/**
 * Active jobs whose lock lapsed (their worker died or stalled): back to `retry`, or
 * `failed` when their attempts are spent.
 *
 * A job whose worker is alive after an outage is spared: the lock lapsed while the database
 * could not be reached, and the worker, beating again, extends it (or writes its outcome) on
 * its next try. Alive means the worker's row, written by the same process that claimed the
 * job (started no later than the claim), has beaten since a beat interval before the lapse,
 * is still beating (within two beat intervals of now), and its beat is within one lock
 * period (three beat intervals) of the lapse: a worker that beats on without extending the
 * lock does not hold the job any more, and it is recovered a lock period later.
 */
export const recoverStalled = defineQuery<{ limit: number; channel: string }, { n: number }>(
  'recoverStalled',
  /* sql */ `
  with stalled as (
    select id from /*schema*/jobs j
     where status = 'active' and locked_until < now()
       and not exists (
         select 1 from /*schema*/workers w
          where w.id = j.locked_by and w.started_at <= j.started_at
            and w.heartbeat_at > j.locked_until - w.heartbeat_seconds * interval '1 second'
            and w.heartbeat_at < j.locked_until + 3 * w.heartbeat_seconds * interval '1 second'
            and w.heartbeat_at > now() - 2 * w.heartbeat_seconds * interval '1 second')
     order by locked_until
     limit @limit
     for update skip locked
  ),
  recovered as (
    update /*schema*/jobs j
       set status = case when j.attempts >= j.max_attempts then 'failed' else 'retry' end,
           run_at = now(),
           error = jsonb_build_object('name', 'StalledJobError',
                     'message', 'lock lapsed: the worker stopped heartbeating (crashed or blocked)',
                     'worker', j.locked_by),
           attempt_log = /*schema*/log_attempt(j.attempt_log,
             jsonb_build_object('attempt', j.attempts, 'startedAt', j.started_at, 'endedAt', now(),
                                'name', 'StalledJobError', 'message', 'lock lapsed', 'worker', j.locked_by)),
           finished_at = case when j.attempts >= j.max_attempts then now() end,
           purge_after = /*schema*/purge_time(j.retention,
                           case when j.attempts >= j.max_attempts then 'failed' else 'retry' end, now()),
           lock_token = null, locked_by = null, locked_until = null
      from stalled
     where j.id = stalled.id
    returning j.id, j.queue, j.status
  ),
  nudged as (
    select count(pg_notify(@channel, 'j:' || queue)) as n
      from (select distinct queue from recovered where status = 'retry') q
  )
  select count(*)::int as n from recovered cross join nudged`,
);

/** Pending jobs whose deadline passed before they could start. */
export const expireJobs = defineQuery<{ limit: number }, IdRow>(
  'expireJobs',
  /* sql */ `
  with overdue as (
    select id from /*schema*/jobs
     where status = 'pending' and attempts = 0 and expire_at <= now()
     limit @limit
     for update skip locked
  )
  update /*schema*/jobs j
     set status = 'expired', finished_at = now(),
         purge_after = /*schema*/purge_time(j.retention, 'expired', now())
    from overdue
   where j.id = overdue.id
  returning j.id::text as id`,
);

/** Retry jobs whose backoff has passed become plain pending jobs again. */
export const promoteRetries = defineQuery<{ limit: number }, IdRow>(
  'promoteRetries',
  /* sql */ `
  with due as (
    select id from /*schema*/jobs
     where status = 'retry' and run_at <= now() -- jobs_due_idx
     limit @limit
     for update skip locked
  )
  update /*schema*/jobs j set status = 'pending' from due where j.id = due.id
  returning j.id::text as id`,
);

/**
 * Nudge the queues that have work which became due since the last tick (delayed jobs,
 * backoffs, timers), so idle workers pick it up without waiting for their poll. It reads
 * jobs_due_idx (its condition is the index's), so a tick reads the jobs that came due, not
 * the table: jobs added due were announced by their enqueue.
 */
export const nudgeDueQueues = defineQuery<{ since_seconds: number; channel: string }, { n: number }>(
  'nudgeDueQueues',
  /* sql */ `
  select count(pg_notify(@channel, 'j:' || queue))::int as n from (
    select distinct queue from /*schema*/jobs
     where (status in ('retry', 'waiting') or (status = 'pending' and run_at > created_at))
       and run_at <= now() and run_at > now() - @since_seconds * interval '1 second'
  ) due`,
);
