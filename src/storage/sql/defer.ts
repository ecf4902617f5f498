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
