-- admin.ts#cappedStatusCounts
select q.name as queue, s.status, c.n
    from unnest($1::text[]) as q(name)
   cross join unnest($2::text[]) as s(status)
   cross join lateral (
     select count(*)::int as n
       from (select j.id from "tidemark".jobs j
              where j.queue = q.name
                and (j.status, j.id) >= (s.status, 0::bigint)
                and (j.status, j.id) < (s.status, 9223372036854775807::bigint)
              order by j.status desc, j.id desc
              limit $3) x
   ) c
   where c.n > 0

-- admin.ts#flushStats
select pg_stat_force_next_flush()

-- admin.ts#indexStats
select i.relname as name, t.relname as table_name,
         pg_relation_size(i.oid)::float8 as bytes,
         s.idx_scan::float8 as scans
    from pg_index x
    join pg_class i on i.oid = x.indexrelid
    join pg_class t on t.oid = x.indrelid
    join pg_namespace n on n.oid = t.relnamespace
    left join pg_stat_user_indexes s on s.indexrelid = i.oid
   where n.nspname = $1
   order by pg_relation_size(i.oid) desc, i.relname

-- admin.ts#indexWalksOnly
select set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true),
         set_config('enable_sort', 'off', true), set_config('jit', 'off', true)

-- admin.ts#jobAttemptLog
select attempt_log from "tidemark".jobs where id = $1::bigint

-- admin.ts#jobEstimates
select c.reltuples::float8 as reltuples,
         (select most_common_vals::text::text[] from pg_stats
           where schemaname = $1 and tablename = 'jobs' and attname = 'status') as status_vals,
         (select most_common_freqs::float8[] from pg_stats
           where schemaname = $1 and tablename = 'jobs' and attname = 'status') as status_freqs,
         (select most_common_vals::text::text[] from pg_stats
           where schemaname = $1 and tablename = 'jobs' and attname = 'queue') as queue_vals,
         (select most_common_freqs::float8[] from pg_stats
           where schemaname = $1 and tablename = 'jobs' and attname = 'queue') as queue_freqs
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = $1 and c.relname = 'jobs'

-- admin.ts#jobTree
with recursive tree as (
    select j.id, j.parent_id, j.queue, j.status, 0 as depth, array[j.id] as path
      from "tidemark".jobs j where j.id = $1::bigint
    union all
    select c.id, c.parent_id, c.queue, c.status, t.depth + 1, t.path || c.id
      from "tidemark".jobs c join tree t on c.parent_id = t.id
     where t.depth < 32
  )
  select id::text as id, parent_id::text as parent_id, queue, status, depth
    from tree order by path limit $2

-- admin.ts#tableStats
select c.relname as name,
         pg_total_relation_size(c.oid)::float8 as total_bytes,
         pg_relation_size(c.oid)::float8 as table_bytes,
         pg_indexes_size(c.oid)::float8 as index_bytes,
         c.reltuples::float8 as estimated_rows,
         s.n_live_tup::float8 as live_rows, s.n_dead_tup::float8 as dead_rows,
         s.last_vacuum, s.last_autovacuum, s.last_analyze, s.last_autoanalyze
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    left join pg_stat_user_tables s on s.relid = c.oid
   where n.nspname = $1 and c.relkind = 'r'
   order by pg_total_relation_size(c.oid) desc, c.relname

-- admin.ts#throughputLastHour
select queue, status, floor(extract(epoch from (now() - finished_at)) / 60)::int as minute_ago,
         count(*)::int as n
    from (select queue, status, finished_at from "tidemark".jobs
           where finished_at > now() - interval '1 hour'
           order by finished_at desc limit $1) recent
   group by 1, 2, 3

-- apply-retention.ts#applyRetentionJobs(1000)
with picked as materialized (
    select id from (
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'pending' and id > $2::bigint
                       order by id limit 1000)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'active' and id > $2::bigint
                       order by id limit 1000)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'retry' and id > $2::bigint
                       order by id limit 1000)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'waiting' and id > $2::bigint
                       order by id limit 1000)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'paused' and id > $2::bigint
                       order by id limit 1000)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'completed' and id > $2::bigint
                       order by id limit 1000)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'failed' and id > $2::bigint
                       order by id limit 1000)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'cancelled' and id > $2::bigint
                       order by id limit 1000)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'expired' and id > $2::bigint
                       order by id limit 1000)
    ) statuses
    order by id limit 1000
  ),
  locked as materialized (
    select j.id from "tidemark".jobs j
     where j.id in (select id from picked) and j.retention is distinct from $3::jsonb
     order by j.id
       for no key update of j
  ),
  changed as (
    update "tidemark".jobs j
       set retention = $3::jsonb,
           purge_after = case when j.finished_at is null then j.purge_after
                              else "tidemark".purge_time($3::jsonb, j.status, j.finished_at) end
      from locked l
     where j.id = l.id and j.retention is distinct from $3::jsonb
    returning j.id
  )
  select (select count(*) from picked)::int as scanned,
         (select max(id)::text from picked) as last_id,
         (select count(*) from changed)::int as changed,
         array(select id::text from picked order by id) as ids

-- apply-retention.ts#applyRetentionLogs
with fixed as (
    update "tidemark".job_logs x
       set purge_after = x.logged_at + nullif((j.retention ->> 'logsAfterSeconds')::float8, 0) * interval '1 second'
      from "tidemark".jobs j
     where j.id = any($1::bigint[]) and x.job_id = j.id
       and x.purge_after is distinct from x.logged_at + nullif((j.retention ->> 'logsAfterSeconds')::float8, 0) * interval '1 second'
    returning x.id
  )
  select count(*)::int as n from fixed

-- apply-retention.ts#applyRetentionSignals
with fixed as (
    update "tidemark".signals s
       set purge_after = s.consumed_at
                         + nullif((j.retention ->> 'consumedSignals')::float8, 0) * interval '1 second'
      from "tidemark".jobs j
     where j.id = any($1::bigint[]) and s.job_id = j.id and s.consumed_at is not null
       and s.purge_after is distinct from
           s.consumed_at + nullif((j.retention ->> 'consumedSignals')::float8, 0) * interval '1 second'
    returning s.id
  )
  select count(*)::int as n from fixed

-- apply-retention.ts#countApplyRetention
select count(*)::int as n from "tidemark".jobs
   where queue = $1 and retention is distinct from $2::jsonb

-- audit.ts#deleteExpiredAudit(1000)
with gate as materialized (
    select c.paused, c.reason, c.paused_at,
           c.version = (select s.version from "tidemark".retention_control s where s.id = 1) as fresh
      from "tidemark".retention_control c
     where c.id = 1
       for share of c
  ),
  doomed as (
    select id from "tidemark".audit_log
     where at < now() - make_interval(secs => $1::double precision) and coalesce((select not g.paused and g.fresh from gate g), false)
     order by at
     limit 1000
       for update skip locked
  ),
  deleted as (delete from "tidemark".audit_log a where a.id = any(array(select id from doomed)) returning a.id)
  select (select count(*) from deleted)::int as n, (select g.paused from gate g) as paused,
         (select g.fresh from gate g) as fresh,
         (select g.reason from gate g) as paused_reason,
         (select g.paused_at from gate g) as paused_at

-- audit.ts#listAudit
select a.id::text as id, a.at, a.actor, a.source, a.action, a.target, a.rows
    from "tidemark".audit_log a
   where ($1::timestamptz is null or a.at >= $1::timestamptz)
     and ($2::timestamptz is null or a.at < $2::timestamptz)
     and ($3::text is null or a.action = $3::text)
     and ($4::text is null or a.actor = $4::text)
     and ($5::bigint is null or a.id < $5::bigint)
   order by a.id desc
   limit $6

-- audit.ts#recordAudit
insert into "tidemark".audit_log (at, actor, source, action, target, rows)
  values (now(), $1, $2, $3, $4::jsonb, $5)
  returning id::text as id

-- batch-plan.ts#openDeletionBatch
with gate as materialized (select id from "tidemark".retention_control where id = 1 for share)
  select (select count(*) from gate)::int as locked,
         set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true),
         set_config('enable_sort', 'off', true), set_config('jit', 'off', true),
         set_config('statement_timeout', ($1::int)::text, true)

-- bulk.ts#bulkBatchByIds
select j.id::text as id from "tidemark".jobs j
   where j.id = any($1::bigint[])
     and j.id > $2::bigint and j.id <= $3::bigint
     and ($4::text is null or j.queue = $4::text)
     and ($5::text is null or j.status = $5::text)
     and ($6::timestamptz is null or j.created_at >= $6::timestamptz)
     and ($7::timestamptz is null or j.created_at < $7::timestamptz)
     and ($8::text[] is null or j.tags @> $8::text[])
     and ($9::text is null or j.key = $9::text)
     and ($10::text is null or j.version = $10::text)
     and ($11::text is null
          or j.data::text ilike $11::text
          or j.error ->> 'message' ilike $11::text
          or j.error ->> 'name' ilike $11::text)
   order by j.id
   limit $12

-- bulk.ts#bulkBatchByStatus
select m.id::text as id from unnest($1::text[]) as q(name)
   cross join lateral (
     select j.id from "tidemark".jobs j
      where j.queue = q.name
        and (j.status, j.id) > ($2::text, $3::bigint)
        and (j.status, j.id) <= ($2::text, $4::bigint)
        and ($5::text is null or j.queue = $5::text)
     and ($2::text is null or j.status = $2::text)
     and ($6::timestamptz is null or j.created_at >= $6::timestamptz)
     and ($7::timestamptz is null or j.created_at < $7::timestamptz)
     and ($8::text[] is null or j.tags @> $8::text[])
     and ($9::text is null or j.key = $9::text)
     and ($10::text is null or j.version = $10::text)
     and ($11::text is null
          or j.data::text ilike $11::text
          or j.error ->> 'message' ilike $11::text
          or j.error ->> 'name' ilike $11::text)
      order by j.status, j.id
      limit $12
   ) m
   order by m.id
   limit $12

-- bulk.ts#bulkCeiling
select coalesce(max(id), 0)::text as ceiling from "tidemark".jobs

-- carried-retention.ts#carriedRetention
select q.name as queue, c.retention, c.jobs
    from "tidemark".queues q
   cross join lateral (
     select newest.retention, count(*)::int as jobs
       from (
         select j.id, j.retention
           from unnest($1::text[]) as s(status)
          cross join lateral (
            select id, retention from "tidemark".jobs
             where queue = q.name and status = s.status
             order by id desc
             limit $2
          ) j
          order by j.id desc
          limit $2
       ) newest
      group by newest.retention
   ) c
   order by q.name, c.jobs desc, c.retention::text

-- defer.ts#deferJob
with deferred as (
    update "tidemark".jobs j
       set status = 'pending',
           attempts = greatest(j.attempts - 1, 0),
           run_at = now() + $1::float8 * interval '1 second',
           expire_at = null,
           attempt_log = "tidemark".log_attempt(j.attempt_log,
             jsonb_build_object('attempt', j.attempts, 'startedAt', j.started_at, 'endedAt', now(),
                                'name', 'RetryAfter',
                                'message', 'retry after ' || $1::float8 || ' s'
                                           || coalesce(': ' || $2::text, ''),
                                'worker', j.locked_by)),
           wait = null,
           lock_token = null, locked_by = null, locked_until = null
     where j.id = $3::bigint and j.lock_token = $4::uuid and case when j.status = 'active' then true end
    returning j.id, j.attempts
  ),
  -- the attempt the run belonged to: the update gave it back (attempts - 1)
  history_in as (select d.id as job_id, d.attempts + 1 as attempt, $5::json as events,
           jsonb_build_object('outcome', 'deferred', 'delaySeconds', $1::float8, 'reason', $2::text) as note
      from deferred d),
  history_events as (
    select h.job_id, h.attempt, h.note, e.value as event,
           coalesce((select max(x.seq) from "tidemark".run_history x where x.job_id = h.job_id), 0) + e.ord as seq,
           -- a run keeps at most HISTORY_CAP events in memory and counts the rest in a last one
           case when e.value ->> 'kind' = 'dropped' then (e.value -> 'detail' ->> 'count')::int else 1 end as weight
      from history_in h
     cross join lateral json_array_elements(h.events) with ordinality as e(value, ord)
     where h.events is not null
  ),
  history_written as (
    insert into "tidemark".run_history as h (job_id, seq, attempt, kind, at, ended_at, worker, detail)
    select job_id, seq::int, attempt, event ->> 'kind', (event ->> 'at')::timestamptz,
           case when event ->> 'kind' = 'run' then now() else (event ->> 'endedAt')::timestamptz end,
           event ->> 'worker',
           case when event ->> 'kind' = 'run' then coalesce((event -> 'detail')::jsonb, '{}') || note
                else (event -> 'detail')::jsonb end
      from history_events where seq <= 1000 and event ->> 'kind' <> 'dropped'
    union all
    select job_id, 1001, max(attempt), 'dropped', now(), null, null, jsonb_build_object('count', sum(weight))
      from history_events where seq > 1000 or event ->> 'kind' = 'dropped'
     group by job_id
    on conflict (job_id, seq) do update
       set at = excluded.at, attempt = excluded.attempt,
           detail = jsonb_build_object('count', (h.detail ->> 'count')::int + (excluded.detail ->> 'count')::int)
  )
  select id::text as id from deferred

-- defer.ts#parkJob
with parked as (
    update "tidemark".jobs j
       set status = 'paused',
           paused_from = 'pending',
           attempts = greatest(j.attempts - 1, 0),
           error = $1::jsonb,
           expire_at = null,
           attempt_log = "tidemark".log_attempt(j.attempt_log,
             jsonb_build_object('attempt', j.attempts, 'startedAt', j.started_at, 'endedAt', now(),
                                'name', $1::jsonb ->> 'name', 'message', $1::jsonb ->> 'message',
                                'worker', j.locked_by)),
           wait = null,
           lock_token = null, locked_by = null, locked_until = null
     where j.id = $2::bigint and j.lock_token = $3::uuid and case when j.status = 'active' then true end
    returning j.id, j.attempts
  ),
  history_in as (select p.id as job_id, p.attempts + 1 as attempt, $4::json as events,
           jsonb_build_object('outcome', 'paused', 'error', $1::jsonb) as note
      from parked p),
  history_events as (
    select h.job_id, h.attempt, h.note, e.value as event,
           coalesce((select max(x.seq) from "tidemark".run_history x where x.job_id = h.job_id), 0) + e.ord as seq,
           -- a run keeps at most HISTORY_CAP events in memory and counts the rest in a last one
           case when e.value ->> 'kind' = 'dropped' then (e.value -> 'detail' ->> 'count')::int else 1 end as weight
      from history_in h
     cross join lateral json_array_elements(h.events) with ordinality as e(value, ord)
     where h.events is not null
  ),
  history_written as (
    insert into "tidemark".run_history as h (job_id, seq, attempt, kind, at, ended_at, worker, detail)
    select job_id, seq::int, attempt, event ->> 'kind', (event ->> 'at')::timestamptz,
           case when event ->> 'kind' = 'run' then now() else (event ->> 'endedAt')::timestamptz end,
           event ->> 'worker',
           case when event ->> 'kind' = 'run' then coalesce((event -> 'detail')::jsonb, '{}') || note
                else (event -> 'detail')::jsonb end
      from history_events where seq <= 1000 and event ->> 'kind' <> 'dropped'
    union all
    select job_id, 1001, max(attempt), 'dropped', now(), null, null, jsonb_build_object('count', sum(weight))
      from history_events where seq > 1000 or event ->> 'kind' = 'dropped'
     group by job_id
    on conflict (job_id, seq) do update
       set at = excluded.at, attempt = excluded.attempt,
           detail = jsonb_build_object('count', (h.detail ->> 'count')::int + (excluded.detail ->> 'count')::int)
  )
  select id::text as id from parked

-- dependencies.ts#attachDependencies
with edge as (
    select e.job_id, e.dependency_id, d.queue, d.status
      from json_to_recordset($1::json) as e(job_id bigint, dependency_id bigint)
      join "tidemark".jobs d on d.id = e.dependency_id
  ),
  dependent as (
    select * from json_to_recordset($2::json) as p(job_id bigint, on_failure text)
  ),
  stored as (
    insert into "tidemark".job_dependencies (job_id, dependency_id, settled)
    select job_id, dependency_id, status in ('completed', 'failed', 'cancelled', 'expired') from edge
  ),
  state as (
    select job_id, count(*) filter (where status not in ('completed', 'failed', 'cancelled', 'expired'))::int as left from edge group by job_id
  ),
  bad as (
    select distinct on (job_id) job_id, dependency_id, queue, status from edge
     where status in ('completed', 'failed', 'cancelled', 'expired') and status <> 'completed'
     order by job_id, dependency_id
  ),
  verdict as (
    select p.job_id, p.on_failure, s.left, b.dependency_id as bad_id, b.queue as bad_queue, b.status as bad_status,
           b.dependency_id is not null and p.on_failure <> 'run' as refused
      from dependent p join state s on s.job_id = p.job_id left join bad b on b.job_id = p.job_id
  )
  update "tidemark".jobs j
     set dependencies_left = v.left,
         on_dependency_failure = v.on_failure,
         status = case when v.refused and v.on_failure = 'cancel' then 'cancelled'
                       when v.refused then 'failed'
                       when v.left > 0 then 'waiting' else j.status end,
         wait = case when not v.refused and v.left > 0
                     then jsonb_build_object('kind', 'dependencies', 'runAt', j.run_at) else j.wait end,
         run_at = case when not v.refused and v.left > 0 then 'infinity' else j.run_at end,
         error = case when v.refused
                      then jsonb_build_object('name', 'DependencyFailedError',
                             'message', format('dependency %s (queue %s) ended %s', v.bad_id, v.bad_queue, v.bad_status),
                             'dependency', v.bad_id::text, 'dependencyStatus', v.bad_status)
                      else j.error end,
         finished_at = case when v.refused then now() else j.finished_at end,
         purge_after = case when v.refused
                            then "tidemark".purge_time(j.retention,
                                   case when v.on_failure = 'cancel' then 'cancelled' else 'failed' end, now())
                            else j.purge_after end
    from verdict v
   where j.id = v.job_id
  returning j.id::text as id, j.status, j.dependencies_left as left

-- dependencies.ts#dependenciesOf
select e.dependency_id::text as id, d.queue, d.status, d.output, d.error
    from "tidemark".job_dependencies e
    left join "tidemark".jobs d on d.id = e.dependency_id
   where e.job_id = $1::bigint
   order by e.dependency_id

-- dependencies.ts#lockDependencies
with locked as (
    select j.id from "tidemark".jobs j where j.id = any($1::bigint[]) order by j.id for no key update
  )
  update "tidemark".jobs j set dependents = j.dependents + 1
    from locked l where j.id = l.id
  returning j.id::text as id

-- finish.ts#completeOne
with finished as (
    update "tidemark".jobs j
       set status = 'completed', output = $1::jsonb, finished_at = now(),
           purge_after = "tidemark".purge_time(j.retention, 'completed', now()),
           ran_by = j.locked_by,
           lock_token = null, locked_by = null, locked_until = null, wait = null
     where j.id = $2::bigint and j.lock_token = $3::uuid and case when j.status = 'active' then true end
    returning j.id, j.attempts
  ),
  history_in as (select f.id as job_id, f.attempts as attempt, $4::json as events,
           '{"outcome": "completed"}'::jsonb as note from finished f),
  history_events as (
    select h.job_id, h.attempt, h.note, e.value as event,
           coalesce((select max(x.seq) from "tidemark".run_history x where x.job_id = h.job_id), 0) + e.ord as seq,
           -- a run keeps at most HISTORY_CAP events in memory and counts the rest in a last one
           case when e.value ->> 'kind' = 'dropped' then (e.value -> 'detail' ->> 'count')::int else 1 end as weight
      from history_in h
     cross join lateral json_array_elements(h.events) with ordinality as e(value, ord)
     where h.events is not null
  ),
  history_written as (
    insert into "tidemark".run_history as h (job_id, seq, attempt, kind, at, ended_at, worker, detail)
    select job_id, seq::int, attempt, event ->> 'kind', (event ->> 'at')::timestamptz,
           case when event ->> 'kind' = 'run' then now() else (event ->> 'endedAt')::timestamptz end,
           event ->> 'worker',
           case when event ->> 'kind' = 'run' then coalesce((event -> 'detail')::jsonb, '{}') || note
                else (event -> 'detail')::jsonb end
      from history_events where seq <= 1000 and event ->> 'kind' <> 'dropped'
    union all
    select job_id, 1001, max(attempt), 'dropped', now(), null, null, jsonb_build_object('count', sum(weight))
      from history_events where seq > 1000 or event ->> 'kind' = 'dropped'
     group by job_id
    on conflict (job_id, seq) do update
       set at = excluded.at, attempt = excluded.attempt,
           detail = jsonb_build_object('count', (h.detail ->> 'count')::int + (excluded.detail ->> 'count')::int)
  ),
  dropped as (
    delete from "tidemark".checkpoints c using finished f where c.job_id = f.id and $5::boolean
  )
  select id::text as id from finished

-- finish.ts#finishAttempts
with outcome as (
    select * from json_to_recordset($1::json)
           as o(id bigint, token uuid, ok boolean, output json, error json, retry_delay float8,
                drop_checkpoints boolean, history json)
  ),
  -- A failed attempt retries when it is retryable (a delay was given) and attempts remain.
  -- Decided against the row in the one UPDATE, without joining jobs a second time.
  finished as (
    update "tidemark".jobs j
       set status = case when o.ok then 'completed'
                         when o.retry_delay is not null and j.attempts < j.max_attempts then 'retry'
                         else 'failed' end,
           output = case when o.ok then coalesce(o.output::jsonb, 'null') else j.output end,
           error = case when o.ok then j.error else o.error::jsonb end,
           attempt_log = case when o.ok then j.attempt_log else "tidemark".log_attempt(j.attempt_log,
             jsonb_build_object('attempt', j.attempts, 'startedAt', j.started_at, 'endedAt', now(),
                                'name', o.error ->> 'name', 'message', o.error ->> 'message',
                                'worker', j.locked_by)) end,
           run_at = case when not o.ok and o.retry_delay is not null and j.attempts < j.max_attempts
                         then now() + o.retry_delay * interval '1 second' else j.run_at end,
           finished_at = case when o.ok or o.retry_delay is null or j.attempts >= j.max_attempts then now() end,
           purge_after = "tidemark".purge_time(j.retention,
                           case when o.ok then 'completed'
                                when o.retry_delay is not null and j.attempts < j.max_attempts then 'retry'
                                else 'failed' end, now()),
           ran_by = j.locked_by,
           lock_token = null, locked_by = null, locked_until = null, wait = null
      from outcome o
     where j.id = any(array(select id from outcome)) and j.id = o.id and j.lock_token = o.token
       and case when j.status = 'active' then true end
    returning j.id, j.status, j.attempts, o.token
  ),
  
  dropped as (
    delete from "tidemark".checkpoints c
     using finished f, outcome o
     where c.job_id = f.id and o.id = f.id and f.status = 'completed' and o.drop_checkpoints
  )
  -- Only what did not simply complete: a completion always ends 'completed', and the worker
  -- parses no row for it (a batch is hundreds of outcomes, nearly all completions).
  select o.token::text as token, f.status
    from outcome o left join finished f on f.token = o.token
   where f.token is null or not o.ok

-- finish.ts#finishAttemptsWithHistory
with outcome as (
    select * from json_to_recordset($1::json)
           as o(id bigint, token uuid, ok boolean, output json, error json, retry_delay float8,
                drop_checkpoints boolean, history json)
  ),
  -- A failed attempt retries when it is retryable (a delay was given) and attempts remain.
  -- Decided against the row in the one UPDATE, without joining jobs a second time.
  finished as (
    update "tidemark".jobs j
       set status = case when o.ok then 'completed'
                         when o.retry_delay is not null and j.attempts < j.max_attempts then 'retry'
                         else 'failed' end,
           output = case when o.ok then coalesce(o.output::jsonb, 'null') else j.output end,
           error = case when o.ok then j.error else o.error::jsonb end,
           attempt_log = case when o.ok then j.attempt_log else "tidemark".log_attempt(j.attempt_log,
             jsonb_build_object('attempt', j.attempts, 'startedAt', j.started_at, 'endedAt', now(),
                                'name', o.error ->> 'name', 'message', o.error ->> 'message',
                                'worker', j.locked_by)) end,
           run_at = case when not o.ok and o.retry_delay is not null and j.attempts < j.max_attempts
                         then now() + o.retry_delay * interval '1 second' else j.run_at end,
           finished_at = case when o.ok or o.retry_delay is null or j.attempts >= j.max_attempts then now() end,
           purge_after = "tidemark".purge_time(j.retention,
                           case when o.ok then 'completed'
                                when o.retry_delay is not null and j.attempts < j.max_attempts then 'retry'
                                else 'failed' end, now()),
           ran_by = j.locked_by,
           lock_token = null, locked_by = null, locked_until = null, wait = null
      from outcome o
     where j.id = any(array(select id from outcome)) and j.id = o.id and j.lock_token = o.token
       and case when j.status = 'active' then true end
    returning j.id, j.status, j.attempts, o.token
  ),
  history_in as (select f.id as job_id, f.attempts as attempt, o.history as events,
           jsonb_build_object('outcome', f.status) || case when o.ok then '{}'::jsonb
             else jsonb_build_object('error', jsonb_build_object('name', o.error ->> 'name', 'message', o.error ->> 'message')) end as note
      from finished f join outcome o on o.id = f.id where o.history is not null),
  history_events as (
    select h.job_id, h.attempt, h.note, e.value as event,
           coalesce((select max(x.seq) from "tidemark".run_history x where x.job_id = h.job_id), 0) + e.ord as seq,
           -- a run keeps at most HISTORY_CAP events in memory and counts the rest in a last one
           case when e.value ->> 'kind' = 'dropped' then (e.value -> 'detail' ->> 'count')::int else 1 end as weight
      from history_in h
     cross join lateral json_array_elements(h.events) with ordinality as e(value, ord)
     where h.events is not null
  ),
  history_written as (
    insert into "tidemark".run_history as h (job_id, seq, attempt, kind, at, ended_at, worker, detail)
    select job_id, seq::int, attempt, event ->> 'kind', (event ->> 'at')::timestamptz,
           case when event ->> 'kind' = 'run' then now() else (event ->> 'endedAt')::timestamptz end,
           event ->> 'worker',
           case when event ->> 'kind' = 'run' then coalesce((event -> 'detail')::jsonb, '{}') || note
                else (event -> 'detail')::jsonb end
      from history_events where seq <= 1000 and event ->> 'kind' <> 'dropped'
    union all
    select job_id, 1001, max(attempt), 'dropped', now(), null, null, jsonb_build_object('count', sum(weight))
      from history_events where seq > 1000 or event ->> 'kind' = 'dropped'
     group by job_id
    on conflict (job_id, seq) do update
       set at = excluded.at, attempt = excluded.attempt,
           detail = jsonb_build_object('count', (h.detail ->> 'count')::int + (excluded.detail ->> 'count')::int)
  ),
  dropped as (
    delete from "tidemark".checkpoints c
     using finished f, outcome o
     where c.job_id = f.id and o.id = f.id and f.status = 'completed' and o.drop_checkpoints
  )
  -- Only what did not simply complete: a completion always ends 'completed', and the worker
  -- parses no row for it (a batch is hundreds of outcomes, nearly all completions).
  select o.token::text as token, f.status
    from outcome o left join finished f on f.token = o.token
   where f.token is null or not o.ok

-- folds.ts#lockFoldKey
select pg_advisory_xact_lock(hashtextextended($1 || chr(31) || $2, 9))

-- folds.ts#newestFoldedJob
select j.id::text as id,
         (j.status in ('pending', 'paused') and j.attempts = 0 and j.attempt_log is null) as unstarted,
         extract(epoch from now() - j.created_at)::float8 as since_added,
         extract(epoch from now() - coalesce(
           case when (j.status in ('pending', 'paused') and j.attempts = 0 and j.attempt_log is null) then null else j.started_at end,
           (select s.started_at from "tidemark".jobs s
             where s.queue = $1 and s.fold_key = $2 and s.started_at is not null
               and s.id < j.id and not (s.status in ('pending', 'paused') and s.attempts = 0 and s.attempt_log is null)
             order by s.id desc limit 1)))::float8 as since_started
    from "tidemark".jobs j
   where j.queue = $1 and j.fold_key = $2
   -- j.id, the bigint: the output column id is text, and '99' sorts after '100'
   order by j.id desc
   limit 1
     for update of j

-- folds.ts#refoldJob
update "tidemark".jobs
     set data = $1::jsonb,
         run_at = now() + $2::float8 * interval '1 second',
         expire_at = now() + $2::float8 * interval '1 second' + (expire_at - run_at)
   where id = $3::bigint and (status in ('pending', 'paused') and attempts = 0 and attempt_log is null)

-- fork.ts#copyCheckpoints
insert into "tidemark".checkpoints (job_id, name, kind, output, seq)
  select $1::bigint, c.name, c.kind, c.output, c.seq
    from "tidemark".checkpoints c
   where c.job_id = $2::bigint and c.name = any($3::text[])
  returning name

-- fork.ts#jobLineage
select (select j.forked_from::text from "tidemark".jobs j where j.id = $1::bigint) as forked_from,
         coalesce((select array_agg(f.id::text order by f.id)
                     from (select id from "tidemark".jobs where forked_from = $1::bigint order by id limit 100) f),
                  '{}') as forks

-- history.ts#jobRunRecord
select attempt_log, ran_by from "tidemark".jobs where id = $1::bigint

-- history.ts#listHistory
select seq, attempt, kind, at, ended_at, worker, detail
    from "tidemark".run_history
   where job_id = $1::bigint
   order by seq

-- job-actions.ts#cancelSubtree
with recursive subtree as (
    select id, 0 as depth from "tidemark".jobs where id = $1::bigint
    union all
    select c.id, s.depth + 1 from "tidemark".jobs c join subtree s on c.parent_id = s.id
  ),
  target as (
    select j.id from "tidemark".jobs j
     where j.id = $1::bigint and ($2::text is null or j.queue = $2::text)
     and ($3::text is null or j.status = $3::text)
     and ($4::timestamptz is null or j.created_at >= $4::timestamptz)
     and ($5::timestamptz is null or j.created_at < $5::timestamptz)
     and ($6::text[] is null or j.tags @> $6::text[])
     and ($7::text is null or j.key = $7::text)
     and ($8::text is null or j.version = $8::text)
     and ($9::text is null
          or j.data::text ilike $9::text
          or j.error ->> 'message' ilike $9::text
          or j.error ->> 'name' ilike $9::text)
     for update
  ),
  cancelled as (
    update "tidemark".jobs j
       set status = 'cancelled', finished_at = now(),
           purge_after = "tidemark".purge_time(j.retention, 'cancelled', now()),
           -- A running attempt keeps its lock until its worker says the handler returned
           -- (releaseCancelled): until then the job still holds its key's slot.
           lock_token = case when j.status = 'active' then j.lock_token end,
           locked_by = case when j.status = 'active' then j.locked_by end,
           locked_until = case when j.status = 'active' then j.locked_until end,
           paused_from = null
      from subtree s
     where j.id = s.id and j.status in ('pending', 'active', 'retry', 'waiting', 'paused')
       and exists (select 1 from target)
    returning j.id, j.lock_token
  ),
  told as (select count(pg_notify($10, 'c:' || id || ':' || lock_token)) as n
             from cancelled where lock_token is not null)
  select cancelled.id::text as id from cancelled cross join told

-- job-actions.ts#pauseJob
update "tidemark".jobs set status = 'paused', paused_from = status
   where id = $1::bigint and status in ('pending', 'retry', 'waiting')
  returning id::text as id

-- job-actions.ts#resumeJob
with resumed as (
    update "tidemark".jobs
       set status = coalesce(paused_from, 'pending'), paused_from = null
     where id = $1::bigint and status = 'paused'
    returning id, queue, run_at
  ),
  nudged as (select count(pg_notify($2, 'j:' || queue)) as n from resumed where run_at <= now())
  select resumed.id::text as id from resumed cross join nudged

-- job-actions.ts#retrySubtree
with recursive subtree as (
    select id, 0 as depth from "tidemark".jobs where id = $1::bigint
    union all
    select c.id, s.depth + 1 from "tidemark".jobs c join subtree s on c.parent_id = s.id
  ),
  -- The tree's top row lock orders this against a retention sweep deleting the same tree.
  root_lock as (
    select r.id from "tidemark".jobs r
     where r.id = (select coalesce(root_id, id) from "tidemark".jobs where id = $1::bigint)
     for update
  ),
  target as (
    select j.id from "tidemark".jobs j
     where j.id = $1::bigint and ($2::text is null or j.queue = $2::text)
     and ($3::text is null or j.status = $3::text)
     and ($4::timestamptz is null or j.created_at >= $4::timestamptz)
     and ($5::timestamptz is null or j.created_at < $5::timestamptz)
     and ($6::text[] is null or j.tags @> $6::text[])
     and ($7::text is null or j.key = $7::text)
     and ($8::text is null or j.version = $8::text)
     and ($9::text is null
          or j.data::text ilike $9::text
          or j.error ->> 'message' ilike $9::text
          or j.error ->> 'name' ilike $9::text)
     for update
  ),
  reopened as (
    update "tidemark".jobs j
       set status = 'pending', run_at = now(), finished_at = null, purge_after = null,
           max_attempts = greatest(j.max_attempts, j.attempts + 1), wait = null, expire_at = null
      from subtree s
     where j.id = s.id
       and exists (select 1 from root_lock) and exists (select 1 from target)
       and (s.depth = 0 and j.status in ('failed', 'cancelled', 'expired', 'completed', 'retry')
            or s.depth > 0 and j.status in ('failed', 'cancelled', 'expired'))
    returning j.id, j.queue
  ),
  nudged as (select count(pg_notify($10, 'j:' || queue)) as n from (select distinct queue from reopened) q)
  select reopened.id::text as id from reopened cross join nudged

-- job-actions.ts#runJobNow
with 
  target as (
    select j.id from "tidemark".jobs j
     where j.id = $1::bigint and ($2::text is null or j.queue = $2::text)
     and ($3::text is null or j.status = $3::text)
     and ($4::timestamptz is null or j.created_at >= $4::timestamptz)
     and ($5::timestamptz is null or j.created_at < $5::timestamptz)
     and ($6::text[] is null or j.tags @> $6::text[])
     and ($7::text is null or j.key = $7::text)
     and ($8::text is null or j.version = $8::text)
     and ($9::text is null
          or j.data::text ilike $9::text
          or j.error ->> 'message' ilike $9::text
          or j.error ->> 'name' ilike $9::text)
     for update
  ),
  promoted as (
    update "tidemark".jobs j set run_at = least(j.run_at, now())
     where j.id = (select id from target) and j.status in ('pending', 'retry')
    returning j.id, j.queue
  ),
  nudged as (select count(pg_notify($10, 'j:' || queue)) as n from promoted)
  select promoted.id::text as id from promoted cross join nudged

-- job-actions.ts#uniqueKeyConflict
with recursive subtree as (
    select id, 0 as depth from "tidemark".jobs where id = $1::bigint
    union all
    select c.id, s.depth + 1 from "tidemark".jobs c join subtree s on c.parent_id = s.id
  )
  select j.queue, j.unique_key, holder.id::text as holder_id
    from subtree s
    join "tidemark".jobs j on j.id = s.id
    left join lateral (
      select h.id from "tidemark".jobs h
       where h.queue = j.queue and h.unique_key = j.unique_key and h.id <> j.id
         and h.status in ('pending', 'active', 'retry', 'waiting', 'paused')
       limit 1
    ) holder on true
   where j.unique_key is not null
   order by holder.id is null, s.depth
   limit 1

-- job-list.ts#jobAtOrAfter
select j.id::text as id, j.created_at from "tidemark".jobs j where j.id >= $1::bigint order by j.id limit 1

-- job-list.ts#jobIdBounds
select (select j.id::text from "tidemark".jobs j order by j.id limit 1) as lo,
         (select j.id::text from "tidemark".jobs j order by j.id desc limit 1) as hi

-- job-list.ts#listJobsAll
select j.id::text as id, j.queue, j.status, j.attempts, j.max_attempts, j.priority,
  j.created_at, j.run_at, j.started_at, j.finished_at, j.parent_id::text as parent_id,
  left(j.data::text, 160) as data_preview, j.error ->> 'message' as error_message
    from "tidemark".jobs j
   where j.id < $1::bigint and j.id >= $2::bigint
     and ($3::text is null or j.queue = $3::text)
     and ($4::text is null or j.status = $4::text)
     and ($5::timestamptz is null or j.created_at >= $5::timestamptz)
     and ($6::timestamptz is null or j.created_at < $6::timestamptz)
     and ($7::text[] is null or j.tags @> $7::text[])
     and ($8::text is null or j.key = $8::text)
     and ($9::text is null or j.version = $9::text)
     and ($10::text is null
          or j.data::text ilike $10::text
          or j.error ->> 'message' ilike $10::text
          or j.error ->> 'name' ilike $10::text)
   order by j.id desc
   limit $11

-- job-list.ts#listJobsAllNewer
select j.id::text as id, j.queue, j.status, j.attempts, j.max_attempts, j.priority,
  j.created_at, j.run_at, j.started_at, j.finished_at, j.parent_id::text as parent_id,
  left(j.data::text, 160) as data_preview, j.error ->> 'message' as error_message
    from "tidemark".jobs j
   where j.id < $1::bigint and j.id >= $2::bigint
     and ($3::text is null or j.queue = $3::text)
     and ($4::text is null or j.status = $4::text)
     and ($5::timestamptz is null or j.created_at >= $5::timestamptz)
     and ($6::timestamptz is null or j.created_at < $6::timestamptz)
     and ($7::text[] is null or j.tags @> $7::text[])
     and ($8::text is null or j.key = $8::text)
     and ($9::text is null or j.version = $9::text)
     and ($10::text is null
          or j.data::text ilike $10::text
          or j.error ->> 'message' ilike $10::text
          or j.error ->> 'name' ilike $10::text)
   order by j.id asc
   limit $11

-- job-list.ts#listJobsByFinished
select j.id::text as id, j.queue, j.status, j.attempts, j.max_attempts, j.priority,
  j.created_at, j.run_at, j.started_at, j.finished_at, j.parent_id::text as parent_id,
  left(j.data::text, 160) as data_preview, j.error ->> 'message' as error_message, (extract(epoch from j.finished_at) * 1000000)::bigint::text as finished_us
    from "tidemark".jobs j
   where j.finished_at is not null
     and ($1::bigint is null
          or (j.finished_at, j.id)
             < ('epoch'::timestamptz + $1::bigint * interval '1 microsecond', $2::bigint))
     and j.id < $3::bigint and j.id >= $4::bigint
     and ($5::text is null or j.queue = $5::text)
     and ($6::text is null or j.status = $6::text)
     and ($7::timestamptz is null or j.created_at >= $7::timestamptz)
     and ($8::timestamptz is null or j.created_at < $8::timestamptz)
     and ($9::text[] is null or j.tags @> $9::text[])
     and ($10::text is null or j.key = $10::text)
     and ($11::text is null or j.version = $11::text)
     and ($12::text is null
          or j.data::text ilike $12::text
          or j.error ->> 'message' ilike $12::text
          or j.error ->> 'name' ilike $12::text)
   order by j.finished_at desc, j.id desc
   limit $13

-- job-list.ts#listJobsByFinishedInQueue
select j.id::text as id, j.queue, j.status, j.attempts, j.max_attempts, j.priority,
  j.created_at, j.run_at, j.started_at, j.finished_at, j.parent_id::text as parent_id,
  left(j.data::text, 160) as data_preview, j.error ->> 'message' as error_message, (extract(epoch from j.finished_at) * 1000000)::bigint::text as finished_us
    from "tidemark".jobs j
   where j.finished_at is not null and j.queue = $1::text
     and ($2::bigint is null
          or (j.finished_at, j.id)
             < ('epoch'::timestamptz + $2::bigint * interval '1 microsecond', $3::bigint))
     and j.id < $4::bigint and j.id >= $5::bigint
     and ($1::text is null or j.queue = $1::text)
     and ($6::text is null or j.status = $6::text)
     and ($7::timestamptz is null or j.created_at >= $7::timestamptz)
     and ($8::timestamptz is null or j.created_at < $8::timestamptz)
     and ($9::text[] is null or j.tags @> $9::text[])
     and ($10::text is null or j.key = $10::text)
     and ($11::text is null or j.version = $11::text)
     and ($12::text is null
          or j.data::text ilike $12::text
          or j.error ->> 'message' ilike $12::text
          or j.error ->> 'name' ilike $12::text)
   order by j.finished_at desc, j.id desc
   limit $13

-- job-list.ts#listJobsByQueueStatus
select page.* from unnest($1::text[]) as q(name)
   cross join unnest($2::text[]) as s(status)
   cross join lateral (
     select j.id::text as id, j.queue, j.status, j.attempts, j.max_attempts, j.priority,
  j.created_at, j.run_at, j.started_at, j.finished_at, j.parent_id::text as parent_id,
  left(j.data::text, 160) as data_preview, j.error ->> 'message' as error_message
       from "tidemark".jobs j
      where j.queue = q.name
        and (j.status, j.id) < (s.status, $3::bigint)
        and (j.status, j.id) >= (s.status, $4::bigint)
        and ($5::text is null or j.queue = $5::text)
     and ($6::text is null or j.status = $6::text)
     and ($7::timestamptz is null or j.created_at >= $7::timestamptz)
     and ($8::timestamptz is null or j.created_at < $8::timestamptz)
     and ($9::text[] is null or j.tags @> $9::text[])
     and ($10::text is null or j.key = $10::text)
     and ($11::text is null or j.version = $11::text)
     and ($12::text is null
          or j.data::text ilike $12::text
          or j.error ->> 'message' ilike $12::text
          or j.error ->> 'name' ilike $12::text)
      order by j.status desc, j.id desc
      limit $13
   ) page
   order by page.id::bigint desc
   limit $13

-- job-list.ts#listJobsByQueueStatusNewer
select page.* from unnest($1::text[]) as q(name)
   cross join unnest($2::text[]) as s(status)
   cross join lateral (
     select j.id::text as id, j.queue, j.status, j.attempts, j.max_attempts, j.priority,
  j.created_at, j.run_at, j.started_at, j.finished_at, j.parent_id::text as parent_id,
  left(j.data::text, 160) as data_preview, j.error ->> 'message' as error_message
       from "tidemark".jobs j
      where j.queue = q.name
        and (j.status, j.id) < (s.status, $3::bigint)
        and (j.status, j.id) >= (s.status, $4::bigint)
        and ($5::text is null or j.queue = $5::text)
     and ($6::text is null or j.status = $6::text)
     and ($7::timestamptz is null or j.created_at >= $7::timestamptz)
     and ($8::timestamptz is null or j.created_at < $8::timestamptz)
     and ($9::text[] is null or j.tags @> $9::text[])
     and ($10::text is null or j.key = $10::text)
     and ($11::text is null or j.version = $11::text)
     and ($12::text is null
          or j.data::text ilike $12::text
          or j.error ->> 'message' ilike $12::text
          or j.error ->> 'name' ilike $12::text)
      order by j.status asc, j.id asc
      limit $13
   ) page
   order by page.id::bigint asc
   limit $13

-- job-notes.ts#jobLogDropped
select coalesce(j.log_dropped, 0) as dropped from "tidemark".jobs j where j.id = $1::bigint

-- job-notes.ts#listJobLogs
select x.id::text as id, x.attempt, x.level, x.message, x.attrs, x.logged_at
    from "tidemark".job_logs x
   where x.job_id = $1::bigint and x.id > $2::bigint
   order by x.id
   limit $3

-- job-notes.ts#writeJobNotes
with note as (
    select * from jsonb_to_recordset($1::jsonb)
           as n(id bigint, token uuid, attempt int, progress jsonb, metadata jsonb, logs jsonb, dropped int)
  ),
  -- Share-locked, in id order, as signals are consumed: applying a policy to history waits
  -- for this write or is waited for, so no line keeps a window its job no longer has.
  owned as (
    select j.id, j.queue, j.retention, n.attempt, n.progress, n.metadata, n.logs, coalesce(n.dropped, 0) as refused
      from "tidemark".jobs j
      join note n on n.id = j.id and n.token = j.lock_token
     where j.id = any(array(select id from note)) and case when j.status = 'active' then true end
     order by j.id
       for share of j
  ),
  line as (
    select o.id as job_id, o.attempt, l.n, l.level, l.message, l.attrs, l.at, o.retention,
           octet_length(l.message) + coalesce(octet_length(l.attrs::text), 0) as bytes
      from owned o
     cross join lateral jsonb_to_recordset(coalesce(o.logs, '[]'))
           as l(n int, level text, message text, attrs jsonb, at timestamptz)
  ),
  used as (
    select x.job_id, count(*) as lines,
           sum(octet_length(x.message) + coalesce(octet_length(x.attrs::text), 0)) as bytes
      from "tidemark".job_logs x
     where x.job_id = any(array(select distinct job_id from line))
     group by x.job_id
  ),
  ranked as (
    select l.*, row_number() over w as nth, sum(l.bytes) over w as running
      from line l
    window w as (partition by l.job_id order by l.n)
  ),
  kept as (
    select r.* from ranked r
      left join used u on u.job_id = r.job_id
     where coalesce(u.lines, 0) + r.nth <= $2
       and coalesce(u.bytes, 0) + r.running <= $3
  ),
  logged as (
    insert into "tidemark".job_logs (job_id, attempt, level, message, attrs, logged_at, purge_after)
    select k.job_id, k.attempt, k.level, k.message, k.attrs, k.at, k.at + nullif((k.retention ->> 'logsAfterSeconds')::float8, 0) * interval '1 second'
      from kept k
     order by k.job_id, k.n
    returning job_id
  ),
  tally as (
    select o.id, o.queue, o.progress, o.metadata, coalesce(k.written, 0) as written,
           coalesce(l.lines, 0) - coalesce(k.written, 0) + o.refused as dropped
      from owned o
      left join (select job_id, count(*) as lines from line group by job_id) l on l.job_id = o.id
      left join (select job_id, count(*) as written from kept group by job_id) k on k.job_id = o.id
  ),
  noted as (
    update "tidemark".jobs j
       set progress = coalesce(t.progress, j.progress),
           metadata = coalesce(t.metadata, j.metadata),
           log_dropped = case when t.dropped > 0 then coalesce(j.log_dropped, 0) + t.dropped
                              else j.log_dropped end
      from tally t
     where j.id = t.id
       and (t.progress is not null or t.metadata is not null or t.dropped > 0)
  ),
  -- Subscribers (tm.subscribe) read the job again: its id and queue, delivered at commit.
  told as (select count(pg_notify($4, 'n:' || t.id || ':' || t.queue)) as n from tally t)
  -- Joined so that it runs: a CTE that only reads runs when something reads it.
  select t.id::text as id, t.written::int as written, t.dropped::int as dropped from tally t, told

-- jobs.ts#findLockHolder
select job_id::text as id from "tidemark".unique_locks where scope = $1 and expires_at > now()

-- jobs.ts#findUniqueHolder
select id::text as id from "tidemark".jobs
   where queue = $1 and unique_key = $2
     and status in ('pending', 'active', 'retry', 'waiting', 'paused')

-- jobs.ts#getJob
select id, queue, data, output, error, priority, attempts, max_attempts, parent_id,
  root_id, retention, key, tier, tags, progress, metadata, trace, status, run_at, expire_at, created_at, started_at, finished_at,
  parent_step, locked_by, locked_until, unique_key, wait, purge_after, log_dropped, version from "tidemark".jobs where id = $1::bigint

-- jobs.ts#getJobs
select id, queue, data, output, error, priority, attempts, max_attempts, parent_id,
  root_id, retention, key, tier, tags, progress, metadata, trace, status, run_at, expire_at, created_at, started_at, finished_at,
  parent_step, locked_by, locked_until, unique_key, wait, purge_after, log_dropped, version from "tidemark".jobs where id = any($1::bigint[])

-- jobs.ts#getStatuses
select id::text as id, status from "tidemark".jobs where id = any($1::bigint[])

-- jobs.ts#insertJobWithLock
with input as (
    select nextval(pg_get_serial_sequence('"tidemark".jobs', 'id')) as id, input.*
      from jsonb_to_recordset($1::jsonb) as input(idx int, data jsonb, policy int, queue text, priority int, max_attempts int, run_at timestamptz, delay_seconds float8, expire_in_seconds float8, unique_key text, parent_id bigint, root_id bigint, parent_step text, key text, tier text, fold_key text, tags text[], trace jsonb, version text, forked_from bigint)
  ),
  locked as (
    insert into "tidemark".unique_locks (scope, job_id, expires_at)
    select $2, id, now() + $3 * interval '1 second' from input
    on conflict (scope) do update
      set job_id = excluded.job_id, expires_at = excluded.expires_at, created_at = now()
      where "tidemark".unique_locks.expires_at <= now()
    returning job_id
  ),
  inserted as (
    insert into "tidemark".jobs (id, queue, data, priority, run_at, expire_at, max_attempts, retention, unique_key,
                                parent_id, root_id, parent_step, key, tier, fold_key, tags, trace, version, forked_from)
    select input.id, input.queue, coalesce(input.data, 'null'::jsonb), input.priority, due.at,
           due.at + input.expire_in_seconds * interval '1 second',
           coalesce(input.max_attempts,
  (select (q.options ->> 'maxAttempts')::int from "tidemark".queues q where q.name = input.queue), $4::int),
           coalesce($5::jsonb -> input.policy,
  (select q.options -> 'retention' from "tidemark".queues q where q.name = input.queue), $6::jsonb),
           input.unique_key, input.parent_id, input.root_id, input.parent_step, input.key, input.tier, input.fold_key, input.tags, input.trace,
           input.version, input.forked_from
      from input
      join locked on locked.job_id = input.id
     cross join lateral (
       select coalesce(input.run_at, now() + coalesce(input.delay_seconds, 0) * interval '1 second') as at) due
    returning id, queue, run_at
  ),
  nudged as (
    select count(pg_notify($7, 'j:' || queue)) as n
      from (select distinct queue from inserted where run_at <= now()) ready
  )
  select inserted.id::text as id from inserted cross join nudged

-- jobs.ts#insertJobs
with input as (
    select nextval(seq.id) as id, input.*
      from (select pg_get_serial_sequence('"tidemark".jobs', 'id')::regclass as id) seq,
           jsonb_to_recordset($1::jsonb) as input(idx int, data jsonb, policy int, queue text, priority int, max_attempts int, run_at timestamptz, delay_seconds float8, expire_in_seconds float8, unique_key text, parent_id bigint, root_id bigint, parent_step text, key text, tier text, fold_key text, tags text[], trace jsonb, version text, forked_from bigint)
  ),
  inserted as (
    insert into "tidemark".jobs (id, queue, data, priority, run_at, expire_at, max_attempts, retention, unique_key,
                                parent_id, root_id, parent_step, key, tier, fold_key, tags, trace, version, forked_from)
    select input.id, input.queue, coalesce(input.data, 'null'::jsonb), input.priority, due.at,
           due.at + input.expire_in_seconds * interval '1 second',
           coalesce(input.max_attempts,
  (select (q.options ->> 'maxAttempts')::int from "tidemark".queues q where q.name = input.queue), $2::int),
           coalesce($3::jsonb -> input.policy,
  (select q.options -> 'retention' from "tidemark".queues q where q.name = input.queue), $4::jsonb),
           input.unique_key, input.parent_id, input.root_id, input.parent_step, input.key, input.tier, input.fold_key, input.tags, input.trace,
           input.version, input.forked_from
      from input
     cross join lateral (
       select coalesce(input.run_at, now() + coalesce(input.delay_seconds, 0) * interval '1 second') as at) due
    on conflict (queue, unique_key) where unique_key is not null
      and status in ('pending', 'active', 'retry', 'waiting', 'paused') do nothing
    returning id, queue, run_at
  ),
  nudged as (
    select count(pg_notify($5, 'j:' || queue)) as n
      from (select distinct queue from inserted where run_at <= now()) ready
  )
  select input.idx, input.id::text as id, (inserted.id is not null) as inserted
    from input left join inserted on inserted.id = input.id
   cross join nudged
   order by input.idx

-- jobs.ts#insertPlainJobs
with inserted as (
    insert into "tidemark".jobs (queue, data, priority, run_at, expire_at, max_attempts, retention, unique_key,
                                parent_id, root_id, parent_step, key, tier, fold_key, tags, trace, version, forked_from)
    select input.queue, coalesce(input.data, 'null'::jsonb), input.priority, due.at,
           due.at + input.expire_in_seconds * interval '1 second',
           coalesce(input.max_attempts,
  (select (q.options ->> 'maxAttempts')::int from "tidemark".queues q where q.name = input.queue), $1::int),
           coalesce($2::jsonb -> input.policy,
  (select q.options -> 'retention' from "tidemark".queues q where q.name = input.queue), $3::jsonb),
           input.unique_key, input.parent_id, input.root_id, input.parent_step, input.key, input.tier, input.fold_key, input.tags, input.trace,
           input.version, input.forked_from
      from jsonb_to_recordset($4::jsonb) as input(idx int, data jsonb, policy int, queue text, priority int, max_attempts int, run_at timestamptz, delay_seconds float8, expire_in_seconds float8, unique_key text, parent_id bigint, root_id bigint, parent_step text, key text, tier text, fold_key text, tags text[], trace jsonb, version text, forked_from bigint)
     cross join lateral (
       select coalesce(input.run_at, now() + coalesce(input.delay_seconds, 0) * interval '1 second') as at) due
     order by input.idx
    returning id, queue, run_at
  ),
  nudged as (
    select count(pg_notify($5, 'j:' || queue)) as n
      from (select distinct queue from inserted where run_at <= now()) ready
  )
  select inserted.id::text as id
    from inserted cross join nudged
   order by inserted.id

-- jobs.ts#insertUniformJobs
with inserted as (
    insert into "tidemark".jobs (queue, data, priority, max_attempts, retention, trace, version)
    select $1::text, input.data, $2::int,
           coalesce($3::int,
  (select (q.options ->> 'maxAttempts')::int from "tidemark".queues q where q.name = $1), $4::int),
           coalesce($5::jsonb,
  (select q.options -> 'retention' from "tidemark".queues q where q.name = $1), $6::jsonb),
           $7::jsonb, $8::text
      from jsonb_array_elements($9::jsonb) with ordinality as input(data, idx)
     order by input.idx
    returning id
  )
  select string_agg(inserted.id::text, ',' order by inserted.id) as ids
    from inserted cross join (select pg_notify($10, 'j:' || $1)) as nudged

-- jobs.ts#listChildren
select id, queue, data, output, error, priority, attempts, max_attempts, parent_id,
  root_id, retention, key, tier, tags, progress, metadata, trace, status, run_at, expire_at, created_at, started_at, finished_at,
  parent_step, locked_by, locked_until, unique_key, wait, purge_after, log_dropped, version from "tidemark".jobs where parent_id = $1::bigint order by id

-- keys.ts#clearKeyLimit
with dropped as (
    delete from "tidemark".key_settings where queue = $1 and key = $2 and not paused
  )
  update "tidemark".key_settings set concurrency = null, updated_at = now()
    from (select count(pg_notify($3, 'j:' || $1))) nudged
   where queue = $1 and key = $2 and paused

-- keys.ts#listKeys
with keyed as (
    select j.key,
           count(*) filter (where j.status = 'active')::int as active,
           count(*) filter (where j.status in ('pending', 'retry'))::int as pending,
           min(j.run_at) filter (where j.status in ('pending', 'retry')) as oldest_pending_at,
           (array_agg(j.tier order by j.id desc))[1] as tier
      from "tidemark".jobs j
     where j.queue = $1 and j.key is not null
       and j.status in ('pending', 'active', 'retry', 'waiting', 'paused')
       and ($2::text is null or j.key > $2::text)
     group by j.key
  ),
  every_key as (
    select key from keyed
    union
    select key from "tidemark".key_settings
     where queue = $1 and ($2::text is null or key > $2::text)
  ),
  described as (
    select e.key, k.tier, coalesce(k.active, 0) as active, coalesce(k.pending, 0) as pending,
           coalesce(s.concurrency, ($3::jsonb -> 'tiers' ->> k.tier)::int,
                    ($3::jsonb ->> 'concurrency')::int) as key_limit,
           coalesce(s.paused, false) as paused, k.oldest_pending_at
      from every_key e
      left join keyed k on k.key = e.key
      left join "tidemark".key_settings s on s.queue = $1 and s.key = e.key
  )
  select * from described d
   where not $4::boolean
      or d.pending > 0 and (d.paused or d.active >= d.key_limit)
   order by d.key
   limit $5

-- keys.ts#pauseKey
insert into "tidemark".key_settings (queue, key, paused) values ($1, $2, true)
  on conflict (queue, key) do update set paused = true, updated_at = now()

-- keys.ts#resumeKey
with dropped as (
    delete from "tidemark".key_settings where queue = $1 and key = $2 and concurrency is null
  )
  update "tidemark".key_settings set paused = false, updated_at = now()
    from (select count(pg_notify($3, 'j:' || $1))) nudged
   where queue = $1 and key = $2 and concurrency is not null

-- keys.ts#setKeyLimit
insert into "tidemark".key_settings (queue, key, concurrency)
  select $1, $2, $3::int from (select count(pg_notify($4, 'j:' || $1))) nudged
  on conflict (queue, key) do update set concurrency = excluded.concurrency, updated_at = now()

-- limiters.ts#deleteFullBuckets(1000)
with gate as materialized (
    select c.paused, c.reason, c.paused_at,
           c.version = (select s.version from "tidemark".retention_control s where s.id = 1) as fresh
      from "tidemark".retention_control c
     where c.id = 1
       for share of c
  ),
  doomed as (
    select limiter, key from "tidemark".limiter_buckets
     where booked <= now() and coalesce((select not g.paused and g.fresh from gate g), false)
     order by booked
     limit 1000
       for update skip locked
  ),
  deleted as (
    delete from "tidemark".limiter_buckets b
     using doomed d
     where b.limiter = d.limiter and b.key = d.key and b.booked <= now()
    returning 1
  )
  select (select count(*) from deleted)::int as n, (select g.paused from gate g) as paused,
         (select g.fresh from gate g) as fresh,
         (select g.reason from gate g) as paused_reason,
         (select g.paused_at from gate g) as paused_at

-- limiters.ts#deleteLimiter
delete from "tidemark".limiters where name = $1 returning name

-- limiters.ts#drainBuckets
insert into "tidemark".limiter_buckets as b (limiter, key, tat, booked)
  select x.name, x.key, d.until, d.until
    from jsonb_to_recordset($1::jsonb) as x(name text, key text)
    join "tidemark".limiters l on l.name = x.name
   cross join lateral (
     select now() + $2::float8 * interval '1 second'
            + l.burst * "tidemark".limiter_spacing(l.period_seconds, l.limit_count) as until
   ) d
   order by 1, 2
  on conflict (limiter, key) do update
     set tat = greatest(b.tat, excluded.tat), booked = greatest(b.booked, excluded.tat)

-- limiters.ts#grantLimiterTokens
select date_part('epoch', g.granted_at) * 1000 as granted_at, g.guard,
         date_part('epoch', statement_timestamp()) * 1000 as started
    from "tidemark".grant_limiter_tokens($1::text[], $2::text[], $3::int[], $4::bigint[]) g

-- limiters.ts#limiterBucket
select l.name, l.limit_count, l.period_seconds, l.burst,
         extract(epoch from "tidemark".limiter_spacing(l.period_seconds, l.limit_count))::float8 as spacing_seconds,
         (select count(*) from "tidemark".limiter_buckets b
           where b.limiter = l.name and b.tat > now())::int as buckets,
         (select count(*) from "tidemark".jobs j
           where j.held_by = l.name and j.held_key = $1 and j.status in ('pending', 'retry', 'waiting'))::int as waiting,
         s.tokens::int as tokens,
         case when s.tokens < l.burst + 1
              then b.tat - (l.burst + 1 - s.tokens - 1) * s.spacing end as next_token_at,
         case when b.tat > now() then b.tat end as full_at
    from "tidemark".limiters l
    left join "tidemark".limiter_buckets b on b.limiter = l.name and b.key = $1
   cross join lateral (
     select "tidemark".limiter_spacing(l.period_seconds, l.limit_count) as spacing
   ) sp
   cross join lateral (
     -- none while the bucket is in debt (emptied past its refill by retryAfter's drainLimiter)
     select sp.spacing,
            greatest(floor(l.burst + 1 - extract(epoch from greatest(b.tat, now()) - now())
                                         / extract(epoch from sp.spacing)), 0) as tokens
   ) s
   where l.name = $2

-- limiters.ts#listLimiters
select l.name, l.limit_count, l.period_seconds, l.burst,
         extract(epoch from "tidemark".limiter_spacing(l.period_seconds, l.limit_count))::float8 as spacing_seconds,
         (select count(*) from "tidemark".limiter_buckets b
           where b.limiter = l.name and b.tat > now())::int as buckets,
         (select count(*) from "tidemark".jobs j
           where j.held_by = l.name and j.status in ('pending', 'retry', 'waiting'))::int as waiting from "tidemark".limiters l order by l.name

-- limiters.ts#takeLimiterTokens
select t.job_id::text as job_id, t.verdict, t.detail, date_part('epoch', t.turn) * 1000 as turn, t.guard,
         date_part('epoch', statement_timestamp()) * 1000 as started
    from "tidemark".take_limiter_tokens($1::jsonb) t

-- limiters.ts#upsertLimiter
insert into "tidemark".limiters (name, limit_count, period_seconds, burst)
  values ($1, $2::int, $3::float8, $4::int)
  on conflict (name) do update
     set limit_count = excluded.limit_count, period_seconds = excluded.period_seconds,
         burst = excluded.burst, updated_at = now()

-- maintenance.ts#expireJobs
with overdue as (
    select id from "tidemark".jobs
     where status = 'pending' and attempts = 0 and expire_at <= now()
     limit $1
     for update skip locked
  )
  update "tidemark".jobs j
     set status = 'expired', finished_at = now(),
         purge_after = "tidemark".purge_time(j.retention, 'expired', now())
    from overdue
   where j.id = overdue.id
  returning j.id::text as id

-- maintenance.ts#nudgeDueQueues
select count(pg_notify($1, 'j:' || queue))::int as n from (
    select distinct queue from "tidemark".jobs
     where (status in ('retry', 'waiting') or (status = 'pending' and run_at > created_at))
       and run_at <= now() and run_at > now() - $2 * interval '1 second'
  ) due

-- maintenance.ts#promoteRetries
with due as (
    select id from "tidemark".jobs
     where status = 'retry' and run_at <= now() -- jobs_due_idx
     limit $1
     for update skip locked
  )
  update "tidemark".jobs j set status = 'pending' from due where j.id = due.id
  returning j.id::text as id

-- maintenance.ts#readTurn
select name, last_run_at, last_result from "tidemark".maintenance where name = $1

-- maintenance.ts#recordTurnResult
update "tidemark".maintenance set last_result = $1::jsonb where name = $2

-- maintenance.ts#recoverStalled
with stalled as (
    select id from "tidemark".jobs j
     where status = 'active' and locked_until < now()
       and not exists (
         select 1 from "tidemark".workers w
          where w.id = j.locked_by and w.started_at <= j.started_at
            and w.heartbeat_at > j.locked_until - w.heartbeat_seconds * interval '1 second'
            and w.heartbeat_at < j.locked_until + 3 * w.heartbeat_seconds * interval '1 second'
            and w.heartbeat_at > now() - 2 * w.heartbeat_seconds * interval '1 second')
     order by locked_until
     limit $1
     for update skip locked
  ),
  recovered as (
    update "tidemark".jobs j
       set status = case when j.attempts >= j.max_attempts then 'failed' else 'retry' end,
           run_at = now(),
           error = jsonb_build_object('name', 'StalledJobError',
                     'message', 'lock lapsed: the worker stopped heartbeating (crashed or blocked)',
                     'worker', j.locked_by),
           attempt_log = "tidemark".log_attempt(j.attempt_log,
             jsonb_build_object('attempt', j.attempts, 'startedAt', j.started_at, 'endedAt', now(),
                                'name', 'StalledJobError', 'message', 'lock lapsed', 'worker', j.locked_by)),
           finished_at = case when j.attempts >= j.max_attempts then now() end,
           purge_after = "tidemark".purge_time(j.retention,
                           case when j.attempts >= j.max_attempts then 'failed' else 'retry' end, now()),
           lock_token = null, locked_by = null, locked_until = null
      from stalled
     where j.id = stalled.id
    returning j.id, j.queue, j.status
  ),
  nudged as (
    select count(pg_notify($2, 'j:' || queue)) as n
      from (select distinct queue from recovered where status = 'retry') q
  )
  select count(*)::int as n from recovered cross join nudged

-- maintenance.ts#takeTurn
insert into "tidemark".maintenance as m (name, last_run_at) values ($1, now())
  on conflict (name) do update set last_run_at = now()
   where m.last_run_at is null or m.last_run_at <= now() - $2 * interval '1 second'
      or m.last_run_at > clock_timestamp()
  returning name

-- maintenance.ts#tryAdvisoryLock
select pg_try_advisory_xact_lock(hashtext($1)) as locked

-- metrics.ts#queueDepths
select q.name as queue,
         (select count(*)::int from "tidemark".jobs j
           where j.queue = q.name and j.status in ('pending', 'retry')) as depth
    from "tidemark".queues q
   order by q.name

-- queue-changes.ts#queueChanges
with added as (
    select id from (
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'pending' and id > $2::bigint
                       order by id limit $3)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'active' and id > $2::bigint
                       order by id limit $3)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'retry' and id > $2::bigint
                       order by id limit $3)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'waiting' and id > $2::bigint
                       order by id limit $3)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'paused' and id > $2::bigint
                       order by id limit $3)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'completed' and id > $2::bigint
                       order by id limit $3)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'failed' and id > $2::bigint
                       order by id limit $3)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'cancelled' and id > $2::bigint
                       order by id limit $3)
      union all
      (select id from "tidemark".jobs
                       where queue = $1 and status = 'expired' and id > $2::bigint
                       order by id limit $3)
    ) statuses
    order by id limit $3
  ),
  running as (
    select id from "tidemark".jobs where queue = $1 and status = 'active' order by id limit $3
  ),
  finished as (
    select id from "tidemark".jobs
     where queue = $1 and finished_at >= $4::timestamptz
       and (finished_at, id) > ($4::timestamptz, $5::bigint)
     order by finished_at, id limit $3
  ),
  found as (
    select id from added union select id from running union select id from finished
    union select unnest($6::bigint[])
  )
  select id, queue, data, output, error, priority, attempts, max_attempts, parent_id,
  root_id, retention, key, tier, tags, progress, metadata, trace, status, run_at, expire_at, created_at, started_at, finished_at,
  parent_step, locked_by, locked_until, unique_key, wait, purge_after, log_dropped, version,
         id in (select id from added) as added,
         id in (select id from finished) as finished_walk,
         to_char(finished_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as finished_key
    from "tidemark".jobs
   where id in (select id from found)
   order by id

-- queue-changes.ts#queueChangesStart
with newest as (select coalesce(max(id), 0) as id from "tidemark".jobs)
  select newest.id::text as after_id,
         to_char(coalesce((select max(finished_at) from "tidemark".jobs
                                  where queue = $1 and finished_at is not null), 'epoch'::timestamptz) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
           as finished_after,
         newest.id::text as finished_after_id
    from newest

-- queue-charts.ts#queueChartBuckets
select greatest(floor(extract(epoch from (now() - r.finished_at)) / $1::float8), 0)::int as bucket_ago,
         count(*)::int as finished,
         (count(*) filter (where r.status = 'completed'))::int as completed,
         (count(*) filter (where r.status = 'failed'))::int as failed,
         percentile_cont(0.5) within group (order by r.wait_ms) as wait_p50_ms,
         percentile_cont(0.95) within group (order by r.wait_ms) as wait_p95_ms,
         percentile_cont(0.5) within group (order by r.run_ms) as run_p50_ms,
         percentile_cont(0.95) within group (order by r.run_ms) as run_p95_ms
    from (select j.status, j.finished_at,
                 (extract(epoch from (j.started_at - j.run_at)) * 1000)::float8 as wait_ms,
                 (extract(epoch from (j.finished_at - j.started_at)) * 1000)::float8 as run_ms
            from "tidemark".jobs j
           where j.queue = $2
             and j.finished_at > now() - $3::float8 * interval '1 second'
           order by j.finished_at desc
           limit $4) r
   group by grouping sets ((1), ())

-- queues.ts#getQueue
select name, options, paused from "tidemark".queues where name = $1

-- queues.ts#listQueues
select name, options, paused from "tidemark".queues order by name

-- queues.ts#setQueuePaused
with changed as (
    update "tidemark".queues set paused = $1, updated_at = now() where name = $2 returning name, paused
  ),
  nudged as (select count(pg_notify($3, 'j:' || name)) as n from changed where not paused)
  select changed.name from changed cross join nudged

-- queues.ts#upsertQueue
insert into "tidemark".queues (name, options, engine_retention)
  values ($1, $2::jsonb, $3::jsonb)
  on conflict (name) do update
    set options = excluded.options, engine_retention = excluded.engine_retention, updated_at = now()
   where "tidemark".queues.options is distinct from excluded.options
      or "tidemark".queues.engine_retention is distinct from excluded.engine_retention

-- retention-controls.ts#countJobsWithWindow
select count(*)::int as n
    from (select 1 from "tidemark".jobs where purge_after is not null limit $1) due

-- retention-controls.ts#deleteHold
delete from "tidemark".retention_holds where id = $1::bigint returning id::text as id

-- retention-controls.ts#deleteSubtreeChecked
with recursive subtree as (
    select id, 0 as depth from "tidemark".jobs where id = $1::bigint
    union all
    select c.id, s.depth + 1 from "tidemark".jobs c join subtree s on c.parent_id = s.id
  ),
  top as (select coalesce(root_id, id) as id from "tidemark".jobs where id = $1::bigint),
  ancestors as (
    select p.id, p.parent_id, 1 as up from "tidemark".jobs p
     where p.id = (select parent_id from "tidemark".jobs where id = $1::bigint)
    union all
    select p.id, p.parent_id, a.up + 1 from "tidemark".jobs p join ancestors a on p.id = a.parent_id
  ),
  ancestors_now as materialized (
    select j.id, j.status, a.up from "tidemark".jobs j join ancestors a on a.id = j.id
     order by j.id
       for share of j
  ),
  members_now as materialized (
    select j.id, j.status, s.depth from "tidemark".jobs j join subtree s on s.id = j.id
     order by s.depth, j.id
       for update of j
  ),
  facts as (
    select
      (select count(*) from members_now)::int as members,
      (select jsonb_build_object('id', m.id::text, 'status', m.status) from members_now m
        where m.status in ('pending', 'active', 'retry', 'waiting', 'paused') order by m.depth, m.id limit 1) as in_flight,
      (select jsonb_build_object('id', a.id::text, 'status', a.status) from ancestors_now a
        where a.status in ('pending', 'active', 'retry', 'waiting', 'paused') order by a.up limit 1) as ancestor,
      (select jsonb_build_object('id', a.id::text, 'status', a.status) from ancestors_now a
        order by a.up desc limit 1) as top,
      (select jsonb_build_object('id', h.id::text, 'reason', h.reason) from "tidemark".retention_holds h
        where (
  exists (select 1 from "tidemark".retention_hold_jobs l where l.hold_id = h.id and l.tree_id = (select id from top))
  or h.queue in (select m.queue from "tidemark".jobs m
                  where m.id = (select id from top) or m.root_id = (select id from top))) order by h.id limit 1) as hold
  ),
  deleted_subtree as (
    delete from "tidemark".jobs j using members_now m, facts f
     where j.id = m.id
       and f.in_flight is null and f.ancestor is null and f.top is null and f.hold is null
       and not ($2::boolean and f.members > 1)
    returning j.id, j.queue, j.status
  ),
  removed as (select id, queue, status from deleted_subtree),
  removed_span as materialized (select min(id) as lo, max(id) as hi from removed),
  removed_checkpoints as (
    delete from "tidemark".checkpoints d
     where (select exists (select 1 from "tidemark".checkpoints x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_signals as (
    delete from "tidemark".signals d
     where (select exists (select 1 from "tidemark".signals x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_unique_locks as (
    delete from "tidemark".unique_locks d
     where (select exists (select 1 from "tidemark".unique_locks x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_schedule_fires as (
    delete from "tidemark".schedule_fires d
     where (select exists (select 1 from "tidemark".schedule_fires x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_retention_hold_jobs as (
    delete from "tidemark".retention_hold_jobs d
     where (select exists (select 1 from "tidemark".retention_hold_jobs x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_job_logs as (
    delete from "tidemark".job_logs d
     where (select exists (select 1 from "tidemark".job_logs x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_run_history as (
    delete from "tidemark".run_history d
     where (select exists (select 1 from "tidemark".run_history x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_job_tokens as (
    delete from "tidemark".job_tokens d
     where (select exists (select 1 from "tidemark".job_tokens x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_job_dependencies as (
    delete from "tidemark".job_dependencies d
     where (select exists (select 1 from "tidemark".job_dependencies x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  )
  select f.members, f.in_flight, f.ancestor, f.top, f.hold, (select count(*) from removed)::int as deleted
    from facts f

-- retention-controls.ts#existingJobIds
select id::text as id from "tidemark".jobs where id = any($1::bigint[])

-- retention-controls.ts#getHold
select h.id::text as id, h.reason, h.queue, h.created_at, h.created_by,
  (select count(*) from (
     select j.id from "tidemark".jobs j where j.queue = h.queue
     union
     select j.id from "tidemark".retention_hold_jobs l join "tidemark".jobs j on j.id = l.job_id where l.hold_id = h.id
   ) covered)::int as jobs from "tidemark".retention_holds h where h.id = $1::bigint

-- retention-controls.ts#holdsOfJob
with top as (select coalesce(root_id, id) as id from "tidemark".jobs where id = $1::bigint)
  select h.id::text as id, h.reason, h.queue, h.created_at, h.created_by,
  (select count(*) from (
     select j.id from "tidemark".jobs j where j.queue = h.queue
     union
     select j.id from "tidemark".retention_hold_jobs l join "tidemark".jobs j on j.id = l.job_id where l.hold_id = h.id
   ) covered)::int as jobs from "tidemark".retention_holds h
   where (
  exists (select 1 from "tidemark".retention_hold_jobs l where l.hold_id = h.id and l.tree_id = (select id from top))
  or h.queue in (select m.queue from "tidemark".jobs m
                  where m.id = (select id from top) or m.root_id = (select id from top)))
   order by h.id

-- retention-controls.ts#insertHold
insert into "tidemark".retention_holds (reason, queue, created_by) values ($1, $2, $3)
  returning id::text as id, created_at

-- retention-controls.ts#linkHoldJobs
insert into "tidemark".retention_hold_jobs (hold_id, job_id, tree_id)
  select $1::bigint, j.id, coalesce(j.root_id, j.id) from "tidemark".jobs j
   where j.id = any($2::bigint[])
  on conflict do nothing
  returning job_id

-- retention-controls.ts#listHolds
select h.id::text as id, h.reason, h.queue, h.created_at, h.created_by,
  (select count(*) from (
     select j.id from "tidemark".jobs j where j.queue = h.queue
     union
     select j.id from "tidemark".retention_hold_jobs l join "tidemark".jobs j on j.id = l.job_id where l.hold_id = h.id
   ) covered)::int as jobs from "tidemark".retention_holds h order by h.id

-- retention-controls.ts#lockTreeTop
select r.id::text as id from "tidemark".jobs r
   where r.id = (select coalesce(j.root_id, j.id) from "tidemark".jobs j where j.id = $1::bigint)
     for update of r

-- retention-controls.ts#markHoldsChanged
insert into "tidemark".retention_control as c (id, version) values (1, 1)
  on conflict (id) do update set version = c.version + 1
  returning id

-- retention-controls.ts#pauseRetention
insert into "tidemark".retention_control as c (id, paused, reason, paused_at, paused_by, version)
  values (1, true, $1, now(), $2, 1)
  on conflict (id) do update
     set paused = true, reason = excluded.reason, paused_by = excluded.paused_by,
         paused_at = case when c.paused then c.paused_at else now() end, version = c.version + 1
  returning paused, reason, paused_at, paused_by

-- retention-controls.ts#readRetentionControl
select paused, reason, paused_at, paused_by, (select count(*) from "tidemark".retention_holds)::int as holds
    from "tidemark".retention_control where id = 1

-- retention-controls.ts#resumeRetention
update "tidemark".retention_control
     set paused = false, reason = null, paused_at = null, paused_by = null, version = version + 1
   where id = 1 and paused
  returning paused, reason, paused_at, paused_by

-- retention-controls.ts#retentionGate
select paused, reason, paused_at, paused_by from "tidemark".retention_control where id = 1 for share

-- retention-purge.ts#countPurgeable
with tops as (select r.id from "tidemark".jobs r where r.finished_at <= now() - $1 * interval '1 second' and r.root_id is null
     and (r.finished_at <= now() - $1 * interval '1 second') is true
     and (r.status = any($2::text[])) is true
     and ($3::text is null or r.queue = $3::text)
     and not (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = r.id and u.expires_at > now() limit 1) is not null)) and not (((select min(tree_id) from "tidemark".retention_hold_jobs) is not null) and ((select true from "tidemark".retention_hold_jobs hl where hl.tree_id = r.id limit 1) is not null)) and not (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = r.queue limit 1) is not null)) and not (r.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = r.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))
     and not exists (select 1 from "tidemark".jobs m where m.root_id = r.id and (m.finished_at is null
     or m.finished_at > now() - $1 * interval '1 second'
     or m.status <> all($2::text[])
     or (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = m.id and u.expires_at > now() limit 1) is not null))
     or (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = m.queue limit 1) is not null))
     or (m.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = m.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null)))))
  select count(*)::int as n from "tidemark".jobs j
   where j.id in (select id from tops) or j.root_id in (select id from tops)

-- retention-purge.ts#purgeFinished(1000)
with 
  gate as materialized (
    select c.paused, c.reason, c.paused_at,
           c.version = (select s.version from "tidemark".retention_control s where s.id = 1) as fresh
      from "tidemark".retention_control c
     where c.id = 1
       for share of c
  ),
  scanned as materialized (
    select r.id, r.finished_at as key from "tidemark".jobs r
     where r.finished_at <= now() - $1 * interval '1 second'
       and (r.finished_at, r.id) > ($2::timestamptz, $3::bigint)
     order by r.finished_at, r.id
     limit 1000
  ),
  scanned_span as materialized (select min(id) as lo, max(id) as hi from scanned),
  with_members as materialized (
    select distinct m.root_id as id from "tidemark".jobs m
     where (select exists (select 1 from "tidemark".jobs x
     where x.root_id between (select lo from scanned_span) and (select hi from scanned_span)))
       and m.root_id = any(array(select id from scanned))
  ),
  
  candidates as materialized (
    select r.id from "tidemark".jobs r
     where r.id = any(case when coalesce((select not g.paused and g.fresh from gate g), false) then array(select id from with_members) end)
       and r.root_id is null
     and (r.finished_at <= now() - $1 * interval '1 second') is true
     and (r.status = any($4::text[])) is true
     and ($5::text is null or r.queue = $5::text)
     and not (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = r.id and u.expires_at > now() limit 1) is not null)) and not (((select min(tree_id) from "tidemark".retention_hold_jobs) is not null) and ((select true from "tidemark".retention_hold_jobs hl where hl.tree_id = r.id limit 1) is not null)) and not (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = r.queue limit 1) is not null)) and not (r.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = r.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))
       and not exists (select 1 from "tidemark".jobs m where m.root_id = r.id and (m.finished_at is null
     or m.finished_at > now() - $1 * interval '1 second'
     or m.status <> all($4::text[])
     or (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = m.id and u.expires_at > now() limit 1) is not null))
     or (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = m.queue limit 1) is not null))
     or (m.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = m.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))))
       and r.dependents = (select k.dependents from "tidemark".jobs k where k.id = r.id)
       for update of r skip locked
  ),
  members as materialized (
    select m.id, m.root_id, coalesce(m.status = any($4::text[]) and m.finished_at <= now() - $1 * interval '1 second' and m.dependents = (select k.dependents from "tidemark".jobs k where k.id = m.id), false) as ok
      from "tidemark".jobs m
     where m.root_id = any(array(select id from candidates))
       for update of m skip locked
  ),
  seen as materialized (
    select m.root_id, count(*) as n from "tidemark".jobs m
     where m.root_id = any(array(select id from candidates)) group by m.root_id
  ),
  kept as (
    select root_id, count(*) filter (where ok) as n from members group by root_id
  ),
  trees as (
    select c.id from candidates c
      left join seen on seen.root_id = c.id
      left join kept on kept.root_id = c.id
     where coalesce(seen.n, 0) = coalesce(kept.n, 0)
  ),
  targets as (
    select id from trees
    union all
    select m.id from members m join trees t on t.id = m.root_id
  ),
  singles as (
    delete from "tidemark".jobs j where j.id = any(array(select id from scanned except select id from with_members))
       and (j.finished_at, j.dependents)
           = (select k.finished_at, k.dependents from "tidemark".jobs k where k.id = j.id)
       and j.root_id is null
     and (j.finished_at <= now() - $1 * interval '1 second') is true
     and (j.status = any($4::text[])) is true
     and ($5::text is null or j.queue = $5::text)
     and not (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = j.id and u.expires_at > now() limit 1) is not null)) and not (((select min(tree_id) from "tidemark".retention_hold_jobs) is not null) and ((select true from "tidemark".retention_hold_jobs hl where hl.tree_id = j.id limit 1) is not null)) and not (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = j.queue limit 1) is not null)) and not (j.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = j.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))
       and coalesce((select not g.paused and g.fresh from gate g), false)
    returning j.id, j.queue, j.status
  ),
  tree_jobs as (
    delete from "tidemark".jobs j where j.id = any(array(select id from targets)) and coalesce((select not g.paused and g.fresh from gate g), false)
    returning j.id, j.queue, j.status
  ),
  removed as (select id, queue, status from singles union all select id, queue, status from tree_jobs),
  removed_span as materialized (select min(id) as lo, max(id) as hi from removed),
  removed_checkpoints as (
    delete from "tidemark".checkpoints d
     where (select exists (select 1 from "tidemark".checkpoints x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_signals as (
    delete from "tidemark".signals d
     where (select exists (select 1 from "tidemark".signals x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_unique_locks as (
    delete from "tidemark".unique_locks d
     where (select exists (select 1 from "tidemark".unique_locks x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_schedule_fires as (
    delete from "tidemark".schedule_fires d
     where (select exists (select 1 from "tidemark".schedule_fires x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_retention_hold_jobs as (
    delete from "tidemark".retention_hold_jobs d
     where (select exists (select 1 from "tidemark".retention_hold_jobs x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_job_logs as (
    delete from "tidemark".job_logs d
     where (select exists (select 1 from "tidemark".job_logs x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_run_history as (
    delete from "tidemark".run_history d
     where (select exists (select 1 from "tidemark".run_history x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_job_tokens as (
    delete from "tidemark".job_tokens d
     where (select exists (select 1 from "tidemark".job_tokens x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_job_dependencies as (
    delete from "tidemark".job_dependencies d
     where (select exists (select 1 from "tidemark".job_dependencies x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  )
  select (select count(*) from scanned)::int as scanned, last.after, last.after_id, (select g.paused from gate g) as paused,
         (select g.fresh from gate g) as fresh,
         (select g.reason from gate g) as paused_reason,
         (select g.paused_at from gate g) as paused_at, (select count(*) from removed)::int as n
  
  from (select max(key) as key from scanned) top
  cross join lateral (
    select to_char(top.key at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as after,
           (select max(c.id) from scanned c where c.key = top.key)::text as after_id
  ) last

-- retention-sweep.ts#checkpointsOfJobs
select job_id::text as job_id, name, kind, output, created_at, seq from "tidemark".checkpoints
   where job_id = any($1::bigint[]) order by job_id, created_at, seq, name

-- retention-sweep.ts#countConsumedSignalsDue
with 
  tops as (
  select r.id from "tidemark".jobs r
   where r.purge_after <= now() and r.root_id is null and r.status in ('completed', 'failed', 'cancelled', 'expired')
     and not (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = r.id and u.expires_at > now() limit 1) is not null)) and not (((select min(tree_id) from "tidemark".retention_hold_jobs) is not null) and ((select true from "tidemark".retention_hold_jobs hl where hl.tree_id = r.id limit 1) is not null)) and not (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = r.queue limit 1) is not null)) and not (r.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = r.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))
     and not exists (select 1 from "tidemark".jobs m where m.root_id = r.id and (m.status not in ('completed', 'failed', 'cancelled', 'expired') or m.purge_after is null or m.purge_after > now() or (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = m.id and u.expires_at > now() limit 1) is not null))
    or (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = m.queue limit 1) is not null)) or (m.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = m.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))))),
  doomed as (
    select id from tops
    union all
    select m.id from "tidemark".jobs m where m.root_id in (select id from tops)
  )
  select count(*)::int as n from "tidemark".signals x
   where x.purge_after <= now() and x.consumed_at is not null
     and not exists (select 1 from "tidemark".jobs xj
                      where xj.id = x.job_id and ((((select min(tree_id) from "tidemark".retention_hold_jobs) is not null) and ((select true from "tidemark".retention_hold_jobs hl where hl.tree_id = coalesce(xj.root_id, xj.id) limit 1) is not null))
  or (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and exists (
        select 1 from "tidemark".jobs hm
         where (hm.id = coalesce(xj.root_id, xj.id) or hm.root_id = coalesce(xj.root_id, xj.id))
           and ((select true from "tidemark".retention_holds hq where hq.queue = hm.queue limit 1) is not null))))) and x.job_id not in (select id from doomed)

-- retention-sweep.ts#countDueLogLines
with 
  tops as (
  select r.id from "tidemark".jobs r
   where r.purge_after <= now() and r.root_id is null and r.status in ('completed', 'failed', 'cancelled', 'expired')
     and not (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = r.id and u.expires_at > now() limit 1) is not null)) and not (((select min(tree_id) from "tidemark".retention_hold_jobs) is not null) and ((select true from "tidemark".retention_hold_jobs hl where hl.tree_id = r.id limit 1) is not null)) and not (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = r.queue limit 1) is not null)) and not (r.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = r.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))
     and not exists (select 1 from "tidemark".jobs m where m.root_id = r.id and (m.status not in ('completed', 'failed', 'cancelled', 'expired') or m.purge_after is null or m.purge_after > now() or (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = m.id and u.expires_at > now() limit 1) is not null))
    or (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = m.queue limit 1) is not null)) or (m.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = m.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))))),
  doomed as (
    select id from tops
    union all
    select m.id from "tidemark".jobs m where m.root_id in (select id from tops)
  )
  select count(*)::int as n from "tidemark".job_logs x
   where x.purge_after <= now() and not exists (select 1 from "tidemark".jobs xj
                      where xj.id = x.job_id and ((((select min(tree_id) from "tidemark".retention_hold_jobs) is not null) and ((select true from "tidemark".retention_hold_jobs hl where hl.tree_id = coalesce(xj.root_id, xj.id) limit 1) is not null))
  or (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and exists (
        select 1 from "tidemark".jobs hm
         where (hm.id = coalesce(xj.root_id, xj.id) or hm.root_id = coalesce(xj.root_id, xj.id))
           and ((select true from "tidemark".retention_holds hq where hq.queue = hm.queue limit 1) is not null))))) and x.job_id not in (select id from doomed)

-- retention-sweep.ts#countExpiredUniqueLocks
with 
  tops as (
  select r.id from "tidemark".jobs r
   where r.purge_after <= now() and r.root_id is null and r.status in ('completed', 'failed', 'cancelled', 'expired')
     and not (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = r.id and u.expires_at > now() limit 1) is not null)) and not (((select min(tree_id) from "tidemark".retention_hold_jobs) is not null) and ((select true from "tidemark".retention_hold_jobs hl where hl.tree_id = r.id limit 1) is not null)) and not (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = r.queue limit 1) is not null)) and not (r.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = r.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))
     and not exists (select 1 from "tidemark".jobs m where m.root_id = r.id and (m.status not in ('completed', 'failed', 'cancelled', 'expired') or m.purge_after is null or m.purge_after > now() or (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = m.id and u.expires_at > now() limit 1) is not null))
    or (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = m.queue limit 1) is not null)) or (m.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = m.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))))),
  doomed as (
    select id from tops
    union all
    select m.id from "tidemark".jobs m where m.root_id in (select id from tops)
  )
  select count(*)::int as n from "tidemark".unique_locks u
   where u.expires_at <= now() and u.job_id not in (select id from doomed)

-- retention-sweep.ts#deleteConsumedSignals(1000)
with gate as materialized (
    select c.paused, c.reason, c.paused_at,
           c.version = (select s.version from "tidemark".retention_control s where s.id = 1) as fresh
      from "tidemark".retention_control c
     where c.id = 1
       for share of c
  ),
  doomed as (
    select x.id from "tidemark".signals x
     where x.purge_after <= now() and x.consumed_at is not null
     and not exists (select 1 from "tidemark".jobs xj
                      where xj.id = x.job_id and ((((select min(tree_id) from "tidemark".retention_hold_jobs) is not null) and ((select true from "tidemark".retention_hold_jobs hl where hl.tree_id = coalesce(xj.root_id, xj.id) limit 1) is not null))
  or (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and exists (
        select 1 from "tidemark".jobs hm
         where (hm.id = coalesce(xj.root_id, xj.id) or hm.root_id = coalesce(xj.root_id, xj.id))
           and ((select true from "tidemark".retention_holds hq where hq.queue = hm.queue limit 1) is not null))))) and coalesce((select not g.paused and g.fresh from gate g), false)
     order by x.purge_after
     limit 1000
       for update of x skip locked
  ),
  deleted as (delete from "tidemark".signals x where x.id = any(array(select id from doomed)) returning x.id)
  select (select count(*) from deleted)::int as n, (select g.paused from gate g) as paused,
         (select g.fresh from gate g) as fresh,
         (select g.reason from gate g) as paused_reason,
         (select g.paused_at from gate g) as paused_at

-- retention-sweep.ts#deleteDueLogLines(1000)
with gate as materialized (
    select c.paused, c.reason, c.paused_at,
           c.version = (select s.version from "tidemark".retention_control s where s.id = 1) as fresh
      from "tidemark".retention_control c
     where c.id = 1
       for share of c
  ),
  doomed as (
    select x.id from "tidemark".job_logs x
     where x.purge_after <= now() and not exists (select 1 from "tidemark".jobs xj
                      where xj.id = x.job_id and ((((select min(tree_id) from "tidemark".retention_hold_jobs) is not null) and ((select true from "tidemark".retention_hold_jobs hl where hl.tree_id = coalesce(xj.root_id, xj.id) limit 1) is not null))
  or (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and exists (
        select 1 from "tidemark".jobs hm
         where (hm.id = coalesce(xj.root_id, xj.id) or hm.root_id = coalesce(xj.root_id, xj.id))
           and ((select true from "tidemark".retention_holds hq where hq.queue = hm.queue limit 1) is not null))))) and coalesce((select not g.paused and g.fresh from gate g), false)
     order by x.purge_after
     limit 1000
       for update of x skip locked
  ),
  deleted as (delete from "tidemark".job_logs x where x.id = any(array(select id from doomed)) returning x.id)
  select (select count(*) from deleted)::int as n, (select g.paused from gate g) as paused,
         (select g.fresh from gate g) as fresh,
         (select g.reason from gate g) as paused_reason,
         (select g.paused_at from gate g) as paused_at

-- retention-sweep.ts#deleteDueTrees(1000)
with 
  gate as materialized (
    select c.paused, c.reason, c.paused_at,
           c.version = (select s.version from "tidemark".retention_control s where s.id = 1) as fresh
      from "tidemark".retention_control c
     where c.id = 1
       for share of c
  ),
  scanned as materialized (
    select r.id, r.purge_after as key from "tidemark".jobs r
     where r.purge_after <= now()
       and (r.purge_after, r.id) > ($1::timestamptz, $2::bigint)
     order by r.purge_after, r.id
     limit 1000
  ),
  scanned_span as materialized (select min(id) as lo, max(id) as hi from scanned),
  with_members as materialized (
    select distinct m.root_id as id from "tidemark".jobs m
     where (select exists (select 1 from "tidemark".jobs x
     where x.root_id between (select lo from scanned_span) and (select hi from scanned_span)))
       and m.root_id = any(array(select id from scanned))
  ),
  
  candidates as materialized (
    select r.id from "tidemark".jobs r
     where r.id = any(case when coalesce((select not g.paused and g.fresh from gate g), false) then array(select id from with_members) end)
       and r.root_id is null and (r.status in ('completed', 'failed', 'cancelled', 'expired')) is true and (r.purge_after <= now()) is true
     and not (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = r.id and u.expires_at > now() limit 1) is not null)) and not (((select min(tree_id) from "tidemark".retention_hold_jobs) is not null) and ((select true from "tidemark".retention_hold_jobs hl where hl.tree_id = r.id limit 1) is not null)) and not (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = r.queue limit 1) is not null)) and not (r.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = r.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))
       and not exists (select 1 from "tidemark".jobs m where m.root_id = r.id and (m.status not in ('completed', 'failed', 'cancelled', 'expired') or m.purge_after is null or m.purge_after > now() or (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = m.id and u.expires_at > now() limit 1) is not null))
    or (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = m.queue limit 1) is not null)) or (m.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = m.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))))
       and r.dependents = (select k.dependents from "tidemark".jobs k where k.id = r.id)
       for update of r skip locked
  ),
  members as materialized (
    select m.id, m.root_id, coalesce(m.status in ('completed', 'failed', 'cancelled', 'expired') and m.purge_after <= now() and m.dependents = (select k.dependents from "tidemark".jobs k where k.id = m.id), false) as ok
      from "tidemark".jobs m
     where m.root_id = any(array(select id from candidates))
       for update of m skip locked
  ),
  seen as materialized (
    select m.root_id, count(*) as n from "tidemark".jobs m
     where m.root_id = any(array(select id from candidates)) group by m.root_id
  ),
  kept as (
    select root_id, count(*) filter (where ok) as n from members group by root_id
  ),
  trees as (
    select c.id from candidates c
      left join seen on seen.root_id = c.id
      left join kept on kept.root_id = c.id
     where coalesce(seen.n, 0) = coalesce(kept.n, 0)
  ),
  targets as (
    select id from trees
    union all
    select m.id from members m join trees t on t.id = m.root_id
  ),
  singles as (
    delete from "tidemark".jobs j where j.id = any(array(select id from scanned except select id from with_members))
       and (j.purge_after, j.dependents)
           = (select k.purge_after, k.dependents from "tidemark".jobs k where k.id = j.id)
       and j.root_id is null and (j.status in ('completed', 'failed', 'cancelled', 'expired')) is true and (j.purge_after <= now()) is true
     and not (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = j.id and u.expires_at > now() limit 1) is not null)) and not (((select min(tree_id) from "tidemark".retention_hold_jobs) is not null) and ((select true from "tidemark".retention_hold_jobs hl where hl.tree_id = j.id limit 1) is not null)) and not (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = j.queue limit 1) is not null)) and not (j.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = j.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))
       and coalesce((select not g.paused and g.fresh from gate g), false)
    returning j.id, j.queue, j.status
  ),
  tree_jobs as (
    delete from "tidemark".jobs j where j.id = any(array(select id from targets)) and coalesce((select not g.paused and g.fresh from gate g), false)
    returning j.id, j.queue, j.status
  ),
  removed as (select id, queue, status from singles union all select id, queue, status from tree_jobs),
  removed_span as materialized (select min(id) as lo, max(id) as hi from removed),
  removed_checkpoints as (
    delete from "tidemark".checkpoints d
     where (select exists (select 1 from "tidemark".checkpoints x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_signals as (
    delete from "tidemark".signals d
     where (select exists (select 1 from "tidemark".signals x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_unique_locks as (
    delete from "tidemark".unique_locks d
     where (select exists (select 1 from "tidemark".unique_locks x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_schedule_fires as (
    delete from "tidemark".schedule_fires d
     where (select exists (select 1 from "tidemark".schedule_fires x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_retention_hold_jobs as (
    delete from "tidemark".retention_hold_jobs d
     where (select exists (select 1 from "tidemark".retention_hold_jobs x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_job_logs as (
    delete from "tidemark".job_logs d
     where (select exists (select 1 from "tidemark".job_logs x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_run_history as (
    delete from "tidemark".run_history d
     where (select exists (select 1 from "tidemark".run_history x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_job_tokens as (
    delete from "tidemark".job_tokens d
     where (select exists (select 1 from "tidemark".job_tokens x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_job_dependencies as (
    delete from "tidemark".job_dependencies d
     where (select exists (select 1 from "tidemark".job_dependencies x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  )
  select (select count(*) from scanned)::int as scanned, last.after, last.after_id, (select g.paused from gate g) as paused,
         (select g.fresh from gate g) as fresh,
         (select g.reason from gate g) as paused_reason,
         (select g.paused_at from gate g) as paused_at,
         coalesce((select jsonb_agg(x) from (
           select queue, status, count(*)::int as n from removed group by queue, status) x), '[]') as counts
  
  from (select max(key) as key from scanned) top
  cross join lateral (
    select to_char(top.key at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as after,
           (select max(c.id) from scanned c where c.key = top.key)::text as after_id
  ) last

-- retention-sweep.ts#deleteExpiredUniqueLocks(1000)
with gate as materialized (
    select c.paused, c.reason, c.paused_at,
           c.version = (select s.version from "tidemark".retention_control s where s.id = 1) as fresh
      from "tidemark".retention_control c
     where c.id = 1
       for share of c
  ),
  doomed as (
    select scope from "tidemark".unique_locks
     where expires_at <= now() and coalesce((select not g.paused and g.fresh from gate g), false)
     order by expires_at
     limit 1000
       for update skip locked
  ),
  deleted as (
    delete from "tidemark".unique_locks u where u.scope = any(array(select scope from doomed)) returning u.scope
  )
  select (select count(*) from deleted)::int as n, (select g.paused from gate g) as paused,
         (select g.fresh from gate g) as fresh,
         (select g.reason from gate g) as paused_reason,
         (select g.paused_at from gate g) as paused_at

-- retention-sweep.ts#deleteJobsById
with by_id as (
    delete from "tidemark".jobs j where j.id = any($1::bigint[])
    returning j.id, j.queue, j.status
  ),
  removed as (select id, queue, status from by_id),
  removed_span as materialized (select min(id) as lo, max(id) as hi from removed),
  removed_checkpoints as (
    delete from "tidemark".checkpoints d
     where (select exists (select 1 from "tidemark".checkpoints x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_signals as (
    delete from "tidemark".signals d
     where (select exists (select 1 from "tidemark".signals x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_unique_locks as (
    delete from "tidemark".unique_locks d
     where (select exists (select 1 from "tidemark".unique_locks x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_schedule_fires as (
    delete from "tidemark".schedule_fires d
     where (select exists (select 1 from "tidemark".schedule_fires x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_retention_hold_jobs as (
    delete from "tidemark".retention_hold_jobs d
     where (select exists (select 1 from "tidemark".retention_hold_jobs x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_job_logs as (
    delete from "tidemark".job_logs d
     where (select exists (select 1 from "tidemark".job_logs x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_run_history as (
    delete from "tidemark".run_history d
     where (select exists (select 1 from "tidemark".run_history x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_job_tokens as (
    delete from "tidemark".job_tokens d
     where (select exists (select 1 from "tidemark".job_tokens x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  ),
  removed_job_dependencies as (
    delete from "tidemark".job_dependencies d
     where (select exists (select 1 from "tidemark".job_dependencies x
     where x.job_id between (select lo from removed_span) and (select hi from removed_span)))
       and d.job_id = any(array(select id from removed))
  )
  select queue, status, count(*)::int as n from removed group by queue, status

-- retention-sweep.ts#lockDueTrees(1000)
with scanned as materialized (
    select r.id, r.purge_after as key from "tidemark".jobs r
     where r.purge_after <= now()
       and (r.purge_after, r.id) > ($1::timestamptz, $2::bigint)
     order by r.purge_after, r.id
     limit 1000
  ),
  
  candidates as materialized (
    select r.id from "tidemark".jobs r
     where r.id = any(array(select id from scanned))
       and r.root_id is null and (r.status in ('completed', 'failed', 'cancelled', 'expired')) is true and (r.purge_after <= now()) is true
     and not (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = r.id and u.expires_at > now() limit 1) is not null)) and not (((select min(tree_id) from "tidemark".retention_hold_jobs) is not null) and ((select true from "tidemark".retention_hold_jobs hl where hl.tree_id = r.id limit 1) is not null)) and not (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = r.queue limit 1) is not null)) and not (r.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = r.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))
       and not exists (select 1 from "tidemark".jobs m where m.root_id = r.id and (m.status not in ('completed', 'failed', 'cancelled', 'expired') or m.purge_after is null or m.purge_after > now() or (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = m.id and u.expires_at > now() limit 1) is not null))
    or (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = m.queue limit 1) is not null)) or (m.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = m.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))))
       and r.dependents = (select k.dependents from "tidemark".jobs k where k.id = r.id)
       for update of r skip locked
  ),
  members as materialized (
    select m.id, m.root_id, coalesce(m.status in ('completed', 'failed', 'cancelled', 'expired') and m.purge_after <= now() and m.dependents = (select k.dependents from "tidemark".jobs k where k.id = m.id), false) as ok
      from "tidemark".jobs m
     where m.root_id = any(array(select id from candidates))
       for update of m skip locked
  ),
  seen as materialized (
    select m.root_id, count(*) as n from "tidemark".jobs m
     where m.root_id = any(array(select id from candidates)) group by m.root_id
  ),
  kept as (
    select root_id, count(*) filter (where ok) as n from members group by root_id
  ),
  trees as (
    select c.id from candidates c
      left join seen on seen.root_id = c.id
      left join kept on kept.root_id = c.id
     where coalesce(seen.n, 0) = coalesce(kept.n, 0)
  ),
  targets as (
    select id from trees
    union all
    select m.id from members m join trees t on t.id = m.root_id
  )
  select (select count(*) from scanned)::int as scanned, last.after, last.after_id,
         coalesce((select array_agg(id::text) from targets), '{}') as ids
  
  from (select max(key) as key from scanned) top
  cross join lateral (
    select to_char(top.key at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as after,
           (select max(c.id) from scanned c where c.key = top.key)::text as after_id
  ) last

-- retention-sweep.ts#previewDueTrees
with 
  tops as (
  select r.id from "tidemark".jobs r
   where r.purge_after <= now() and r.root_id is null and r.status in ('completed', 'failed', 'cancelled', 'expired')
     and not (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = r.id and u.expires_at > now() limit 1) is not null)) and not (((select min(tree_id) from "tidemark".retention_hold_jobs) is not null) and ((select true from "tidemark".retention_hold_jobs hl where hl.tree_id = r.id limit 1) is not null)) and not (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = r.queue limit 1) is not null)) and not (r.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = r.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))
     and not exists (select 1 from "tidemark".jobs m where m.root_id = r.id and (m.status not in ('completed', 'failed', 'cancelled', 'expired') or m.purge_after is null or m.purge_after > now() or (coalesce((select max(expires_at) from "tidemark".unique_locks) > now(), false) and ((select true from "tidemark".unique_locks u where u.job_id = m.id and u.expires_at > now() limit 1) is not null))
    or (((select min(queue) from "tidemark".retention_holds where queue is not null) is not null) and ((select true from "tidemark".retention_holds hq where hq.queue = m.queue limit 1) is not null)) or (m.dependents > 0 and ((select true from "tidemark".job_dependencies nd join "tidemark".jobs nj on nj.id = nd.job_id
      where nd.dependency_id = m.id and nj.status in ('pending', 'active', 'retry', 'waiting', 'paused') limit 1) is not null))))),
  doomed as (
    select id from tops
    union all
    select m.id from "tidemark".jobs m where m.root_id in (select id from tops)
  )
  select j.queue, j.status, count(*)::int as n from "tidemark".jobs j
   where j.id in (select id from doomed)
   group by j.queue, j.status order by j.queue, j.status

-- retention-sweep.ts#signalsOfJobs
select id::text as id, job_id::text as job_id, name, payload, created_at, consumed_at, consumed_by, purge_after
    from "tidemark".signals where job_id = any($1::bigint[]) order by job_id, id

-- retention-sweep.ts#vacuumSweptTables
vacuum (analyze) "tidemark".jobs, "tidemark".checkpoints, "tidemark".signals,
    "tidemark".unique_locks, "tidemark".schedule_fires, "tidemark".job_logs

-- running.ts#runningJobs
select id::text as id, queue, key, attempts, started_at, locked_by, locked_until, now() as now
    from "tidemark".jobs
   where status = 'active' and locked_until is not null
   order by started_at nulls last, id
   limit $1

-- schedules.ts#deleteSchedule
delete from "tidemark".schedules where name = $1 returning name

-- schedules.ts#listSchedules
select name, cron, timezone, queue, data, options, last_fire_at, fired_at, paused, now() as now
    from "tidemark".schedules where $1::text is null or name = $1 order by name

-- schedules.ts#recentScheduleFires
select s.name as schedule_name, f.fire_at, f.job_id::text as job_id, j.status
    from "tidemark".schedules s
   cross join lateral (
     select fire_at, job_id from "tidemark".schedule_fires
      where schedule_name = s.name
      order by fire_at desc
      limit $1
   ) f
    left join "tidemark".jobs j on j.id = f.job_id
   order by s.name, f.fire_at desc

-- schedules.ts#recordScheduleFire
-- A manual fire (triggerSchedule) is at the database's own time, past any fire recorded, and
  -- leaves the count of slots alone: the slot due next still fires.
  with due as (
    select name,
           case when $1::boolean
                then greatest(now(), fired_at + interval '1 microsecond')
                else $2::timestamptz end as at
      from "tidemark".schedules
     where name = $3
       and ($1::boolean or ((last_fire_at is null or last_fire_at < $2::timestamptz) and not paused))
       -- A schedule whose jobs are unique waits while its job is still in flight: the slot fires once
       -- that job has finished (only the latest slot, as after downtime).
       and not exists (select 1 from jsonb_to_recordset($4::jsonb) as input(idx int, data jsonb, policy int, queue text, priority int, max_attempts int, run_at timestamptz, delay_seconds float8, expire_in_seconds float8, unique_key text, parent_id bigint, root_id bigint, parent_step text, key text, tier text, fold_key text, tags text[], trace jsonb, version text, forked_from bigint)
                         join "tidemark".jobs k on k.queue = input.queue and k.unique_key = input.unique_key
                        where k.status in ('pending', 'active', 'retry', 'waiting', 'paused'))
     for update
  ),
  fire as (
    insert into "tidemark".schedule_fires (schedule_name, fire_at, job_id)
    select name, at, nextval(pg_get_serial_sequence('"tidemark".jobs', 'id')) from due
    on conflict (schedule_name, fire_at) do nothing
    returning job_id
  ),
  inserted as (
    insert into "tidemark".jobs (id, queue, data, priority, run_at, expire_at, max_attempts, retention, unique_key,
                                parent_id, root_id, parent_step, key, tier, fold_key, tags, trace, version, forked_from)
    select fire.job_id, input.queue, coalesce(input.data, 'null'::jsonb), input.priority, due.at,
           due.at + input.expire_in_seconds * interval '1 second',
           coalesce(input.max_attempts,
  (select (q.options ->> 'maxAttempts')::int from "tidemark".queues q where q.name = input.queue), $5::int),
           coalesce($6::jsonb -> input.policy,
  (select q.options -> 'retention' from "tidemark".queues q where q.name = input.queue), $7::jsonb),
           input.unique_key, input.parent_id, input.root_id, input.parent_step, input.key, input.tier, input.fold_key, input.tags, input.trace,
           input.version, input.forked_from
      from fire cross join jsonb_to_recordset($4::jsonb) as input(idx int, data jsonb, policy int, queue text, priority int, max_attempts int, run_at timestamptz, delay_seconds float8, expire_in_seconds float8, unique_key text, parent_id bigint, root_id bigint, parent_step text, key text, tier text, fold_key text, tags text[], trace jsonb, version text, forked_from bigint)
     cross join lateral (
       select coalesce(input.run_at, now() + coalesce(input.delay_seconds, 0) * interval '1 second') as at) due
    returning id, queue, run_at
  ),
  advanced as (
    update "tidemark".schedules s
       set last_fire_at = case when $1::boolean then s.last_fire_at else due.at end,
           fired_at = due.at
      from due where s.name = due.name
    returning s.name
  ),
  nudged as (
    select count(pg_notify($8, 'j:' || queue)) as n
      from (select distinct queue from inserted where run_at <= now()) ready
  )
  select (select id::text from inserted) as id, (select count(*) from advanced) as advanced,
         (select n from nudged) as n

-- schedules.ts#setSchedulePaused
update "tidemark".schedules
     set paused = $1::boolean, updated_at = now(),
         last_fire_at = case when paused and not $1::boolean then now() else last_fire_at end
   where name = $2
  returning name

-- schedules.ts#upsertSchedule
insert into "tidemark".schedules (name, cron, timezone, queue, data, options, last_fire_at)
  values ($1, $2, $3, $4, $5::jsonb, $6::jsonb, now())
  on conflict (name) do update
     set cron = excluded.cron, timezone = excluded.timezone, queue = excluded.queue, data = excluded.data,
         options = excluded.options,
         updated_at = now(),
         -- a changed expression starts counting from now, so it never back-fires
         last_fire_at = case when "tidemark".schedules.cron is distinct from excluded.cron
                               or "tidemark".schedules.timezone is distinct from excluded.timezone
                             then now() else "tidemark".schedules.last_fire_at end
  returning name

-- stats.ts#countByQueueAndStatus
select queue, status, count(*)::int as n,
         min(started_at) as first_started, max(finished_at) as last_finished
    from "tidemark".jobs
   where $1::timestamptz is null or created_at >= $1::timestamptz
   group by queue, status
   order by queue, status

-- stats.ts#dueSplitCapped
select q.name as queue, s.status, c.seen, c.ready, c.oldest_ready_seconds
    from unnest($1::text[]) as q(name)
   cross join unnest($2::text[]) as s(status)
   cross join lateral (
     select count(*)::int as seen,
            (count(*) filter (where x.run_at <= now()))::int as ready,
            extract(epoch from (now() - min(x.run_at) filter (where x.run_at <= now())))::float8
              as oldest_ready_seconds
       from (select j.run_at from "tidemark".jobs j
              where j.queue = q.name
                and (j.status, j.id) >= (s.status, 0::bigint)
                and (j.status, j.id) < (s.status, 9223372036854775807::bigint)
              order by j.status, j.id
              limit $3) x
   ) c
   where c.seen > 0

-- sweep-history.ts#listSweeps
select id::text as id, kind, started_at, finished_at, jobs, signals, unique_locks, detail, error
    from "tidemark".sweeps
   where $1::text is null or kind = $1::text
   order by started_at desc, id desc limit $2

-- sweep-history.ts#recordSweep
with recorded as (
    insert into "tidemark".sweeps (kind, started_at, finished_at, jobs, signals, unique_locks, detail, error)
    values ($1, $2::timestamptz, now(), $3, $4, $5, $6::jsonb, $7)
    returning id
  ),
  -- the history bounds itself: only the newest $8 records of each kind stay
  trimmed as (
    delete from "tidemark".sweeps s
     where s.kind = $1
       and s.id <= (select id from "tidemark".sweeps where kind = $1 order by id desc offset $8 limit 1)
    returning s.id
  )
  select (select id::text from recorded) as id, (select count(*) from trimmed)::int as trimmed

-- test-kit.ts#countClaimableJobs
with ready_queues as materialized (
    select q.name, coalesce(s.options ? 'globalConcurrency', false) as limited
      from unnest($1::text[]) as q(name)
      left join "tidemark".queues s on s.name = q.name
     where not coalesce(s.paused, false)
  )
  select ((select count(*) from "tidemark".jobs j join ready_queues r on r.name = j.queue
            where not r.limited and j.key is null and status in ('pending', 'retry', 'waiting')
          and run_at <= now()
          and (expire_at is null or expire_at > now() or attempts > 0 or status <> 'pending'))
        + (select count(*) from "tidemark".flow_candidates(
             array(select r.name from ready_queues r where r.limited
        or exists (select 1 from "tidemark".jobs k
                    where k.queue = r.name and k.key is not null and k.status in ('pending', 'retry', 'waiting'))),
             100000)))::int as n

-- test-kit.ts#jobsOfQueue
select id, queue, data, output, error, priority, attempts, max_attempts, parent_id,
  root_id, retention, key, tier, tags, progress, metadata, trace, status, run_at, expire_at, created_at, started_at, finished_at,
  parent_step, locked_by, locked_until, unique_key, wait, purge_after, log_dropped, version from "tidemark".jobs
   where queue = $1 and ($2::text is null or status = $2::text)
   order by id

-- test-kit.ts#setTestClock
insert into "tidemark".tidemark_test_clock (id, at) values (1, $1)
  on conflict (id) do update set at = excluded.at

-- tokens.ts#deleteExpiredTokens(1000)
with gate as materialized (
    select c.paused, c.reason, c.paused_at,
           c.version = (select s.version from "tidemark".retention_control s where s.id = 1) as fresh
      from "tidemark".retention_control c
     where c.id = 1
       for share of c
  ),
  doomed as (
    select id from "tidemark".job_tokens
     where state in ('pending', 'expired') and expires_at <= now() and coalesce((select not g.paused and g.fresh from gate g), false)
     order by expires_at
     limit 1000
       for update skip locked
  ),
  deleted as (
    delete from "tidemark".job_tokens t where t.id = any(array(select id from doomed)) returning t.id
  )
  select (select count(*) from deleted)::int as n, (select g.paused from gate g) as paused,
         (select g.fresh from gate g) as fresh,
         (select g.reason from gate g) as paused_reason,
         (select g.paused_at from gate g) as paused_at

-- tokens.ts#expireToken
update "tidemark".job_tokens set state = 'expired', settled_at = now()
   where id = $1::uuid and state = 'pending' and expires_at <= now()
  returning state

-- tokens.ts#findTokenByName
select id::text as id, job_id::text as job_id, name, state, data, schema, expires_at,
       expires_at <= now() as expired,
       (select j.status from "tidemark".jobs j where j.id = job_tokens.job_id) as job_status from "tidemark".job_tokens where job_id = $1::bigint and name = $2

-- tokens.ts#insertToken
insert into "tidemark".job_tokens (id, job_id, name, expires_at, schema)
  select $1::uuid, j.id, $2, now() + $3::float8 * interval '1 second', $4::jsonb
    from "tidemark".jobs j
   where j.id = $5::bigint and j.lock_token = $6::uuid and case when j.status = 'active' then true end
  on conflict (job_id, name) do nothing
  returning id::text as id, expires_at

-- tokens.ts#listJobTokens
select id::text as id, name, state, created_at, expires_at, settled_at
    from "tidemark".job_tokens
   where job_id = $1::bigint
   order by created_at, name

-- tokens.ts#lockToken
select id::text as id, job_id::text as job_id, name, state, data, schema, expires_at,
       expires_at <= now() as expired,
       (select j.status from "tidemark".jobs j where j.id = job_tokens.job_id) as job_status from "tidemark".job_tokens where id = $1::uuid for update

-- tokens.ts#readToken
select id::text as id, job_id::text as job_id, name, state, data, schema, expires_at,
       expires_at <= now() as expired,
       (select j.status from "tidemark".jobs j where j.id = job_tokens.job_id) as job_status from "tidemark".job_tokens where id = $1::uuid

-- tokens.ts#settleToken
with settled as (
    update "tidemark".job_tokens set state = $1, settled_at = now(), data = $2::jsonb
     where id = $3::uuid and state = 'pending'
    returning job_id
  ),
  woken as (
    update "tidemark".jobs j
       set run_at = case when j.wait ->> 'kind' = 'token' and j.wait ->> 'tokenId' = $3::uuid::text
                          and (j.status = 'waiting' or j.status = 'paused' and j.paused_from = 'waiting')
                         then now() else j.run_at end,
           wait = case when j.status = 'active' then coalesce(j.wait, '{}'::jsonb) || '{"poke": true}'::jsonb
                       else j.wait end
     where j.id = (select job_id from settled) and j.status in ('waiting', 'active', 'paused')
    returning j.queue, j.status, j.run_at
  ),
  nudged as (
    select count(pg_notify($4, 'j:' || queue)) as n from woken where status = 'waiting' and run_at <= now()
  )
  select (select status from woken) as job_status from settled cross join (select count(*) from nudged) n

-- worker.ts#claimJobs
with ready_queues as materialized (
    select q.name, coalesce(s.options ? 'globalConcurrency', false) as limited
      from unnest($1::text[]) as q(name)
      left join "tidemark".queues s on s.name = q.name
     where not coalesce(s.paused, false)
  ),
  flow_queues as materialized (select r.name from ready_queues r where r.limited
        or exists (select 1 from "tidemark".jobs k
                    where k.queue = r.name and k.key is not null and k.status in ('pending', 'retry', 'waiting'))),
  next as (
    select c.id, c.score from (
      select p.id, p.priority, p.run_at, 0::float8 as score
        from ready_queues q
       cross join lateral (
         select id, priority, run_at from "tidemark".jobs
          where queue = q.name
            and key is null
            and status in ('pending', 'retry', 'waiting')
          and run_at <= now()
          and (expire_at is null or expire_at > now() or attempts > 0 or status <> 'pending')
          order by priority desc, run_at, id
          limit $2
          for update skip locked
       ) p
       where not q.limited
      union all
      select f.job_id, f.job_priority, f.job_run_at, f.job_score
        from (select array_agg(name) as names from flow_queues having count(*) > 0) flow
       cross join lateral "tidemark".flow_candidates(flow.names, $2::int) f
    ) c
     order by c.score, c.priority desc, c.run_at, c.id
     limit $2
  )
  update "tidemark".jobs j
     set status = 'active',
         attempts = j.attempts + case when j.status = 'waiting' then 0 else 1 end,
         lock_token = gen_random_uuid(),
         locked_by = $3,
         locked_until = now() + $4 * interval '1 second',
         started_at = now(),
         wait = case when j.status = 'waiting' then j.wait - 'poke' end
    from (select set_config('synchronous_commit', "tidemark".claim_commit(), true)) as async_commit,
         -- the fair scores by job id, read once: none in a claim without fair keys
         (select jsonb_object_agg(id, score) as scores from next where score <> 0) as fair,
         -- the lead row, which carries what the rows share (no row when nothing is claimed)
         (select l.id, l.retention from "tidemark".jobs l where l.id = (select min(id) from next)) as lead
   where j.id = any(array(select id from next))
  returning j.id, j.queue, j.data, j.priority, j.attempts, j.max_attempts,
            case when j.id = lead.id or j.retention <> lead.retention then j.retention::text end as retention,
            j.lock_token, case when num_nonnulls(j.output, j.error, j.parent_id, j.root_id, j.key, j.tier, j.tags, j.progress, j.metadata, j.trace, j.wait, j.held_by) = 0 then null
       else json_build_object('output', j.output, 'error', j.error, 'parent_id', j.parent_id::text, 'root_id', j.root_id::text, 'key', j.key, 'tier', j.tier, 'tags', j.tags, 'progress', j.progress, 'metadata', j.metadata, 'trace', j.trace, 'wait', j.wait, 'held_by', j.held_by) end as rare, date_part('epoch', j.run_at) * 1000 as run_at, date_part('epoch', j.expire_at) * 1000 as expire_at,
            date_part('epoch', j.created_at) * 1000 as created_at,
            case when j.id = lead.id then date_part('epoch', j.started_at) * 1000 end as started_at,
            -- a claim without fair keys (most) looks up no row's score
            case when fair.scores is null then 0
                 else coalesce((fair.scores ->> j.id::text)::float8, 0) end as score

-- worker.ts#extendLocks
update "tidemark".jobs
     set locked_until = now() + $1 * interval '1 second'
    from (select set_config('synchronous_commit', "tidemark".claim_commit(), true)) as async_commit
   where id = any($2::bigint[]) and lock_token = any($3::uuid[]) and case when status = 'active' then true end
  returning lock_token::text as token

-- worker.ts#releaseCancelled
update "tidemark".jobs
     set lock_token = null, locked_by = null, locked_until = null
   where id = $1::bigint and lock_token = $2::uuid and status = 'cancelled'

-- worker.ts#releaseJobs
update "tidemark".jobs
     set status = case when wait is not null and wait ? 'kind' then 'waiting' when attempts > 1 then 'retry' else 'pending' end,
         attempts = case when wait is not null and wait ? 'kind' then attempts else greatest(attempts - 1, 0) end,
         run_at = now(),
         lock_token = null, locked_by = null, locked_until = null
   where id = any($1::bigint[]) and lock_token = any($2::uuid[]) and case when status = 'active' then true end
  returning id::text as id, queue

-- worker.ts#suspendJob
with parked as (
    update "tidemark".jobs j
       set status = 'waiting',
           run_at = case when j.wait ? 'poke' then now() else coalesce($1::timestamptz, 'infinity') end,
           wait = $2::jsonb,
           lock_token = null, locked_by = null, locked_until = null
     where j.id = $3::bigint and j.lock_token = $4::uuid and case when j.status = 'active' then true end
    returning j.id, j.attempts
  ),
  history_in as (select p.id as job_id, p.attempts as attempt, $5::json as events,
           jsonb_build_object('outcome', 'waiting', 'wait', $2::jsonb ->> 'kind') as note from parked p),
  history_events as (
    select h.job_id, h.attempt, h.note, e.value as event,
           coalesce((select max(x.seq) from "tidemark".run_history x where x.job_id = h.job_id), 0) + e.ord as seq,
           -- a run keeps at most HISTORY_CAP events in memory and counts the rest in a last one
           case when e.value ->> 'kind' = 'dropped' then (e.value -> 'detail' ->> 'count')::int else 1 end as weight
      from history_in h
     cross join lateral json_array_elements(h.events) with ordinality as e(value, ord)
     where h.events is not null
  ),
  history_written as (
    insert into "tidemark".run_history as h (job_id, seq, attempt, kind, at, ended_at, worker, detail)
    select job_id, seq::int, attempt, event ->> 'kind', (event ->> 'at')::timestamptz,
           case when event ->> 'kind' = 'run' then now() else (event ->> 'endedAt')::timestamptz end,
           event ->> 'worker',
           case when event ->> 'kind' = 'run' then coalesce((event -> 'detail')::jsonb, '{}') || note
                else (event -> 'detail')::jsonb end
      from history_events where seq <= 1000 and event ->> 'kind' <> 'dropped'
    union all
    select job_id, 1001, max(attempt), 'dropped', now(), null, null, jsonb_build_object('count', sum(weight))
      from history_events where seq > 1000 or event ->> 'kind' = 'dropped'
     group by job_id
    on conflict (job_id, seq) do update
       set at = excluded.at, attempt = excluded.attempt,
           detail = jsonb_build_object('count', (h.detail ->> 'count')::int + (excluded.detail ->> 'count')::int)
  )
  select id::text as id from parked

-- workers.ts#beatWorker
update "tidemark".workers set heartbeat_at = now(), running = $1
   where id = $2 and instance = $3 returning id

-- workers.ts#deleteGoneWorkers
with gone as (
    select id from "tidemark".workers
     where heartbeat_at < now() - $1 * interval '1 second'
       and heartbeat_at < now() - (3 * heartbeat_seconds + $1) * interval '1 second'
     order by heartbeat_at
     limit $2
     for update skip locked
  )
  delete from "tidemark".workers w using gone where w.id = gone.id
  returning w.id

-- workers.ts#listWorkers
select id, host, pid, queues, concurrency, settings, heartbeat_seconds, started_at, heartbeat_at, running,
         heartbeat_at < now() - 3 * heartbeat_seconds * interval '1 second' as gone
    from "tidemark".workers
   order by gone, host, started_at, id
   limit $1

-- workers.ts#readWorkerHolder
select instance, host, pid,
         extract(epoch from now() - heartbeat_at)::float8 as beat_seconds_ago,
         (3 * heartbeat_seconds)::float8 as gone_after_seconds
    from "tidemark".workers where id = $1

-- workers.ts#registerWorker
insert into "tidemark".workers as w
         (id, instance, host, pid, queues, concurrency, settings, heartbeat_seconds, started_at, heartbeat_at, running)
  values ($1, $2, $3, $4, $5::text[], $6, $7::jsonb, $8,
          coalesce($9::timestamptz, now()), now(), 0)
  on conflict (id) do update
     set instance = excluded.instance, host = excluded.host, pid = excluded.pid, queues = excluded.queues,
         concurrency = excluded.concurrency, settings = excluded.settings,
         heartbeat_seconds = excluded.heartbeat_seconds, started_at = excluded.started_at,
         heartbeat_at = now(), running = 0
   where w.instance = excluded.instance
      or w.instance = $10::text
      or w.heartbeat_at < now() - 3 * w.heartbeat_seconds * interval '1 second'
  returning started_at

-- workers.ts#summarizeWorkers
with w as (
    select settings -> 'sweep' as sweep,
           heartbeat_at < now() - 3 * heartbeat_seconds * interval '1 second' as gone
      from "tidemark".workers
  )
  select count(*) filter (where not gone)::int as live,
         count(*) filter (where gone)::int as gone,
         count(*) filter (where not gone and jsonb_typeof(sweep) = 'object')::int as sweepers,
         coalesce(array_agg(distinct (sweep ->> 'intervalSeconds')::float8)
                    filter (where not gone and jsonb_typeof(sweep) = 'object'), '{}') as intervals,
         coalesce(array_agg(distinct (sweep ->> 'batchSize')::int)
                    filter (where not gone and jsonb_typeof(sweep) = 'object'), '{}') as batch_sizes
    from w

-- workers.ts#trimGoneWorkers
with gone as (
    select id from "tidemark".workers
     where heartbeat_at < now() - 3 * heartbeat_seconds * interval '1 second'
     order by heartbeat_at desc, id desc
     offset $1
     limit $2
     for update skip locked
  )
  delete from "tidemark".workers w using gone where w.id = gone.id
  returning w.id

-- workers.ts#unregisterWorker
delete from "tidemark".workers where id = $1 and instance = $2 returning id

-- workflow-view.ts#workflowView
select j.status, j.paused_from, j.wait, j.run_at,
         q.options -> 'signals' as declared_signals,
         c.id::text as child_id, c.queue as child_queue, c.status as child_status,
         cp.output as wait_checkpoint,
         (select count(*)::int from "tidemark".signals s
           where s.job_id = j.id and s.consumed_at is null
             and s.name = any(array(select jsonb_array_elements_text(
                   case when jsonb_typeof(j.wait -> 'names') = 'array' then j.wait -> 'names' else '[]'::jsonb end)))
         ) as received
    from "tidemark".jobs j
    left join "tidemark".queues q on q.name = j.queue
    left join "tidemark".jobs c
      on c.id = case when j.wait ->> 'kind' = 'child' then (j.wait ->> 'childId')::bigint end
    left join "tidemark".checkpoints cp
      on cp.job_id = j.id and cp.name = coalesce(j.wait ->> 'key', j.wait ->> 'name')
   where j.id = $1::bigint

-- workflow.ts#consumeSignals
with owner as (
    select id, retention from "tidemark".jobs
     where id = $1::bigint and lock_token = $2::uuid and case when status = 'active' then true end
       for share
  ),
  picked as (
    select s.id from "tidemark".signals s join owner on owner.id = s.job_id
     where s.name = any($3::text[]) and s.consumed_at is null
     order by s.id
     limit $4
     for update of s
  ),
  enough as (select count(*) >= $4 as ok from picked),
  consumed as (
    update "tidemark".signals s
       set consumed_at = now(), consumed_by = $5,
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
    insert into "tidemark".checkpoints (job_id, name, kind, output)
    select $1::bigint, $5, 'wait',
           jsonb_build_object('state', 'done', 'names', to_jsonb($3::text[]), 'signals', result.got)
      from result, enough
     where enough.ok
    on conflict (job_id, name) do update set output = excluded.output
    returning output
  )
  select (select output from saved) as output

-- workflow.ts#countPendingSignals
select count(*) filter (where name = $1)::int as pending,
         count(*) filter (where name = any($2::text[]))::int as pending_for_wait,
         exists (select 1 from "tidemark".checkpoints c
                  where c.job_id = $3::bigint and c.kind = 'wait' and c.output ->> 'state' = 'done'
                    and c.output -> 'names' ? $1) as wait_done
    from "tidemark".signals
   where job_id = $3::bigint and (name = $1 or name = any($2::text[])) and consumed_at is null

-- workflow.ts#findChild
select id::text as id, queue, status, output, error from "tidemark".jobs
   where parent_id = $1::bigint and parent_step = $2

-- workflow.ts#insertChild
with inserted as (
    insert into "tidemark".jobs (queue, data, priority, run_at, expire_at, max_attempts, retention, unique_key,
                                parent_id, root_id, parent_step, key, tier, fold_key, tags, trace, version, forked_from)
    select input.queue, coalesce(input.data, 'null'::jsonb), input.priority, due.at,
           due.at + input.expire_in_seconds * interval '1 second',
           coalesce(input.max_attempts,
  (select (q.options ->> 'maxAttempts')::int from "tidemark".queues q where q.name = input.queue), $1::int),
           coalesce($2::jsonb -> input.policy,
  (select q.options -> 'retention' from "tidemark".queues q where q.name = input.queue), $3::jsonb),
           input.unique_key, input.parent_id, input.root_id, input.parent_step, input.key, input.tier, input.fold_key, input.tags, input.trace,
           input.version, input.forked_from
      from jsonb_to_recordset($4::jsonb) as input(idx int, data jsonb, policy int, queue text, priority int, max_attempts int, run_at timestamptz, delay_seconds float8, expire_in_seconds float8, unique_key text, parent_id bigint, root_id bigint, parent_step text, key text, tier text, fold_key text, tags text[], trace jsonb, version text, forked_from bigint)
     cross join lateral (
       select coalesce(input.run_at, now() + coalesce(input.delay_seconds, 0) * interval '1 second') as at) due
     where exists (select 1 from "tidemark".jobs p
                    where p.id = input.parent_id and p.lock_token = $5::uuid and case when p.status = 'active' then true end)
    on conflict (parent_id, parent_step) where parent_step is not null do nothing
    returning id, queue, run_at
  ),
  nudged as (
    select count(pg_notify($6, 'j:' || queue)) as n
      from (select distinct queue from inserted where run_at <= now()) ready
  )
  select id::text as id from inserted cross join nudged

-- workflow.ts#insertSignal
with stored as (
    insert into "tidemark".signals (job_id, name, payload) values ($1::bigint, $2, $3::jsonb)
    returning id
  ),
  woken as (
    update "tidemark".jobs j
       set run_at = case when coalesce(j.wait -> 'names', '[]') ? $2
                          and (j.status = 'waiting' or j.status = 'paused' and j.paused_from = 'waiting')
                         then now() else j.run_at end,
           wait = case when j.status = 'active' then coalesce(j.wait, '{}'::jsonb) || '{"poke": true}'::jsonb
                       else j.wait end
     where j.id = $1::bigint and j.status in ('waiting', 'active', 'paused')
    returning j.queue, j.status, j.run_at
  ),
  nudged as (
    select count(pg_notify($4, 'j:' || queue)) as n from woken where status = 'waiting' and run_at <= now()
  )
  select stored.id::text as id from stored cross join (select count(*) from nudged) n

-- workflow.ts#listCheckpoints
select name, kind, output, created_at, seq from "tidemark".checkpoints where job_id = $1::bigint order by created_at, seq, name

-- workflow.ts#listSignals
select id::text as id, name, payload, created_at, consumed_at, consumed_by, purge_after
    from "tidemark".signals where job_id = $1::bigint order by signals.id

-- workflow.ts#lockJobForSignal
select j.id, j.queue, j.status, j.paused_from, j.wait, q.options -> 'signals' as signals
    from "tidemark".jobs j left join "tidemark".queues q on q.name = j.queue
   where j.id = $1::bigint
   for update of j

-- workflow.ts#saveCheckpoint
insert into "tidemark".checkpoints as c (job_id, name, kind, output, seq)
  select $1::bigint, $2, $3, $4::jsonb, $5::int
   where exists (select 1 from "tidemark".jobs where id = $1::bigint and lock_token = $6::uuid and case when status = 'active' then true end)
  on conflict (job_id, name) do update set output = excluded.output, kind = excluded.kind,
     seq = coalesce(c.seq, excluded.seq)
  returning name
