import type { JobStatus } from '../../job-status.js';
import { defineQuery } from './define-query.js';
import { appendHistory } from './history.js';
import type { IdRow } from './jobs.js';
import { STILL_ACTIVE } from './still-active.js';

/* The statements that write an attempt's outcome: batched, or inside a completion transaction. */

/**
 * Record the outcome of many attempts in one statement. Each row names the lock token of
 * its attempt; a row whose job was cancelled or reclaimed meanwhile matches nothing and
 * changes nothing. Failed attempts go to `retry` after their delay, or to `failed` when
 * attempts are spent or the error is not retryable. The outcomes arrive as one JSON array:
 * building it is cheaper than seven array parameters, and outputs and errors, already JSON
 * text, are embedded as they are. It returns a row, by lock token, for each outcome that did
 * not complete its job: a failure with the job's new status, and an attempt that no longer
 * owned its job with a null status.
 */
const finishAttemptsQuery = (name: string, history: string) =>
  defineQuery<
    {
      /** JSON array of { id, token, ok, output?, error?, retry_delay?, drop_checkpoints?, history? } (absent reads as null); see Storage. */
      outcomes: string;
    },
    { token: string; status: JobStatus | null }
  >(
    name,
    /* sql */ `
  with outcome as (
    select * from json_to_recordset(@outcomes::json)
           as o(id bigint, token uuid, ok boolean, output json, error json, retry_delay float8,
                drop_checkpoints boolean, history json)
  ),
  -- A failed attempt retries when it is retryable (a delay was given) and attempts remain.
  -- Decided against the row in the one UPDATE, without joining jobs a second time.
  finished as (
    update /*schema*/jobs j
       set status = case when o.ok then 'completed'
                         when o.retry_delay is not null and j.attempts < j.max_attempts then 'retry'
                         else 'failed' end,
           output = case when o.ok then coalesce(o.output::jsonb, 'null') else j.output end,
           error = case when o.ok then j.error else o.error::jsonb end,
           attempt_log = case when o.ok then j.attempt_log else /*schema*/log_attempt(j.attempt_log,
             jsonb_build_object('attempt', j.attempts, 'startedAt', j.started_at, 'endedAt', now(),
                                'name', o.error ->> 'name', 'message', o.error ->> 'message',
                                'worker', j.locked_by)) end,
           run_at = case when not o.ok and o.retry_delay is not null and j.attempts < j.max_attempts
                         then now() + o.retry_delay * interval '1 second' else j.run_at end,
           finished_at = case when o.ok or o.retry_delay is null or j.attempts >= j.max_attempts then now() end,
           purge_after = /*schema*/purge_time(j.retention,
                           case when o.ok then 'completed'
                                when o.retry_delay is not null and j.attempts < j.max_attempts then 'retry'
                                else 'failed' end, now()),
           ran_by = j.locked_by,
           lock_token = null, locked_by = null, locked_until = null, wait = null
      from outcome o
     where j.id = any(array(select id from outcome)) and j.id = o.id and j.lock_token = o.token
       and ${STILL_ACTIVE('j.')}
    returning j.id, j.status, j.attempts, o.token
  ),
  ${history}
  dropped as (
    delete from /*schema*/checkpoints c
     using finished f, outcome o
     where c.job_id = f.id and o.id = f.id and f.status = 'completed' and o.drop_checkpoints
  )
  -- Only what did not simply complete: a completion always ends 'completed', and the worker
  -- parses no row for it (a batch is hundreds of outcomes, nearly all completions).
  select o.token::text as token, f.status
    from outcome o left join finished f on f.token = o.token
   where f.token is null or not o.ok`,
  );

/** A batch of plain jobs' outcomes: no run history to write, and no CTE for it. */
export const finishAttempts = finishAttemptsQuery('finishAttempts', '');

/** A batch with a workflow's run among its outcomes: their history events are written too. */
export const finishAttemptsWithHistory = finishAttemptsQuery(
  'finishAttemptsWithHistory',
  `${appendHistory(`select f.id as job_id, f.attempts as attempt, o.history as events,
           jsonb_build_object('outcome', f.status) || case when o.ok then '{}'::jsonb
             else jsonb_build_object('error', jsonb_build_object('name', o.error ->> 'name', 'message', o.error ->> 'message')) end as note
      from finished f join outcome o on o.id = f.id where o.history is not null`)},`,
);

/** Complete one attempt inside a caller-visible transaction (ctx.completionTx). */
export const completeOne = defineQuery<
  {
    id: string;
    token: string;
    output: string | null;
    drop_checkpoints: boolean;
    /** The run's history events (a JSON array), or null for a run that has none. */
    history: string | null;
  },
  IdRow
>(
  'completeOne',
  /* sql */ `
  with finished as (
    update /*schema*/jobs j
       set status = 'completed', output = @output::jsonb, finished_at = now(),
           purge_after = /*schema*/purge_time(j.retention, 'completed', now()),
           ran_by = j.locked_by,
           lock_token = null, locked_by = null, locked_until = null, wait = null
     where j.id = @id::bigint and j.lock_token = @token::uuid and ${STILL_ACTIVE('j.')}
    returning j.id, j.attempts
  ),
  ${appendHistory(`select f.id as job_id, f.attempts as attempt, @history::json as events,
           '{"outcome": "completed"}'::jsonb as note from finished f`)},
  dropped as (
    delete from /*schema*/checkpoints c using finished f where c.job_id = f.id and @drop_checkpoints::boolean
  )
  select id::text as id from finished`,
);
