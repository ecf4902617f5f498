import type { JobStatus } from '../../job-status.js';
import { defineQuery, defineSizedQuery, type NoParams } from './define-query.js';
import { GATE, GATE_OPEN, GATE_STATE, type GateRow } from './gate.js';
import { STILL_ACTIVE } from './still-active.js';

/** A callback token as stored. */
export interface StoredToken {
  id: string;
  job_id: string;
  name: string;
  state: 'pending' | 'completed' | 'cancelled' | 'expired';
  data: unknown;
  schema: unknown;
  expires_at: Date;
  /** Past its expiry by the database's clock. */
  expired: boolean;
  /** Its job's status (null only in a race with the job's removal). */
  job_status: JobStatus | null;
}

const TOKEN_COLUMNS = /* sql */ `id::text as id, job_id::text as job_id, name, state, data, schema, expires_at,
       expires_at <= now() as expired,
       (select j.status from /*schema*/jobs j where j.id = job_tokens.job_id) as job_status`;

/**
 * Make a workflow's token once per (job, name), only while the attempt owns the job. A replay
 * (the token made, its checkpoint not yet written) inserts nothing and findTokenByName reads it.
 */
export const insertToken = defineQuery<
  { id: string; job_id: string; token: string; name: string; seconds: number; schema: string | null },
  { id: string; expires_at: Date }
>(
  'insertToken',
  /* sql */ `
  insert into /*schema*/job_tokens (id, job_id, name, expires_at, schema)
  select @id::uuid, j.id, @name, now() + @seconds::float8 * interval '1 second', @schema::jsonb
    from /*schema*/jobs j
   where j.id = @job_id::bigint and j.lock_token = @token::uuid and ${STILL_ACTIVE('j.')}
  on conflict (job_id, name) do nothing
  returning id::text as id, expires_at`,
);

export const findTokenByName = defineQuery<{ job_id: string; name: string }, StoredToken>(
  'findTokenByName',
  /* sql */ `select ${TOKEN_COLUMNS} from /*schema*/job_tokens where job_id = @job_id::bigint and name = @name`,
);

export const readToken = defineQuery<{ id: string }, StoredToken>(
  'readToken',
  /* sql */ `select ${TOKEN_COLUMNS} from /*schema*/job_tokens where id = @id::uuid`,
);

/** The token, locked against a concurrent completion, cancellation or expiry. */
export const lockToken = defineQuery<{ id: string }, StoredToken>(
  'lockToken',
  /* sql */ `select ${TOKEN_COLUMNS} from /*schema*/job_tokens where id = @id::uuid for update`,
);

/** A job's tokens, oldest first: what its job page lists. */
export const listJobTokens = defineQuery<
  { job_id: string },
  {
    id: string;
    name: string;
    state: StoredToken['state'];
    created_at: Date;
    expires_at: Date;
    settled_at: Date | null;
  }
>(
  'listJobTokens',
  /* sql */ `
  select id::text as id, name, state, created_at, expires_at, settled_at
    from /*schema*/job_tokens
   where job_id = @job_id::bigint
   order by created_at, name`,
);

/**
 * A waiting workflow found its token past its time: mark it expired, so a completion that
 * comes later is refused rather than lost. Nothing when it was settled meanwhile or the
 * database's clock says it is not due yet.
 */
export const expireToken = defineQuery<{ id: string }, { state: string }>(
  'expireToken',
  /* sql */ `
  update /*schema*/job_tokens set state = 'expired', settled_at = now()
   where id = @id::uuid and state = 'pending' and expires_at <= now()
  returning state`,
);

/**
 * Settle a pending token (completed with @data, or cancelled) and wake its job if it is
 * parked on it, or mark it when it is running, so the suspension it is about to write does not
 * sleep through the completion (the `poke` mark, as signals do). A job paused while waiting
 * becomes due for when it is resumed. Run under lockToken's lock.
 */
export const settleToken = defineQuery<
  { id: string; state: 'completed' | 'cancelled'; data: string | null; channel: string },
  { job_status: JobStatus | null }
>(
  'settleToken',
  /* sql */ `
  with settled as (
    update /*schema*/job_tokens set state = @state, settled_at = now(), data = @data::jsonb
     where id = @id::uuid and state = 'pending'
    returning job_id
  ),
  woken as (
    update /*schema*/jobs j
       set run_at = case when j.wait ->> 'kind' = 'token' and j.wait ->> 'tokenId' = @id::uuid::text
                          and (j.status = 'waiting' or j.status = 'paused' and j.paused_from = 'waiting')
                         then now() else j.run_at end,
           wait = case when j.status = 'active' then coalesce(j.wait, '{}'::jsonb) || '{"poke": true}'::jsonb
                       else j.wait end
     where j.id = (select job_id from settled) and j.status in ('waiting', 'active', 'paused')
    returning j.queue, j.status, j.run_at
  ),
  nudged as (
    select count(pg_notify(@channel, 'j:' || queue)) as n from woken where status = 'waiting' and run_at <= now()
  )
  select (select status from woken) as job_status from settled cross join (select count(*) from nudged) n`,
);

/**
 * Pending or expired tokens past their expiry, behind the retention gate: no completion can
 * use them any more, and a workflow still parked on one times out without it (its checkpoint
 * holds the deadline). Completed and cancelled tokens stay until their job goes.
 */
export const deleteExpiredTokens = defineSizedQuery<NoParams, GateRow & { n: number }>(
  'deleteExpiredTokens',
  /* sql */ `
  with ${GATE},
  doomed as (
    select id from /*schema*/job_tokens
     where state in ('pending', 'expired') and expires_at <= now() and ${GATE_OPEN}
     order by expires_at
     limit @batch_size
       for update skip locked
  ),
  deleted as (
    delete from /*schema*/job_tokens t where t.id = any(array(select id from doomed)) returning t.id
  )
  select (select count(*) from deleted)::int as n, ${GATE_STATE}`,
);
