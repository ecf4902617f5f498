import type { JobStatus } from '../../job-status.js';
import { defineQuery } from './define-query.js';
import {
  DUE_AT,
  INPUT_ROWS,
  INSERT_COLUMNS,
  INSERT_VALUES,
  type InsertParams,
  JOB_COLUMNS,
  type JobRow,
  NUDGE_READY_QUEUES,
} from './job-columns.js';
import { IN_FLIGHT } from './statuses.js';
import { MAX_ATTEMPTS_OF_QUEUE, type QueueDefaultParams, RETENTION_OF_QUEUE } from './stored-queue.js';

/** A statement that returns the ids it touched (bigint as text). */
export interface IdRow {
  id: string;
}

/**
 * Insert a batch in one statement. Ids are drawn first so each input row maps back to its
 * id; rows whose `unique_key` is held by an in-flight job are skipped (deduplicated).
 * Workers waiting on a queue are nudged once per queue, at commit.
 */
export const insertJobs = defineQuery<InsertParams, { idx: number; id: string; inserted: boolean }>(
  'insertJobs',
  /* sql */ `
  with input as (
    select nextval(seq.id) as id, input.*
      from (select pg_get_serial_sequence('/*schema*/jobs', 'id')::regclass as id) seq,
           ${INPUT_ROWS}
  ),
  inserted as (
    insert into /*schema*/jobs (id, ${INSERT_COLUMNS})
    select input.id, ${INSERT_VALUES}
      from input
     ${DUE_AT}
    on conflict (queue, unique_key) where unique_key is not null
      and status in ${IN_FLIGHT} do nothing
    returning id, queue, run_at
  ),
  ${NUDGE_READY_QUEUES}
  select input.idx, input.id::text as id, (inserted.id is not null) as inserted
    from input left join inserted on inserted.id = input.id
   cross join nudged
   order by input.idx`,
);

/**
 * insertJobs for a batch in which no row has a `unique` key (the common bulk case): with
 * nothing to deduplicate there is no ON CONFLICT, whose speculative insertion costs every
 * row an extra write, and every row is inserted. Ids come from the column's own default,
 * about a fifth cheaper per row than calling nextval() in the query; the rows are inserted
 * in input order and a volatile default is evaluated after the ORDER BY, so the ids rise
 * with the input and the n-th smallest id is the n-th row's.
 */
export const insertPlainJobs = defineQuery<InsertParams, IdRow>(
  'insertPlainJobs',
  /* sql */ `
  with inserted as (
    insert into /*schema*/jobs (${INSERT_COLUMNS})
    select ${INSERT_VALUES}
      from ${INPUT_ROWS}
     ${DUE_AT}
     order by input.idx
    returning id, queue, run_at
  ),
  ${NUDGE_READY_QUEUES}
  select inserted.id::text as id
    from inserted cross join nudged
   order by inserted.id`,
);

/** The parameters of insertUniformJobs: what the batch's rows share, and each row's data. */
export type UniformInsertParams = QueueDefaultParams & {
  queue: string;
  priority: number;
  /** Null: the queue's stored option, else the engine's default (as MAX_ATTEMPTS_OF_QUEUE reads). */
  max_attempts: number | null;
  /** The frozen retention windows as JSON; null: the queue's stored option, else the default. */
  retention: string | null;
  /** The trace context as JSON, or null. */
  trace: string | null;
  version: string | null;
  /** Every row's data, a JSON array in input order. */
  data: string;
  channel: string;
};

/**
 * insertPlainJobs for a batch whose rows differ in their data alone: one queue, priority,
 * attempts, retention, trace and version, and nothing else set (no run time, delay, expiry,
 * key, tags or parent). The usual bulk add. What they share is bound once instead of read
 * from each row, the data come as one JSON array, and the ids go back as one text: about a
 * quarter cheaper per row than the general statement, whose record of twenty fields is
 * looked up in every row. Ids rise with the input, as in insertPlainJobs. The queue received
 * work due now, so it is nudged at commit.
 */
export const insertUniformJobs = defineQuery<UniformInsertParams, { ids: string }>(
  'insertUniformJobs',
  /* sql */ `
  with inserted as (
    insert into /*schema*/jobs (queue, data, priority, max_attempts, retention, trace, version)
    select @queue::text, input.data, @priority::int,
           ${MAX_ATTEMPTS_OF_QUEUE('@max_attempts::int', '@queue')},
           ${RETENTION_OF_QUEUE('@retention::jsonb', '@queue')},
           @trace::jsonb, @version::text
      from jsonb_array_elements(@data::jsonb) with ordinality as input(data, idx)
     order by input.idx
    returning id
  )
  select string_agg(inserted.id::text, ',' order by inserted.id) as ids
    from inserted cross join (select pg_notify(@channel, 'j:' || @queue)) as nudged`,
);

/** The in-flight job that holds a `unique` key (for a deduplicated add). */
export const findUniqueHolder = defineQuery<{ queue: string; unique_key: string }, IdRow>(
  'findUniqueHolder',
  /* sql */ `
  select id::text as id from /*schema*/jobs
   where queue = @queue and unique_key = @unique_key
     and status in ${IN_FLIGHT}`,
);

/**
 * Insert one job (the batch's one input row) guarded by a time-windowed unique lock. The lock
 * row is taken (or an expired one replaced) in the same statement as the job insert; a live
 * lock leaves both untouched and the caller reads the original job id from the lock.
 */
export const insertJobWithLock = defineQuery<InsertParams & { scope: string; ttl_seconds: number }, IdRow>(
  'insertJobWithLock',
  /* sql */ `
  with input as (
    select nextval(pg_get_serial_sequence('/*schema*/jobs', 'id')) as id, input.*
      from ${INPUT_ROWS}
  ),
  locked as (
    insert into /*schema*/unique_locks (scope, job_id, expires_at)
    select @scope, id, now() + @ttl_seconds * interval '1 second' from input
    on conflict (scope) do update
      set job_id = excluded.job_id, expires_at = excluded.expires_at, created_at = now()
      where /*schema*/unique_locks.expires_at <= now()
    returning job_id
  ),
  inserted as (
    insert into /*schema*/jobs (id, ${INSERT_COLUMNS})
    select input.id, ${INSERT_VALUES}
      from input
      join locked on locked.job_id = input.id
     ${DUE_AT}
    returning id, queue, run_at
  ),
  ${NUDGE_READY_QUEUES}
  select inserted.id::text as id from inserted cross join nudged`,
);

export const findLockHolder = defineQuery<{ scope: string }, IdRow>(
  'findLockHolder',
  /* sql */ `select job_id::text as id from /*schema*/unique_locks where scope = @scope and expires_at > now()`,
);

export const getJob = defineQuery<{ id: string }, JobRow>(
  'getJob',
  `select ${JOB_COLUMNS} from /*schema*/jobs where id = @id::bigint`,
);

export const getJobs = defineQuery<{ ids: string[] }, JobRow>(
  'getJobs',
  `select ${JOB_COLUMNS} from /*schema*/jobs where id = any(@ids::bigint[])`,
);

/** The status of each id that still exists (for result() polling). */
export const getStatuses = defineQuery<{ ids: string[] }, { id: string; status: JobStatus }>(
  'getStatuses',
  /* sql */ `select id::text as id, status from /*schema*/jobs where id = any(@ids::bigint[])`,
);

export const listChildren = defineQuery<{ id: string }, JobRow>(
  'listChildren',
  `select ${JOB_COLUMNS} from /*schema*/jobs where parent_id = @id::bigint order by id`,
);
