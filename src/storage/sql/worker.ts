import { defineQuery, type NoRows } from './define-query.js';
import { appendHistory } from './history.js';
import type { CoreJobColumns, PlainJobColumns } from './job-columns.js';
import type { IdRow } from './jobs.js';
import { STILL_ACTIVE } from './still-active.js';

/**
 * Commit this statement's transaction without waiting for the WAL flush. Only for writes
 * that are safe to lose in a database crash: a lost claim or heartbeat leaves the job
 * claimable again (execution is at-least-once), and any later durable commit, such as the
 * attempt's completion, flushes the WAL up to and including it. Outcomes and enqueues stay
 * durable.
 *
 * Not where the database runs inside the worker's process (PGlite, whose driver sets
 * `tidemark.durable_claims` for its session, which `claim_commit()` of migration 20 reads):
 * there a killed worker is a crashed database, and a claim lost with it would leave its
 * attempt uncounted, so a handler that kills its process would run for ever. A commit there
 * costs a write to the OS, not a flush to disk (PGlite runs with fsync off unless
 * strictDurability asks otherwise).
 */
const ASYNC_COMMIT = `set_config('synchronous_commit', /*schema*/claim_commit(), true)`;

/**
 * A timestamp of the claimed row as milliseconds since the epoch (float8, a number on both
 * drivers): a claim returns hundreds of rows, and parsing timestamp text was a visible share
 * of a claimed job's cost. `toDate` turns the number into a Date. `date_part` computes in
 * float8; `extract` returns numeric since PostgreSQL 14, and its arithmetic costs the server more.
 */
const EPOCH_MS_OF = (column: string) => `date_part('epoch', j.${column}) * 1000`;
const EPOCH_MS = (column: string) => `${EPOCH_MS_OF(column)} as ${column}`;

/** The columns of a claimed job that most jobs leave null (see RARE_COLUMNS). */
const RARE = [
  'output',
  'error',
  'parent_id',
  'root_id',
  'key',
  'tier',
  'tags',
  'progress',
  'metadata',
  'trace',
  'wait',
  'held_by',
] as const;

/** The rare columns as a claim returns them: one JSON object, bigint ids as text. */
export type RareClaimColumns = Partial<
  Pick<
    PlainJobColumns & { wait: Record<string, unknown> | null; held_by: string | null },
    (typeof RARE)[number]
  >
>;

/** What a claim returns of each row: the times as epoch milliseconds (EPOCH_MS). */
export interface ClaimedJobRow extends CoreJobColumns {
  /**
   * The job's frozen retention as JSON text, on the claim's lead row and on every row whose
   * retention differs from the lead's; null on the others, which have the lead's.
   */
  retention: string | null;
  lock_token: string;
  /** Every other column, when any of them is set (see RARE_COLUMNS). */
  rare: RareClaimColumns | null;
  run_at: number;
  expire_at: number | null;
  created_at: number;
  /** On the claim's lead row alone (its lowest id), which it marks: every row of a claim starts at the same now(). */
  started_at: number | null;
  /** The claim's fair order (0 unless the queue's keys are served round-robin). */
  score: number;
}

/**
 * The columns most claimed jobs leave null, in one JSON value (null when all are): every
 * column of a row is parsed for each of the hundreds a claim returns, so a dozen nulls cost a
 * worker more than one test on the server.
 */
const RARE_COLUMNS = /* sql */ `case when num_nonnulls(${RARE.map((c) => `j.${c}`).join(', ')}) = 0 then null
       else json_build_object(${RARE.map((c) => `'${c}', j.${c}${c.endsWith('_id') ? '::text' : ''}`).join(', ')}) end as rare`;

/**
 * Claim up to @limit ready jobs of the given queues, highest priority first, then oldest
 * run time. SKIP LOCKED lets many workers claim side by side without waiting on each other.
 * A workflow woken from `waiting` continues its attempt rather than starting a new one.
 *
 * Each queue is read by its own ordered scan of jobs_claim_idx (queue = one value), so a
 * claim touches about @limit index entries per queue however many jobs are ready; a
 * `queue = any(...)` filter would instead read and sort every ready row on each claim.
 * Rows locked by one queue's scan but cut by the outer limit are unlocked at commit. Paused
 * queues are left out once per queue, before the scans (MATERIALIZED keeps the planner from
 * moving the check after the join, where it probed the queues table once per claimed row).
 * Jobs with a concurrency key, and every job of a queue with a global limit, are chosen by
 * flow_candidates (migration 7), which holds the queue's lock while it counts what runs; a
 * queue with neither pays one probe of an empty index.
 * It returns only what the row does not already imply: a claimed row is `active`, locked by
 * @worker until started_at + @lock_seconds, with no finish or purge time, and Storage fills
 * those in (a claim returns hundreds of rows; every column is parsed for each). For the same
 * reason the columns most jobs leave null come as one value (RARE_COLUMNS). The retention (text
 * of a jsonb, whose output is the dearest column of a row: about a fifth of a claimed row's cost
 * on PGlite) and the start time, which every row of a claim shares, come on the claim's lead row
 * (its lowest id); another row carries its retention only where it differs from the lead's.
 * The claim commits without waiting for its WAL flush (see ASYNC_COMMIT). The claimed rows
 * are updated through an id array, so the planner reads them by primary key whatever it
 * guesses about how many a claim returns (a hash join over a seq scan of jobs, otherwise).
 */
/**
 * A job a worker may claim now: due, and not a pending job past its expiry (the tick fails
 * those). A waiting workflow whose timer is due is claimed too, to resume it.
 */
export const CLAIMABLE = `status in ('pending', 'retry', 'waiting')
          and run_at <= now()
          and (expire_at is null or expire_at > now() or attempts > 0 or status <> 'pending')`;

/**
 * The CTE `ready_queues` (name, limited): the queues of @queues that are not paused, and
 * whether each has a global limit.
 */
export const READY_QUEUES = /* sql */ `ready_queues as materialized (
    select q.name, coalesce(s.options ? 'globalConcurrency', false) as limited
      from unnest(@queues::text[]) as q(name)
      left join /*schema*/queues s on s.name = q.name
     where not coalesce(s.paused, false)
  )`;

/** Whether the ready queue `r` is claimed through flow_candidates: a global limit, or keyed jobs ready. */
export const FLOW_QUEUE = (r: string) => /* sql */ `${r}.limited
        or exists (select 1 from /*schema*/jobs k
                    where k.queue = ${r}.name and k.key is not null and k.status in ('pending', 'retry', 'waiting'))`;

export const claimJobs = defineQuery<
  {
    queues: string[];
    limit: number;
    worker: string;
    lock_seconds: number;
  },
  ClaimedJobRow
>(
  'claimJobs',
  /* sql */ `
  with ${READY_QUEUES},
  flow_queues as materialized (select r.name from ready_queues r where ${FLOW_QUEUE('r')}),
  next as (
    select c.id, c.score from (
      select p.id, p.priority, p.run_at, 0::float8 as score
        from ready_queues q
       cross join lateral (
         select id, priority, run_at from /*schema*/jobs
          where queue = q.name
            and key is null
            and ${CLAIMABLE}
          order by priority desc, run_at, id
          limit @limit
          for update skip locked
       ) p
       where not q.limited
      union all
      select f.job_id, f.job_priority, f.job_run_at, f.job_score
        from (select array_agg(name) as names from flow_queues having count(*) > 0) flow
       cross join lateral /*schema*/flow_candidates(flow.names, @limit::int) f
    ) c
     order by c.score, c.priority desc, c.run_at, c.id
     limit @limit
  )
  update /*schema*/jobs j
     set status = 'active',
         attempts = j.attempts + case when j.status = 'waiting' then 0 else 1 end,
         lock_token = gen_random_uuid(),
         locked_by = @worker,
         locked_until = now() + @lock_seconds * interval '1 second',
         started_at = now(),
         wait = case when j.status = 'waiting' then j.wait - 'poke' end
    from (select ${ASYNC_COMMIT}) as async_commit,
         -- the fair scores by job id, read once: none in a claim without fair keys
         (select jsonb_object_agg(id, score) as scores from next where score <> 0) as fair,
         -- the lead row, which carries what the rows share (no row when nothing is claimed)
         (select l.id, l.retention from /*schema*/jobs l where l.id = (select min(id) from next)) as lead
   where j.id = any(array(select id from next))
  returning j.id, j.queue, j.data, j.priority, j.attempts, j.max_attempts,
            case when j.id = lead.id or j.retention <> lead.retention then j.retention::text end as retention,
            j.lock_token, ${RARE_COLUMNS}, ${EPOCH_MS('run_at')}, ${EPOCH_MS('expire_at')},
            ${EPOCH_MS('created_at')},
            case when j.id = lead.id then ${EPOCH_MS_OF('started_at')} end as started_at,
            -- a claim without fair keys (most) looks up no row's score
            case when fair.scores is null then 0
                 else coalesce((fair.scores ->> j.id::text)::float8, 0) end as score`,
);

/** Extend the locks of running (and prefetched) attempts; returns the lock tokens still held. Commits without waiting for the WAL flush. */
export const extendLocks = defineQuery<
  { ids: string[]; tokens: string[]; lock_seconds: number },
  { token: string }
>(
  'extendLocks',
  /* sql */ `
  update /*schema*/jobs
     set locked_until = now() + @lock_seconds * interval '1 second'
    from (select ${ASYNC_COMMIT}) as async_commit
   where id = any(@ids::bigint[]) and lock_token = any(@tokens::uuid[]) and ${STILL_ACTIVE('')}
  returning lock_token::text as token`,
);

/**
 * Suspend a workflow: free its worker slot and park it in `waiting` until @wake_at (or
 * until a signal or child wakes it). A wake that arrived while it was running (the `poke`
 * mark) makes it due at once, so no wake-up is lost between checking and suspending.
 */
export const suspendJob = defineQuery<
  { id: string; token: string; wait: string; wake_at: Date | null; history: string | null },
  IdRow
>(
  'suspendJob',
  /* sql */ `
  with parked as (
    update /*schema*/jobs j
       set status = 'waiting',
           run_at = case when j.wait ? 'poke' then now() else coalesce(@wake_at::timestamptz, 'infinity') end,
           wait = @wait::jsonb,
           lock_token = null, locked_by = null, locked_until = null
     where j.id = @id::bigint and j.lock_token = @token::uuid and ${STILL_ACTIVE('j.')}
    returning j.id, j.attempts
  ),
  ${appendHistory(`select p.id as job_id, p.attempts as attempt, @history::json as events,
           jsonb_build_object('outcome', 'waiting', 'wait', @wait::jsonb ->> 'kind') as note from parked p`)}
  select id::text as id from parked`,
);

/**
 * Give claimed jobs back without counting the attempt (a worker stopping gracefully, or
 * claimed jobs it never started).
 */
export const releaseJobs = defineQuery<{ ids: string[]; tokens: string[] }, { id: string; queue: string }>(
  'releaseJobs',
  /* sql */ `
  update /*schema*/jobs
     set status = case when wait is not null and wait ? 'kind' then 'waiting' when attempts > 1 then 'retry' else 'pending' end,
         attempts = case when wait is not null and wait ? 'kind' then attempts else greatest(attempts - 1, 0) end,
         run_at = now(),
         lock_token = null, locked_by = null, locked_until = null
   where id = any(@ids::bigint[]) and lock_token = any(@tokens::uuid[]) and ${STILL_ACTIVE('')}
  returning id::text as id, queue`,
);

/**
 * A cancelled job's handler returned: clear the lock the cancel left on it (cancelSubtree),
 * so the job no longer holds its key's slot. Matches nothing unless the job is cancelled and
 * still holds this attempt's token.
 */
export const releaseCancelled = defineQuery<{ id: string; token: string }, NoRows>(
  'releaseCancelled',
  /* sql */ `
  update /*schema*/jobs
     set lock_token = null, locked_by = null, locked_until = null
   where id = @id::bigint and lock_token = @token::uuid and status = 'cancelled'`,
);
