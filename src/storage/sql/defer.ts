import { defineQuery } from './define-query.js';
import { appendHistory } from './history.js';
import type { IdRow } from './jobs.js';
import { STILL_ACTIVE } from './still-active.js';

/**
 * Put a running job back as `pending`, due in @delay_seconds, without spending the attempt
 * (`ctx.retryAfter`): the attempt count goes back down, so the next claim of the pending job
 * counts the same attempt again (a workflow resumed from a wait too: its claim had continued
 * the attempt, and the next one from `pending` counts one), and the deferral is kept in the
 * attempt log. The expiry no longer applies: the job has started. Its checkpoints stay.
 */
export const deferJob = defineQuery<
  { id: string; token: string; delay_seconds: number; reason: string | null; history: string | null },
  IdRow
>(
  'deferJob',
  /* sql */ `
  with deferred as (
    update /*schema*/jobs j
       set status = 'pending',
           attempts = greatest(j.attempts - 1, 0),
           run_at = now() + @delay_seconds::float8 * interval '1 second',
           expire_at = null,
           attempt_log = /*schema*/log_attempt(j.attempt_log,
             jsonb_build_object('attempt', j.attempts, 'startedAt', j.started_at, 'endedAt', now(),
                                'name', 'RetryAfter',
                                'message', 'retry after ' || @delay_seconds::float8 || ' s'
                                           || coalesce(': ' || @reason::text, ''),
                                'worker', j.locked_by)),
           wait = null,
           lock_token = null, locked_by = null, locked_until = null
     where j.id = @id::bigint and j.lock_token = @token::uuid and ${STILL_ACTIVE('j.')}
    returning j.id, j.attempts
  ),
  -- the attempt the run belonged to: the update gave it back (attempts - 1)
  ${appendHistory(`select d.id as job_id, d.attempts + 1 as attempt, @history::json as events,
           jsonb_build_object('outcome', 'deferred', 'delaySeconds', @delay_seconds::float8, 'reason', @reason::text) as note
      from deferred d`)}
  select id::text as id from deferred`,
);

/**
 * Park a running workflow as `paused` because its code no longer matches its record (the
 * determinism guard): the attempt is not spent, the error says what the record expected and
 * what the code did, and `resumeJob` makes it `pending` again. Its checkpoints stay.
 */
export const parkJob = defineQuery<
  { id: string; token: string; error: string; history: string | null },
  IdRow
>(
  'parkJob',
  /* sql */ `
  with parked as (
    update /*schema*/jobs j
       set status = 'paused',
           paused_from = 'pending',
           attempts = greatest(j.attempts - 1, 0),
           error = @error::jsonb,
           expire_at = null,
           attempt_log = /*schema*/log_attempt(j.attempt_log,
             jsonb_build_object('attempt', j.attempts, 'startedAt', j.started_at, 'endedAt', now(),
                                'name', @error::jsonb ->> 'name', 'message', @error::jsonb ->> 'message',
                                'worker', j.locked_by)),
           wait = null,
           lock_token = null, locked_by = null, locked_until = null
     where j.id = @id::bigint and j.lock_token = @token::uuid and ${STILL_ACTIVE('j.')}
    returning j.id, j.attempts
  ),
  ${appendHistory(`select p.id as job_id, p.attempts + 1 as attempt, @history::json as events,
           jsonb_build_object('outcome', 'paused', 'error', @error::jsonb) as note
      from parked p`)}
  select id::text as id from parked`,
);
