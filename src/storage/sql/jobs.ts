import type { JobStatus } from '../../job-status.js';
import type { FrozenRetention, JobError } from '../../model/job.js';
import type { Timestamp } from './columns.js';
import { defineQuery } from './define-query.js';
import { IN_FLIGHT } from './statuses.js';
import { MAX_ATTEMPTS_OF_QUEUE, type QueueDefaultParams, RETENTION_OF_QUEUE } from './stored-queue.js';

/** Columns every job read returns; mapped to `Job` by rows.ts. */
export const JOB_COLUMNS = `id, queue, status, data, output, error, priority, attempts, max_attempts, run_at,
  expire_at, created_at, started_at, finished_at, parent_id, root_id, parent_step, locked_by, locked_until,
  unique_key, wait, retention, purge_after`;

/** A row of JOB_COLUMNS; ids are bigint, so strings. */
export interface JobRow {
  id: string;
  queue: string;
  status: JobStatus;
  data: unknown;
  output: unknown;
  error: JobError | null;
  priority: number;
  attempts: number;
  max_attempts: number;
  run_at: Timestamp;
  expire_at: Timestamp | null;
  created_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  parent_id: string | null;
  root_id: string | null;
  parent_step: string | null;
  locked_by: string | null;
  locked_until: Timestamp | null;
  unique_key: string | null;
  wait: Record<string, unknown> | null;
  retention: FrozenRetention;
  purge_after: Timestamp | null;
}

/** A statement that returns the ids it touched (bigint as text). */
export interface IdRow {
  id: string;
}

/**
 * The columns of one input row of an insert batch (the JSON written by Storage.insertJobs).
 * `policy` indexes @policies, the batch's distinct frozen retention windows: a batch
 * usually shares one, and parsing it once instead of once per row is about a sixth of a
 * bulk insert. A null `policy` or `max_attempts` takes the queue's stored option.
 */
const INPUT_ROW = `idx int, queue text, data jsonb, priority int, max_attempts int, run_at timestamptz,
        delay_seconds float8, expire_in_seconds float8, policy int, unique_key text,
        parent_id bigint, root_id bigint, parent_step text`;

/** The batch's rows, each with an id drawn up front so results map back to input order. */
const BATCH_INPUT = /* sql */ `input as (
    select nextval(seq.id) as id, x.*
      from (select pg_get_serial_sequence('/*schema*/jobs', 'id')::regclass as id) seq,
           jsonb_to_recordset(@jobs::jsonb) as x(${INPUT_ROW})
  )`;

/** Each input row's run time (`due.at`): its runAt, else now plus its delay. */
const DUE_AT = /* sql */ `cross join lateral (
       select coalesce(run_at, now() + coalesce(delay_seconds, 0) * interval '1 second') as at) due`;

/** One NOTIFY per queue that received work ready now; delivered at commit. */
const NUDGE_READY_QUEUES = /* sql */ `nudged as (
    select count(pg_notify(@channel, 'j:' || queue)) as n
      from (select distinct queue from inserted where run_at <= now()) ready
  )`;

/**
 * Insert a batch in one statement. Ids are drawn first so each input row maps back to its
 * id; rows whose `unique_key` is held by an in-flight job are skipped (deduplicated).
 * Workers waiting on a queue are nudged once per queue, at commit.
 */
/** The parameters of a batch insert. */
export type InsertJobsParams = QueueDefaultParams & {
  jobs: string;
  policies: string;
  channel: string;
};

/** An input row's retention and attempts: its own, else its queue's (see stored-queue.ts). */
const INPUT_OPTIONS = /* sql */ `${MAX_ATTEMPTS_OF_QUEUE('input.max_attempts', 'input.queue')},
           ${RETENTION_OF_QUEUE('@policies::jsonb -> input.policy', 'input.queue')}`;

export const insertJobs = defineQuery<InsertJobsParams, { idx: number; id: string; inserted: boolean }>(
  'insertJobs',
  /* sql */ `
  with ${BATCH_INPUT},
  inserted as (
    insert into /*schema*/jobs (id, queue, data, priority, run_at, expire_at, max_attempts, retention,
                                unique_key, parent_id, root_id, parent_step)
    select id, queue, coalesce(data, 'null'::jsonb), priority, due.at,
           due.at + expire_in_seconds * interval '1 second', ${INPUT_OPTIONS}, unique_key, parent_id,
           root_id, parent_step
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
export const insertPlainJobs = defineQuery<InsertJobsParams, IdRow>(
  'insertPlainJobs',
  /* sql */ `
  with inserted as (
    insert into /*schema*/jobs (queue, data, priority, run_at, expire_at, max_attempts, retention,
                                parent_id, root_id, parent_step)
    select queue, coalesce(data, 'null'::jsonb), priority, due.at,
           due.at + expire_in_seconds * interval '1 second', ${INPUT_OPTIONS}, parent_id, root_id,
           parent_step
      from jsonb_to_recordset(@jobs::jsonb) as input(${INPUT_ROW})
     ${DUE_AT}
     order by input.idx
    returning id, queue, run_at
  ),
  ${NUDGE_READY_QUEUES}
  select inserted.id::text as id
    from inserted cross join nudged
   order by inserted.id`,
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
 * Insert one job guarded by a time-windowed unique lock. The lock row is taken (or an
 * expired one replaced) in the same statement as the job insert; a live lock leaves both
 * untouched and the caller reads the original job id from the lock.
 */
export const insertJobWithLock = defineQuery<
  QueueDefaultParams & {
    job: string;
    scope: string;
    ttl_seconds: number;
    channel: string;
  },
  IdRow
>(
  'insertJobWithLock',
  /* sql */ `
  with input as (
    select nextval(pg_get_serial_sequence('/*schema*/jobs', 'id')) as id, x.*
      from jsonb_to_record(@job::jsonb) as x(
        queue text, data jsonb, priority int, max_attempts int, run_at timestamptz, delay_seconds float8,
        expire_in_seconds float8, retention jsonb, parent_id bigint, root_id bigint, parent_step text)
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
    insert into /*schema*/jobs (id, queue, data, priority, run_at, expire_at, max_attempts, retention,
                                parent_id, root_id, parent_step)
    select input.id, queue, coalesce(data, 'null'::jsonb), priority, due.at,
           due.at + expire_in_seconds * interval '1 second',
           ${MAX_ATTEMPTS_OF_QUEUE('input.max_attempts', 'input.queue')},
           ${RETENTION_OF_QUEUE('input.retention', 'input.queue')}, parent_id, root_id, parent_step
      from input
      join locked on locked.job_id = input.id
     ${DUE_AT}
    returning id, queue, run_at
  ),
  nudged as (
    select count(pg_notify(@channel, 'j:' || queue)) as n from inserted where run_at <= now()
  )
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
