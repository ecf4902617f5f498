import { defineQuery, defineSizedQuery } from './define-query.js';
import { LOG_PURGE_TIME } from './job-notes.js';
import { QUEUE_IDS_AFTER } from './statuses.js';

/**
 * applyRetention, one batch: three statements in one transaction. The first re-freezes the
 * jobs, locked in id order; the others, with snapshots taken after those locks, give the
 * consumed signals and the log lines of the batch's jobs the purge times their job's windows
 * now give. A consumption or a log write reads its job's windows under a share lock
 * (consumeSignals, writeJobNotes), so it either committed before the first statement's locks
 * (and the later statements see it) or waits for the batch and reads the new windows: no
 * signal or line keeps a window its job no longer has.
 */

/**
 * The next @batch_size jobs of @queue by id, from a cursor, re-frozen with @retention. One
 * ordered index range per status, merged, so the walk follows ids whatever status a job
 * moves to meanwhile. A finished job's purge time is computed again from its finished_at;
 * a job still in flight carries the new windows when it finishes. Rows already frozen with
 * these windows are not written. Returns the ids it picked, for applyRetentionSignals.
 */
export const applyRetentionJobs = defineSizedQuery<
  { queue: string; retention: string; after: string },
  { scanned: number; last_id: string | null; changed: number; ids: string[] }
>(
  'applyRetentionJobs',
  /* sql */ `
  with picked as materialized (
    ${QUEUE_IDS_AFTER('@after', '@batch_size')}
  ),
  locked as materialized (
    select j.id from /*schema*/jobs j
     where j.id in (select id from picked) and j.retention is distinct from @retention::jsonb
     order by j.id
       for no key update of j
  ),
  changed as (
    update /*schema*/jobs j
       set retention = @retention::jsonb,
           purge_after = case when j.finished_at is null then j.purge_after
                              else /*schema*/purge_time(@retention::jsonb, j.status, j.finished_at) end
      from locked l
     where j.id = l.id and j.retention is distinct from @retention::jsonb
    returning j.id
  )
  select (select count(*) from picked)::int as scanned,
         (select max(id)::text from picked) as last_id,
         (select count(*) from changed)::int as changed,
         array(select id::text from picked order by id) as ids`,
);

/** The consumed signals of jobs @ids, given the purge time their job's frozen windows give. */
export const applyRetentionSignals = defineQuery<{ ids: string[] }, { n: number }>(
  'applyRetentionSignals',
  /* sql */ `
  with fixed as (
    update /*schema*/signals s
       set purge_after = s.consumed_at
                         + nullif((j.retention ->> 'consumedSignals')::float8, 0) * interval '1 second'
      from /*schema*/jobs j
     where j.id = any(@ids::bigint[]) and s.job_id = j.id and s.consumed_at is not null
       and s.purge_after is distinct from
           s.consumed_at + nullif((j.retention ->> 'consumedSignals')::float8, 0) * interval '1 second'
    returning s.id
  )
  select count(*)::int as n from fixed`,
);

/** The log lines of jobs @ids, given the purge time their job's frozen `logsAfterSeconds` gives. */
export const applyRetentionLogs = defineQuery<{ ids: string[] }, { n: number }>(
  'applyRetentionLogs',
  /* sql */ `
  with fixed as (
    update /*schema*/job_logs x
       set purge_after = ${LOG_PURGE_TIME('x.logged_at', 'j.retention')}
      from /*schema*/jobs j
     where j.id = any(@ids::bigint[]) and x.job_id = j.id
       and x.purge_after is distinct from ${LOG_PURGE_TIME('x.logged_at', 'j.retention')}
    returning x.id
  )
  select count(*)::int as n from fixed`,
);

/** How many of @queue's jobs applyRetention would change. */
export const countApplyRetention = defineQuery<{ queue: string; retention: string }, { n: number }>(
  'countApplyRetention',
  /* sql */ `
  select count(*)::int as n from /*schema*/jobs
   where queue = @queue and retention is distinct from @retention::jsonb`,
);
