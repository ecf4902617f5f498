import { defineQuery } from './define-query.js';

/**
 * Trees that are due as a whole (R2, R3, R4): a top whose purge time has passed, with no
 * member that is in flight, kept forever or not yet due, and no member pinned by a live
 * unique lock. Driven by the purge_after index; tops are row-locked so a concurrent
 * retryJob (which locks the top first) and a second sweeper cannot interleave.
 */
const DUE_TREES = /* sql */ `
  due as (
    select r.id from /*schema*/jobs r
     where r.purge_after <= now() and r.root_id is null
       and not exists (select 1 from /*schema*/jobs m
                        where m.root_id = r.id and (m.purge_after is null or m.purge_after > now()))
       and not exists (select 1 from /*schema*/unique_locks u where u.job_id = r.id and u.expires_at > now())
       and not exists (select 1 from /*schema*/jobs m join /*schema*/unique_locks u on u.job_id = m.id
                        where m.root_id = r.id and u.expires_at > now())
     order by r.purge_after
     limit @batch_size
     for update of r skip locked
  )`;

/** Delete one batch of due trees; returns what was deleted per queue and status. */
export const deleteDueTrees = defineQuery<{ batch_size: number }>(
  'deleteDueTrees',
  /* sql */ `
  with ${DUE_TREES},
  deleted as (
    delete from /*schema*/jobs j
     where j.id in (select id from due) or j.root_id in (select id from due)
    returning j.queue, j.status, j.root_id is null as is_top
  )
  select queue, status, count(*)::int as n, (count(*) filter (where is_top))::int as tops
    from deleted group by queue, status`,
);

/** The ids of one batch of due trees (tops and members), locked, for the archive path. */
export const lockDueTrees = defineQuery<{ batch_size: number }>(
  'lockDueTrees',
  /* sql */ `
  with ${DUE_TREES}
  select j.id::text as id, (j.root_id is null) as is_top from /*schema*/jobs j
   where j.id in (select id from due) or j.root_id in (select id from due)`,
);

export const deleteJobsById = defineQuery<{ ids: string[] }>(
  'deleteJobsById',
  /* sql */ `
  with deleted as (delete from /*schema*/jobs where id = any(@ids::bigint[]) returning queue, status)
  select queue, status, count(*)::int as n from deleted group by queue, status`,
);

/** What a full sweep would delete now, per queue and status (dry run). */
export const previewDueTrees = defineQuery(
  'previewDueTrees',
  /* sql */ `
  with due as (
    select r.id from /*schema*/jobs r
     where r.purge_after <= now() and r.root_id is null
       and not exists (select 1 from /*schema*/jobs m
                        where m.root_id = r.id and (m.purge_after is null or m.purge_after > now()))
       and not exists (select 1 from /*schema*/unique_locks u where u.job_id = r.id and u.expires_at > now())
       and not exists (select 1 from /*schema*/jobs m join /*schema*/unique_locks u on u.job_id = m.id
                        where m.root_id = r.id and u.expires_at > now())
  )
  select j.queue, j.status, count(*)::int as n from /*schema*/jobs j
   where j.id in (select id from due) or j.root_id in (select id from due)
   group by j.queue, j.status order by j.queue, j.status`,
);

/** Consumed signals past their own window (R6). Pending signals never match. */
export const deleteConsumedSignals = defineQuery<{ batch_size: number }>(
  'deleteConsumedSignals',
  /* sql */ `
  with doomed as (
    select id from /*schema*/signals
     where purge_after <= now() and consumed_at is not null
     order by purge_after
     limit @batch_size
     for update skip locked
  )
  delete from /*schema*/signals s using doomed where s.id = doomed.id
  returning s.id`,
);

export const countConsumedSignalsDue = defineQuery(
  'countConsumedSignalsDue',
  /* sql */ `select count(*)::int as n from /*schema*/signals where purge_after <= now() and consumed_at is not null`,
);

/** Expired unique locks (R8). A lock that expired is replaceable at enqueue time anyway. */
export const deleteExpiredUniqueLocks = defineQuery<{ batch_size: number }>(
  'deleteExpiredUniqueLocks',
  /* sql */ `
  with doomed as (
    select scope from /*schema*/unique_locks
     where expires_at <= now()
     order by expires_at
     limit @batch_size
     for update skip locked
  )
  delete from /*schema*/unique_locks u using doomed where u.scope = doomed.scope
  returning u.scope`,
);

export const countExpiredUniqueLocks = defineQuery(
  'countExpiredUniqueLocks',
  /* sql */ `select count(*)::int as n from /*schema*/unique_locks where expires_at <= now()`,
);

export const recordSweep = defineQuery<{
  kind: string;
  started_at: Date;
  jobs: number;
  signals: number;
  unique_locks: number;
  detail: string;
  error: string | null;
}>(
  'recordSweep',
  /* sql */ `
  insert into /*schema*/sweeps (kind, started_at, finished_at, jobs, signals, unique_locks, detail, error)
  values (@kind, @started_at::timestamptz, now(), @jobs, @signals, @unique_locks, @detail::jsonb, @error)`,
);

export const listSweeps = defineQuery<{ limit: number }>(
  'listSweeps',
  /* sql */ `
  select id::text as id, kind, started_at, finished_at, jobs, signals, unique_locks, detail, error
    from /*schema*/sweeps order by started_at desc, id desc limit @limit`,
);

/**
 * Manual purge (R10): a flat cutoff on finished_at that ignores frozen windows but keeps
 * R1 (only finished jobs), R3 (whole trees, every member finished before the cutoff and of
 * the listed statuses) and R4 (no member pinned by a live unique lock).
 */
const PURGEABLE = /* sql */ `
  select r.id from /*schema*/jobs r
   where r.root_id is null
     and r.finished_at <= now() - @older_than_seconds * interval '1 second'
     and r.status = any(@statuses::text[])
     and (@queue::text is null or r.queue = @queue::text)
     and not exists (select 1 from /*schema*/jobs m
                      where m.root_id = r.id
                        and (m.finished_at is null or m.finished_at > now() - @older_than_seconds * interval '1 second'
                             or m.status <> all(@statuses::text[])))
     and not exists (select 1 from /*schema*/unique_locks u where u.job_id = r.id and u.expires_at > now())
     and not exists (select 1 from /*schema*/jobs m join /*schema*/unique_locks u on u.job_id = m.id
                      where m.root_id = r.id and u.expires_at > now())`;

export const purgeFinished = defineQuery<{
  queue: string | null;
  statuses: string[];
  older_than_seconds: number;
  batch_size: number;
}>(
  'purgeFinished',
  /* sql */ `
  with picked as (${PURGEABLE}
     order by r.finished_at
     limit @batch_size
     for update of r skip locked
  ),
  deleted as (
    delete from /*schema*/jobs j
     where j.id in (select id from picked) or j.root_id in (select id from picked)
    returning j.root_id is null as is_top
  )
  select count(*)::int as n, (count(*) filter (where is_top))::int as tops from deleted`,
);

export const countPurgeable = defineQuery<{
  queue: string | null;
  statuses: string[];
  older_than_seconds: number;
}>(
  'countPurgeable',
  /* sql */ `
  with picked as (${PURGEABLE})
  select count(*)::int as n from /*schema*/jobs j
   where j.id in (select id from picked) or j.root_id in (select id from picked)`,
);
