import { defineQuery } from './define-query.js';
import { STILL_ACTIVE } from './still-active.js';

/*
 * What handlers say of their jobs while they run (migration 10): progress and metadata on the
 * job's row, log lines in job_logs. Written by the attempt that holds the job's lock, many
 * jobs per statement, off the path of the outcome.
 */

/** When a line written at `at` leaves on its own: its job's `logsAfterSeconds` later, or never (null). */
export const LOG_PURGE_TIME = (at: string, retention: string) =>
  `${at} + nullif((${retention} ->> 'logsAfterSeconds')::float8, 0) * interval '1 second'`;

/** The caps of a job's log, across all its attempts. */
export type LogCaps = {
  max_lines: number;
  max_bytes: number;
};

/**
 * Write the notes of many running jobs in one statement. Each entry names its attempt's lock
 * token, and the job must still be active: a job lost meanwhile (cancelled, reclaimed) takes
 * none of its notes, even while a cancelled job keeps its lock until its handler returns. `progress` and
 * `metadata`, when given, replace the stored values whole (the attempt holds the merged
 * metadata). Log lines beyond the job's caps, counted over the lines it already has, are
 * dropped and counted in `log_dropped`; a line's size is its message and attributes in bytes.
 */
export const writeJobNotes = defineQuery<
  LogCaps & {
    channel: string;
    /**
     * JSON array of { id, token, attempt, progress?, metadata?, logs?: [{ n, level, message,
     * attrs?, at }], dropped? } (`dropped`: lines the worker refused before writing).
     */
    notes: string;
  },
  { id: string; written: number; dropped: number }
>(
  'writeJobNotes',
  /* sql */ `
  with note as (
    select * from jsonb_to_recordset(@notes::jsonb)
           as n(id bigint, token uuid, attempt int, progress jsonb, metadata jsonb, logs jsonb, dropped int)
  ),
  -- Share-locked, in id order, as signals are consumed: applying a policy to history waits
  -- for this write or is waited for, so no line keeps a window its job no longer has.
  owned as (
    select j.id, j.queue, j.retention, n.attempt, n.progress, n.metadata, n.logs, coalesce(n.dropped, 0) as refused
      from /*schema*/jobs j
      join note n on n.id = j.id and n.token = j.lock_token
     where j.id = any(array(select id from note)) and ${STILL_ACTIVE('j.')}
     order by j.id
       for share of j
  ),
  line as (
    select o.id as job_id, o.attempt, l.n, l.level, l.message, l.attrs, l.at, o.retention,
           octet_length(l.message) + coalesce(octet_length(l.attrs::text), 0) as bytes
      from owned o
     cross join lateral jsonb_to_recordset(coalesce(o.logs, '[]'))
           as l(n int, level text, message text, attrs jsonb, at timestamptz)
  ),
  used as (
    select x.job_id, count(*) as lines,
           sum(octet_length(x.message) + coalesce(octet_length(x.attrs::text), 0)) as bytes
      from /*schema*/job_logs x
     where x.job_id = any(array(select distinct job_id from line))
     group by x.job_id
  ),
  ranked as (
    select l.*, row_number() over w as nth, sum(l.bytes) over w as running
      from line l
    window w as (partition by l.job_id order by l.n)
  ),
  kept as (
    select r.* from ranked r
      left join used u on u.job_id = r.job_id
     where coalesce(u.lines, 0) + r.nth <= @max_lines
       and coalesce(u.bytes, 0) + r.running <= @max_bytes
  ),
  logged as (
    insert into /*schema*/job_logs (job_id, attempt, level, message, attrs, logged_at, purge_after)
    select k.job_id, k.attempt, k.level, k.message, k.attrs, k.at, ${LOG_PURGE_TIME('k.at', 'k.retention')}
      from kept k
     order by k.job_id, k.n
    returning job_id
  ),
  tally as (
    select o.id, o.queue, o.progress, o.metadata, coalesce(k.written, 0) as written,
           coalesce(l.lines, 0) - coalesce(k.written, 0) + o.refused as dropped
      from owned o
      left join (select job_id, count(*) as lines from line group by job_id) l on l.job_id = o.id
      left join (select job_id, count(*) as written from kept group by job_id) k on k.job_id = o.id
  ),
  noted as (
    update /*schema*/jobs j
       set progress = coalesce(t.progress, j.progress),
           metadata = coalesce(t.metadata, j.metadata),
           log_dropped = case when t.dropped > 0 then coalesce(j.log_dropped, 0) + t.dropped
                              else j.log_dropped end
      from tally t
     where j.id = t.id
       and (t.progress is not null or t.metadata is not null or t.dropped > 0)
  ),
  -- Subscribers (tm.subscribe) read the job again: its id and queue, delivered at commit.
  told as (select count(pg_notify(@channel, 'n:' || t.id || ':' || t.queue)) as n from tally t)
  -- Joined so that it runs: a CTE that only reads runs when something reads it.
  select t.id::text as id, t.written::int as written, t.dropped::int as dropped from tally t, told`,
);

/** A log line as read back. */
export interface JobLogRow {
  id: string;
  attempt: number;
  level: 'info' | 'warn' | 'error';
  message: string;
  attrs: Record<string, unknown> | null;
  logged_at: Date;
}

/** A job's log lines, oldest first, from a cursor (the id of the last line already read). */
export const listJobLogs = defineQuery<{ job_id: string; after: string; limit: number }, JobLogRow>(
  'listJobLogs',
  /* sql */ `
  select x.id::text as id, x.attempt, x.level, x.message, x.attrs, x.logged_at
    from /*schema*/job_logs x
   where x.job_id = @job_id::bigint and x.id > @after::bigint
   order by x.id
   limit @limit`,
);

/** How many log lines the job's caps refused; no row when there is no such job. */
export const jobLogDropped = defineQuery<{ job_id: string }, { dropped: number }>(
  'jobLogDropped',
  /* sql */ `select coalesce(j.log_dropped, 0) as dropped from /*schema*/jobs j where j.id = @job_id::bigint`,
);
