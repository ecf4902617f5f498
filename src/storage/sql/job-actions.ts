import { defineQuery } from './define-query.js';
import { JOB_FILTER, type JobFilterParams } from './job-filter.js';
import type { IdRow } from './jobs.js';
import { IN_FLIGHT } from './statuses.js';

const SUBTREE = /* sql */ `
  with recursive subtree as (
    select id, 0 as depth from /*schema*/jobs where id = @id::bigint
    union all
    select c.id, s.depth + 1 from /*schema*/jobs c join subtree s on c.parent_id = s.id
  )`;

/**
 * The job itself, locked, only while it still matches the filter (JOB_FILTER): FOR UPDATE
 * re-reads a row changed since the statement began and checks the conditions on what is
 * there now, so a bulk action never writes a job that stopped matching after it was chosen.
 */
const TARGET = /* sql */ `
  target as (
    select j.id from /*schema*/jobs j
     where j.id = @id::bigint and ${JOB_FILTER}
     for update
  )`;

/**
 * Cancel a job and every in-flight job below it, when the job still matches the filter
 * (ANY_JOB for a single cancel). Workers holding one of them are told at once (NOTIFY
 * 'c:<id>:<lock token>', one for each job a worker had claimed) so the handler's AbortSignal
 * fires; their late completions match no active row and change nothing. The notice names the
 * attempt: it arrives after the commit, when the job may be retried and claimed again.
 */
export const cancelSubtree = defineQuery<JobFilterParams & { id: string; channel: string }, IdRow>(
  'cancelSubtree',
  /* sql */ `${SUBTREE},${TARGET},
  cancelled as (
    update /*schema*/jobs j
       set status = 'cancelled', finished_at = now(),
           purge_after = /*schema*/purge_time(j.retention, 'cancelled', now()),
           -- A running attempt keeps its lock until its worker says the handler returned
           -- (releaseCancelled): until then the job still holds its key's slot.
           lock_token = case when j.status = 'active' then j.lock_token end,
           locked_by = case when j.status = 'active' then j.locked_by end,
           locked_until = case when j.status = 'active' then j.locked_until end,
           paused_from = null
      from subtree s
     where j.id = s.id and j.status in ${IN_FLIGHT}
       and exists (select 1 from target)
    returning j.id, j.lock_token
  ),
  told as (select count(pg_notify(@channel, 'c:' || id || ':' || lock_token)) as n
             from cancelled where lock_token is not null)
  select cancelled.id::text as id from cancelled cross join told`,
);

/**
 * Run a finished job again, with at least one attempt left, when it still matches the
 * filter (ANY_JOB for a single retry). Its cancelled, failed or expired descendants are
 * reopened with it; completed ones keep their output and are reused.
 */
export const retrySubtree = defineQuery<JobFilterParams & { id: string; channel: string }, IdRow>(
  'retrySubtree',
  /* sql */ `${SUBTREE},
  -- The tree's top row lock orders this against a retention sweep deleting the same tree.
  root_lock as (
    select r.id from /*schema*/jobs r
     where r.id = (select coalesce(root_id, id) from /*schema*/jobs where id = @id::bigint)
     for update
  ),${TARGET},
  reopened as (
    update /*schema*/jobs j
       set status = 'pending', run_at = now(), finished_at = null, purge_after = null,
           max_attempts = greatest(j.max_attempts, j.attempts + 1), wait = null, expire_at = null
      from subtree s
     where j.id = s.id
       and exists (select 1 from root_lock) and exists (select 1 from target)
       and (s.depth = 0 and j.status in ('failed', 'cancelled', 'expired', 'completed', 'retry')
            or s.depth > 0 and j.status in ('failed', 'cancelled', 'expired'))
    returning j.id, j.queue
  ),
  nudged as (select count(pg_notify(@channel, 'j:' || queue)) as n from (select distinct queue from reopened) q)
  select reopened.id::text as id from reopened cross join nudged`,
);

/**
 * Make a scheduled or retry-waiting job due now, when it still matches the filter (ANY_JOB
 * for a single run-now); one already due keeps its time. Its status, attempts and place in
 * its key's order stay as they are: it waits for a slot like any due job.
 */
export const runJobNow = defineQuery<JobFilterParams & { id: string; channel: string }, IdRow>(
  'runJobNow',
  /* sql */ `
  with ${TARGET},
  promoted as (
    update /*schema*/jobs j set run_at = least(j.run_at, now())
     where j.id = (select id from target) and j.status in ('pending', 'retry')
    returning j.id, j.queue
  ),
  nudged as (select count(pg_notify(@channel, 'j:' || queue)) as n from promoted)
  select promoted.id::text as id from promoted cross join nudged`,
);

export const pauseJob = defineQuery<{ id: string }, IdRow>(
  'pauseJob',
  /* sql */ `
  update /*schema*/jobs set status = 'paused', paused_from = status
   where id = @id::bigint and status in ('pending', 'retry', 'waiting')
  returning id::text as id`,
);

/**
 * Give a paused job back the status it had. Its run time is kept: a delayed job, a backoff
 * or a workflow timer paused and resumed still waits for its moment.
 */
export const resumeJob = defineQuery<{ id: string; channel: string }, IdRow>(
  'resumeJob',
  /* sql */ `
  with resumed as (
    update /*schema*/jobs
       set status = coalesce(paused_from, 'pending'), paused_from = null
     where id = @id::bigint and status = 'paused'
    returning id, queue, run_at
  ),
  nudged as (select count(pg_notify(@channel, 'j:' || queue)) as n from resumed where run_at <= now())
  select resumed.id::text as id from resumed cross join nudged`,
);

/**
 * Why a retry of this tree broke the one-in-flight-job-per-key rule: the first job of the
 * tree with a `unique` key, and the other in-flight job holding that key (null when none
 * does any more, then the retry can simply be run again).
 */
export const uniqueKeyConflict = defineQuery<
  { id: string },
  { queue: string; unique_key: string; holder_id: string | null }
>(
  'uniqueKeyConflict',
  /* sql */ `${SUBTREE}
  select j.queue, j.unique_key, holder.id::text as holder_id
    from subtree s
    join /*schema*/jobs j on j.id = s.id
    left join lateral (
      select h.id from /*schema*/jobs h
       where h.queue = j.queue and h.unique_key = j.unique_key and h.id <> j.id
         and h.status in ${IN_FLIGHT}
       limit 1
    ) holder on true
   where j.unique_key is not null
   order by holder.id is null, s.depth
   limit 1`,
);
