/**
 * Rate limits: named token buckets shared by queues and processes (`tm.defineLimiter`), one
 * bucket per limiter and key. A job of a queue with `limiters` starts only when each bucket
 * it names has its cost in tokens; the worker asks take_limiter_tokens right after a claim,
 * before any handler runs.
 *
 * A bucket is GCRA's single timestamp rather than a count and a refill time: `tat`, the moment
 * it is full again. A grant moves it on by cost x spacing, where spacing is the period over the
 * limit (plus a guard, below); a job fits while tat stays within (burst + 1) spacings of now.
 * In any span of one period, so, the costs granted total at most limit + burst. A bucket whose
 * tat has passed is full, the same as no row: the sweep deletes such rows, and nothing is lost.
 *
 * The guard: a grant and its handler's start are apart, by a statement's return and by the
 * time a job waits in the worker's buffer for a slot. Spacing grants by (period + guard) /
 * limit, with a guard of a twentieth of the period and at most 50 ms, and starting a granted
 * job within the guard or giving it back with its tokens spent (the worker does), keeps the
 * bound on the handlers' own clock: a period of their clock is at most period + guard of the
 * grants'.
 */
export const name = 'rate-limits';

/** A claimed row back to what it was before its claim (as releaseJobs does), due at its turn. */
const UNCLAIM = `status = case when j.wait is not null and j.wait ? 'kind' then 'waiting'
                        when j.attempts > 1 then 'retry' else 'pending' end,
          attempts = case when j.wait is not null and j.wait ? 'kind' then j.attempts
                          else greatest(j.attempts - 1, 0) end,
          run_at = job_turn,
          lock_token = null, locked_by = null, locked_until = null`;

export const sql = /* sql */ `
create table /*schema*/limiters (
  name text primary key,
  limit_count int not null check (limit_count > 0),
  period_seconds float8 not null check (period_seconds > 0),
  burst int not null default 0 check (burst >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- One bucket per limiter and key ('' for a limiter without a key). booked is tat counting the
-- turns given to the jobs the bucket held back as well: a new job queues behind them, so held
-- jobs are not passed over by every newcomer. booked >= tat always.
create table /*schema*/limiter_buckets (
  limiter text not null references /*schema*/limiters (name) on delete cascade,
  key text not null,
  tat timestamptz not null,
  booked timestamptz not null,
  primary key (limiter, key)
);
-- Full buckets, for the sweep: booked has passed.
create index limiter_buckets_booked_idx on /*schema*/limiter_buckets (booked);

-- The limiter (and its key) that last held the job back, while it waits for its turn: what
-- limiterStatus counts. Cleared when a limiter lets the job start.
alter table /*schema*/jobs add column held_by text, add column held_key text;
create index jobs_held_idx on /*schema*/jobs (held_by, held_key)
  where held_by is not null and status in ('pending', 'retry', 'waiting');

-- The time one token stands for: the period over the limit, with the guard above.
create function /*schema*/limiter_spacing(period_seconds float8, limit_count int) returns interval
language sql immutable as $$
  select (period_seconds + least(period_seconds / 20, 0.05)) / limit_count * interval '1 second'
$$;

-- Bucket locks, in one order for every call: made where missing, then locked, so calls that
-- share buckets wait for each other in turn and never in a cycle.
create function /*schema*/lock_limiter_buckets(names text[], keys text[]) returns void
language sql volatile as $$
  insert into /*schema*/limiter_buckets as b (limiter, key, tat, booked)
  select distinct x.name, x.key, '-infinity'::timestamptz, '-infinity'::timestamptz
    from unnest(names, keys) as x(name, key)
   where exists (select 1 from /*schema*/limiters l where l.name = x.name)
   order by 1, 2
  on conflict (limiter, key) do update set tat = b.tat
$$;

-- The common case, in one pass: a claim's jobs ask @totals[i] tokens of bucket (@names[i],
-- @keys[i]) in all; when no bucket has a turn booked and each holds all it is asked, every job
-- is granted at once, each bucket moved on once, and the one row says when, with the least
-- guard of the limiters (stricter for some jobs, never looser). No row: the call changed
-- nothing, and take_limiter_tokens decides job by job. @held are the jobs that came at a
-- held turn: no longer held.
create function /*schema*/grant_limiter_tokens(names text[], keys text[], totals int[], held bigint[])
returns table (granted_at timestamptz, guard float8)
language plpgsql volatile as $fn$
declare
  at timestamptz;
begin
  perform set_config('synchronous_commit', 'off', true);
  perform /*schema*/lock_limiter_buckets(names, keys);
  at := clock_timestamp();
  if exists (
    select 1
      from unnest(names, keys, totals) as s(name, key, total)
      left join /*schema*/limiters l on l.name = s.name
      left join /*schema*/limiter_buckets b on b.limiter = s.name and b.key = s.key
     where l.name is null or b.booked > at or s.total > l.burst + 1
  ) then
    return;
  end if;
  update /*schema*/limiter_buckets b
     set tat = at + s.total * /*schema*/limiter_spacing(l.period_seconds, l.limit_count),
         booked = at + s.total * /*schema*/limiter_spacing(l.period_seconds, l.limit_count)
    from unnest(names, keys, totals) as s(name, key, total)
    join /*schema*/limiters l on l.name = s.name
   where b.limiter = s.name and b.key = s.key;
  if cardinality(held) > 0 then
    update /*schema*/jobs j set held_by = null, held_key = null where j.id = any(held);
  end if;
  return query
    select at, min(least(l.period_seconds / 20, 0.05))
      from /*schema*/limiters l
     where l.name = any(names);
end
$fn$;

-- Take the tokens for claimed jobs, in claim order: @requests is a JSON array of
-- { id, token, held, limits: [{ name, key, cost }] } (held: the claim found the job's held_by
-- set). Each job gets a verdict:
--   granted   its tokens are taken at turn: start it within guard seconds of then (the least
--             of its limiters' guards), or give it back with the tokens spent;
--   held      a bucket lacks the tokens: back as it was, due at its turn (the returned time),
--             its tokens untouched, the turn booked in each of its buckets;
--   missing   it names a limiter that does not exist (detail: its name), or
--   refused   a cost larger than the bucket ever holds (detail: the limiter): left claimed, for the
--             worker to fail. Nothing is taken.
-- Every bucket the call touches is made and locked first (lock_limiter_buckets).
create function /*schema*/take_limiter_tokens(requests jsonb)
returns table (job_id bigint, verdict text, detail text, turn timestamptz, guard float8)
language plpgsql volatile as $fn$
declare
  r record;
  e record;
  at timestamptz;
  was_held boolean;
  refusal text;
  missing text;
  job_turn timestamptz;
  blocked_by text;
  blocked_key text;
  job_guard float8;
begin
  -- Commit without waiting for the WAL flush, as a claim does: the grant goes with the claim it
  -- follows. A database crash can lose the last fraction of a second of both (see flow-control.md).
  perform set_config('synchronous_commit', 'off', true);
  perform /*schema*/lock_limiter_buckets(names, keys)
    from (select array_agg(x.name) as names, array_agg(x.key) as keys
            from jsonb_array_elements(requests) q
           cross join lateral jsonb_to_recordset(q -> 'limits') as x(name text, key text, cost int)) a;
  -- Granted from here: a call that waited for another's buckets grants after it, not before.
  at := clock_timestamp();

  for r in
    select (q ->> 'id')::bigint as id, (q ->> 'token')::uuid as token, q -> 'limits' as limits,
           (q ->> 'held')::boolean as held
      from jsonb_array_elements(requests) with ordinality as t(q, n)
     order by t.n
  loop
    refusal := null;
    missing := null;
    job_turn := at;
    blocked_by := null;
    blocked_key := null;
    job_guard := null;
    was_held := coalesce(r.held, false);
    for e in
      select x.name, x.key, x.cost, l.name is not null as known, l.burst,
             /*schema*/limiter_spacing(l.period_seconds, l.limit_count) as spacing,
             least(l.period_seconds / 20, 0.05) as guard,
             -- a held job spends the tokens its turn was booked on; a new one queues behind the turns
             case when was_held then b.tat else b.booked end as level
        from jsonb_to_recordset(r.limits) as x(name text, key text, cost int)
        left join /*schema*/limiters l on l.name = x.name
        left join /*schema*/limiter_buckets b on b.limiter = x.name and b.key = x.key
    loop
      if not e.known then
        missing := e.name;
        exit;
      end if;
      if e.cost > e.burst + 1 then
        refusal := e.name;
        exit;
      end if;
      job_guard := least(coalesce(job_guard, e.guard), e.guard);
      -- the earliest moment the bucket holds the cost: tat + cost x spacing within (burst + 1) spacings
      if greatest(e.level, at) + (e.cost - e.burst - 1) * e.spacing > job_turn then
        job_turn := greatest(e.level, at) + (e.cost - e.burst - 1) * e.spacing;
        blocked_by := e.name;
        blocked_key := e.key;
      end if;
    end loop;

    if missing is not null then
      job_id := r.id; verdict := 'missing'; detail := missing; turn := null; guard := null;
      return next;
    elsif refusal is not null then
      job_id := r.id; verdict := 'refused'; detail := refusal; turn := null; guard := null;
      return next;
    elsif job_turn > at then
      -- Book the turn in each bucket (a job held again keeps the one it has), and put the job back.
      if not was_held then
        update /*schema*/limiter_buckets b
           set booked = greatest(b.booked, job_turn)
                        + x.cost * /*schema*/limiter_spacing(l.period_seconds, l.limit_count)
          from jsonb_to_recordset(r.limits) as x(name text, key text, cost int)
          join /*schema*/limiters l on l.name = x.name
         where b.limiter = x.name and b.key = x.key;
      end if;
      update /*schema*/jobs j
         set ${UNCLAIM}, held_by = blocked_by, held_key = blocked_key
       where j.id = r.id and j.lock_token = r.token and j.status = 'active';
      job_id := r.id; verdict := 'held'; detail := blocked_by; turn := job_turn; guard := null;
      return next;
    else
      update /*schema*/limiter_buckets b
         set tat = greatest(b.tat, at) + x.cost * s.spacing,
             booked = greatest(greatest(b.tat, at) + x.cost * s.spacing,
                               case when was_held then b.booked else greatest(b.booked, at) + x.cost * s.spacing end)
        from jsonb_to_recordset(r.limits) as x(name text, key text, cost int)
        join /*schema*/limiters l on l.name = x.name
       cross join lateral (select /*schema*/limiter_spacing(l.period_seconds, l.limit_count) as spacing) s
       where b.limiter = x.name and b.key = x.key;
      if was_held then
        update /*schema*/jobs j set held_by = null, held_key = null where j.id = r.id;
      end if;
      job_id := r.id; verdict := 'granted'; detail := null; turn := at; guard := job_guard;
      return next;
    end if;
  end loop;
end
$fn$;
`;
