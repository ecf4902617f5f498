/**
 * Flow control by key. A job may carry a concurrency key (`tenant:acme`) and a tier; a queue's
 * `keys` rule, a persisted per-key override and a queue-wide `globalConcurrency` bound how
 * many of them run at once, across the cluster.
 *
 * No counter is kept: what runs is what is `active`, counted under a per-queue advisory lock
 * by the claim itself (flow_candidates), so no path that ends an attempt (a finish, a retry,
 * a stalled recovery, a suspension, a deletion) has a count to keep in step. A cancelled
 * job whose handler has not returned yet still runs: the cancel keeps its lock, and the
 * worker clears it when the handler returns (or the lock lapses, if the worker died).
 *
 * Jobs without a key leave jobs_claim_idx's scan untouched by keyed backlog: the index now
 * holds only them, and keyed ready jobs have their own (jobs_key_ready_idx), walked key by
 * key, so a key at its limit is skipped in one probe however many jobs it holds.
 */
export const name = 'flow-control';

/** What a job may be claimed in: the claim's own test, with the table's columns unqualified. */
const CLAIMABLE = `j.status in ('pending', 'retry', 'waiting')
          and j.run_at <= now()
          and (j.expire_at is null or j.expire_at > now() or j.attempts > 0 or j.status <> 'pending')`;

export const sql = /* sql */ `
alter table /*schema*/jobs add column key text, add column tier text;

drop index /*schema*/jobs_claim_idx;
create index jobs_claim_idx on /*schema*/jobs (queue, priority desc, run_at, id)
  where status in ('pending', 'retry', 'waiting') and key is null;
-- Keyed ready jobs, key by key: the claim walks the distinct keys (one probe each) and
-- reads each key's next jobs in priority order.
create index jobs_key_ready_idx on /*schema*/jobs (queue, key, priority desc, run_at, id)
  where status in ('pending', 'retry', 'waiting') and key is not null;
-- A key's unfinished jobs in the order they were added: the head of a FIFO key.
create index jobs_key_open_idx on /*schema*/jobs (queue, key, id)
  where status in ('pending', 'active', 'retry', 'waiting', 'paused') and key is not null;
-- What runs per key, counted by each claim of a keyed queue: active jobs, and cancelled ones
-- whose handler has not returned yet (the cancel keeps their lock until the worker releases it).
create index jobs_key_running_idx on /*schema*/jobs (queue, key)
  where key is not null and (status = 'active' or status = 'cancelled' and lock_token is not null);
-- Cancelled jobs whose handler still runs, for a queue's global limit.
create index jobs_cancel_held_idx on /*schema*/jobs (queue)
  where status = 'cancelled' and lock_token is not null;

-- Operators' settings per key: a concurrency that replaces the queue's rule, or a pause. A
-- row exists only while it holds one of them (the check), so no idle key leaves a row.
create table /*schema*/key_settings (
  queue text not null,
  key text not null,
  concurrency int check (concurrency > 0),
  paused boolean not null default false,
  updated_at timestamptz not null default now(),
  primary key (queue, key),
  check (concurrency is not null or paused)
);

-- The jobs of the given queues a claim may start now without passing any limit: each key's
-- (its override, else its tier's, else the queue's default) and the queue's global one.
-- Claims of one queue take its advisory lock first, so the query below, which runs on a
-- snapshot taken after the lock (a volatile function's statement), counts every job the
-- previous claimer started: a limit is never passed, whatever runs in parallel. The lock
-- is held to the end of the claim's transaction, its one statement.
--
-- score orders the claim under fairness: a key's n-th candidate scores
-- (running + n) / weight, so each claim round serves every waiting key before a busy one
-- gets its next job. Without fairness every score is 0 and priority decides.
create function /*schema*/flow_candidates(flow_queues text[], lim int)
returns table (job_id bigint, job_priority int, job_run_at timestamptz, job_score float8)
-- One generic plan, made once per session: a custom plan for this query cost more to make
-- than to run (about 2 ms of a 3 ms call for 100 jobs).
language plpgsql volatile set plan_cache_mode = force_generic_plan as $fn$
declare
  q text;
begin
  foreach q in array coalesce((select array_agg(n order by n) from unnest(flow_queues) n), '{}') loop
    perform pg_advisory_xact_lock(hashtext('tidemark flow control'), hashtext('/*schema*/' || q));
  end loop;
  return query
  with cfg as (
    select n.name as queue,
           coalesce(s.options -> 'keys', '{}') as keys,
           (s.options ->> 'globalConcurrency')::int as global_limit,
           -- the most any key's jobs may run at under the rule: null when it limits nothing
           greatest((s.options -> 'keys' ->> 'concurrency')::int,
                    (select max(t.value::int)
                       from jsonb_each_text(coalesce(s.options -> 'keys' -> 'tiers', '{}')) t)) as rule_cap
      from unnest(flow_queues) n(name)
      left join /*schema*/queues s on s.name = n.name
  ),
  room as (
    select c.queue,
           c.global_limit
             - (select count(*) from /*schema*/jobs j where j.queue = c.queue and j.status = 'active')::int
             - (select count(*) from /*schema*/jobs j
                 where j.queue = c.queue and j.status = 'cancelled' and j.lock_token is not null
                   and j.locked_until > now())::int as free
      from cfg c
     where c.global_limit is not null
  ),
  ready_keys as (
    with recursive walk(queue, key) as (
      select c.queue,
             (select j.key from /*schema*/jobs j
               where j.queue = c.queue and j.key is not null and j.status in ('pending', 'retry', 'waiting')
               order by j.key limit 1)
        from cfg c
      union all
      select w.queue,
             (select j.key from /*schema*/jobs j
               where j.queue = w.queue and j.key > w.key and j.key is not null
                 and j.status in ('pending', 'retry', 'waiting')
               order by j.key limit 1)
        from walk w
       where w.key is not null
    )
    select w.queue, w.key from walk w where w.key is not null
  ),
  key_state as (
    select k.queue, k.key, c.keys, s.concurrency as override,
           coalesce(c.keys ->> 'order', 'priority') = 'fifo' as fifo,
           coalesce((c.keys ->> 'fair')::boolean, false) as fair,
           coalesce((c.keys -> 'weights' ->> k.key)::float8, 1) as weight,
           (select count(*) from /*schema*/jobs j
             where j.queue = k.queue and j.key = k.key and j.key is not null
               and (j.status = 'active'
                    or j.status = 'cancelled' and j.lock_token is not null and j.locked_until > now()))::int as running,
           -- the most any of the key's jobs may run at: null when nothing limits the key
           coalesce(s.concurrency, c.rule_cap) as cap
      from ready_keys k
      join cfg c on c.queue = k.queue
      left join /*schema*/key_settings s on s.queue = k.queue and s.key = k.key
     where not coalesce(s.paused, false)
  ),
  by_priority as (
    select ks.queue, ks.key, ks.running, ks.override, ks.keys, ks.fair, ks.weight, p.id, p.priority,
           p.run_at, p.tier, 0::bigint as pos,
           row_number() over (partition by ks.queue, ks.key order by p.priority desc, p.run_at, p.id) as rank
      from key_state ks
      cross join lateral (
        select j.id, j.priority, j.run_at, j.tier from /*schema*/jobs j
         where j.queue = ks.queue and j.key = ks.key and j.key is not null and ${CLAIMABLE}
         order by j.priority desc, j.run_at, j.id
         limit greatest(least(coalesce(ks.cap - ks.running, lim), lim), 0)
         for update skip locked
      ) p
     where not ks.fifo
  ),
  -- A FIFO key's head: its first jobs by id, finished or not yet started alike, read without
  -- locks (a locked row skipped here would let a later job pass it).
  fifo_head as (
    select ks.queue, ks.key, ks.running, ks.override, ks.keys, ks.fair, ks.weight, h.id, h.pos
      from key_state ks
      cross join lateral (
        select j.id, row_number() over (order by j.id) as pos
          from (select j.id from /*schema*/jobs j
                 where j.queue = ks.queue and j.key = ks.key and j.key is not null
                   and j.status in ('pending', 'active', 'retry', 'waiting', 'paused')
                 order by j.id
                 limit least(coalesce(ks.cap, lim), lim)) j
      ) h
     where ks.fifo
  ),
  by_order as (
    select f.queue, f.key, f.running, f.override, f.keys, f.fair, f.weight, f.id, l.priority, l.run_at,
           l.tier, f.pos, row_number() over (partition by f.queue, f.key order by f.id) as rank
      from fifo_head f
      cross join lateral (
        select j.priority, j.run_at, j.tier from /*schema*/jobs j
         where j.id = f.id and ${CLAIMABLE}
         for update skip locked
      ) l
  ),
  keyed as (
    select k.queue, k.id, k.priority, k.run_at,
           case when k.fair then (k.running + k.rank)::float8 / k.weight else 0 end as score
      from (select * from by_priority union all select * from by_order) k
      cross join lateral (
        select coalesce(k.override, (k.keys -> 'tiers' ->> k.tier)::int, (k.keys ->> 'concurrency')::int) as most
      ) job_limit
     where job_limit.most is null or (k.running + k.rank <= job_limit.most and k.pos <= job_limit.most)
  ),
  -- Jobs without a key in a queue with a global limit (elsewhere the plain claim takes them);
  -- fairness does not hold them back: they score 0.
  unkeyed as (
    select r.queue, u.id, u.priority, u.run_at, 0::float8 as score
      from room r
      cross join lateral (
        select j.id, j.priority, j.run_at from /*schema*/jobs j
         where j.queue = r.queue and j.key is null and ${CLAIMABLE}
         order by j.priority desc, j.run_at, j.id
         limit greatest(least(r.free, lim), 0)
         for update skip locked
      ) u
  ),
  merged as (
    select m.*, row_number() over (partition by m.queue order by m.score, m.priority desc, m.run_at, m.id) as n
      from (select * from keyed union all select * from unkeyed) m
  )
  select m.id, m.priority, m.run_at, m.score
    from merged m
    left join room r on r.queue = m.queue
   where r.free is null or m.n <= r.free;
end
$fn$;
`;
