import type { JobStatus } from '../../job-status.js';
import type { JobError } from '../../model/job.js';
import { defineQuery } from './define-query.js';
import {
  DUE_AT,
  INPUT_ROWS,
  INSERT_COLUMNS,
  INSERT_VALUES,
  type InsertParams,
  NUDGE_READY_QUEUES,
} from './job-columns.js';
import type { IdRow } from './jobs.js';
import { STILL_ACTIVE } from './still-active.js';

/** A checkpoint as stored. */
export interface StoredCheckpoint {
  name: string;
  kind: string;
  output: unknown;
  created_at: Date;
  seq: number | null;
}

/** A signal as stored (a consumed one's purge time is its consumption plus a window, never infinite). */
export interface StoredSignal {
  id: string;
  name: string;
  payload: unknown;
  created_at: Date;
  consumed_at: Date | null;
  consumed_by: string | null;
  purge_after: Date | null;
}

/** The checkpoint a completed signal wait stores: the signals it consumed. */
export interface SignalWaitResult {
  state: 'done';
  names: string[];
  signals: { name: string; payload: unknown }[];
}

export const listCheckpoints = defineQuery<{ id: string }, StoredCheckpoint>(
  'listCheckpoints',
  /* sql */ `select name, kind, output, created_at, seq from /*schema*/checkpoints where job_id = @id::bigint order by created_at, seq, name`,
);

/** Store a checkpoint, only while the attempt still owns the job. */
export const saveCheckpoint = defineQuery<
  {
    id: string;
    token: string;
    name: string;
    kind: string;
    output: string;
    /** The call's place in the run (the determinism guard); null for a write outside a run. */
    seq: number | null;
  },
  { name: string }
>(
  'saveCheckpoint',
  /* sql */ `
  insert into /*schema*/checkpoints as c (job_id, name, kind, output, seq)
  select @id::bigint, @name, @kind, @output::jsonb, @seq::int
   where exists (select 1 from /*schema*/jobs where id = @id::bigint and lock_token = @token::uuid and ${STILL_ACTIVE('')})
  on conflict (job_id, name) do update set output = excluded.output, kind = excluded.kind,
     seq = coalesce(c.seq, excluded.seq)
  returning name`,
);

/**
 * Consume @count pending signals named in @names (oldest first) and mark the wait done, in
 * one statement, only while the attempt owns the job and only when enough have arrived.
 * Consumed signals get their purge time from the job's frozen `consumedSignals` window, read
 * under a share lock on the job: an applyRetention batch re-freezing the job waits for this
 * statement (and then sees the signals it consumed), or this one waits for the batch and
 * reads the windows it froze.
 */
export const consumeSignals = defineQuery<
  {
    id: string;
    token: string;
    names: string[];
    count: number;
    wait_key: string;
  },
  /** Null: the attempt no longer owns the job, or too few signals have arrived. */
  { output: SignalWaitResult | null }
>(
  'consumeSignals',
  /* sql */ `
  with owner as (
    select id, retention from /*schema*/jobs
     where id = @id::bigint and lock_token = @token::uuid and ${STILL_ACTIVE('')}
       for share
  ),
  picked as (
    select s.id from /*schema*/signals s join owner on owner.id = s.job_id
     where s.name = any(@names::text[]) and s.consumed_at is null
     order by s.id
     limit @count
     for update of s
  ),
  enough as (select count(*) >= @count as ok from picked),
  consumed as (
    update /*schema*/signals s
       set consumed_at = now(), consumed_by = @wait_key,
           purge_after = now() + nullif((owner.retention ->> 'consumedSignals')::float8, 0) * interval '1 second'
      from picked, owner, enough
     where s.id = picked.id and enough.ok
    returning s.id, s.name, s.payload
  ),
  result as (
    select coalesce(jsonb_agg(jsonb_build_object('name', name, 'payload', payload) order by id), '[]'::jsonb) as got
      from consumed
  ),
  saved as (
    insert into /*schema*/checkpoints (job_id, name, kind, output)
    select @id::bigint, @wait_key, 'wait',
           jsonb_build_object('state', 'done', 'names', to_jsonb(@names::text[]), 'signals', result.got)
      from result, enough
     where enough.ok
    on conflict (job_id, name) do update set output = excluded.output
    returning output
  )
  select (select output from saved) as output`,
);

/**
 * Create a workflow's child (the batch's one input row) exactly once per (parent, step): a
 * replay finds the existing one. Nothing is inserted unless the parent's attempt, named by
 * its lock token, still owns it.
 */
export const insertChild = defineQuery<InsertParams & { token: string }, IdRow>(
  'insertChild',
  /* sql */ `
  with inserted as (
    insert into /*schema*/jobs (${INSERT_COLUMNS})
    select ${INSERT_VALUES}
      from ${INPUT_ROWS}
     ${DUE_AT}
     where exists (select 1 from /*schema*/jobs p
                    where p.id = input.parent_id and p.lock_token = @token::uuid and ${STILL_ACTIVE('p.')})
    on conflict (parent_id, parent_step) where parent_step is not null do nothing
    returning id, queue, run_at
  ),
  ${NUDGE_READY_QUEUES}
  select id::text as id from inserted cross join nudged`,
);

export const findChild = defineQuery<
  { parent_id: string; parent_step: string },
  { id: string; queue: string; status: JobStatus; output: unknown; error: JobError | null }
>(
  'findChild',
  /* sql */ `select id::text as id, queue, status, output, error from /*schema*/jobs
   where parent_id = @parent_id::bigint and parent_step = @parent_step`,
);

/**
 * Deliver a signal, inside a transaction that holds the job's row lock (taken by
 * lockJobForSignal) so the mailbox count cannot race another delivery.
 */
export const lockJobForSignal = defineQuery<
  { id: string },
  {
    id: string;
    queue: string;
    status: JobStatus;
    paused_from: JobStatus | null;
    /** The wait the job is parked in, as the workflow wrote it. */
    wait: { names?: unknown; count?: unknown } | null;
    /** The queue's mailbox size per signal name. */
    signals: Record<string, unknown> | null;
  }
>(
  'lockJobForSignal',
  /* sql */ `select j.id, j.queue, j.status, j.paused_from, j.wait, q.options -> 'signals' as signals
    from /*schema*/jobs j left join /*schema*/queues q on q.name = j.queue
   where j.id = @id::bigint
   for update of j`,
);

/**
 * The mailbox state of one signal name: pending signals of that name, pending signals across
 * the names of the wait the job is parked in (@wait_names, empty when it is not waiting), and
 * whether a wait on that name has already completed.
 */
export const countPendingSignals = defineQuery<
  { id: string; name: string; wait_names: string[] },
  { pending: number; pending_for_wait: number; wait_done: boolean }
>(
  'countPendingSignals',
  /* sql */ `
  select count(*) filter (where name = @name)::int as pending,
         count(*) filter (where name = any(@wait_names::text[]))::int as pending_for_wait,
         exists (select 1 from /*schema*/checkpoints c
                  where c.job_id = @id::bigint and c.kind = 'wait' and c.output ->> 'state' = 'done'
                    and c.output -> 'names' ? @name) as wait_done
    from /*schema*/signals
   where job_id = @id::bigint and (name = @name or name = any(@wait_names::text[])) and consumed_at is null`,
);

/**
 * Store the signal and wake the job if it waits for it (or mark it, if it is running, so
 * its suspension does not sleep through it). A job paused while waiting for it becomes due
 * for when it is resumed; the signal does not unpause it.
 */
export const insertSignal = defineQuery<
  { id: string; name: string; payload: string; channel: string },
  IdRow
>(
  'insertSignal',
  /* sql */ `
  with stored as (
    insert into /*schema*/signals (job_id, name, payload) values (@id::bigint, @name, @payload::jsonb)
    returning id
  ),
  woken as (
    update /*schema*/jobs j
       set run_at = case when coalesce(j.wait -> 'names', '[]') ? @name
                          and (j.status = 'waiting' or j.status = 'paused' and j.paused_from = 'waiting')
                         then now() else j.run_at end,
           wait = case when j.status = 'active' then coalesce(j.wait, '{}'::jsonb) || '{"poke": true}'::jsonb
                       else j.wait end
     where j.id = @id::bigint and j.status in ('waiting', 'active', 'paused')
    returning j.queue, j.status, j.run_at
  ),
  nudged as (
    select count(pg_notify(@channel, 'j:' || queue)) as n from woken where status = 'waiting' and run_at <= now()
  )
  select stored.id::text as id from stored cross join (select count(*) from nudged) n`,
);

export const listSignals = defineQuery<{ id: string }, StoredSignal>(
  'listSignals',
  /* sql */ `select id::text as id, name, payload, created_at, consumed_at, consumed_by, purge_after
    from /*schema*/signals where job_id = @id::bigint order by signals.id`,
);
