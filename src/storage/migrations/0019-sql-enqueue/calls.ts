/** Migration 19's two public functions, add_jobs and add_job. */
export const CALLS = /* sql */ `
create function /*schema*/add_jobs(jobs jsonb) returns table (id bigint, deduplicated boolean)
language plpgsql as $$
declare
  n int;
  resolved jsonb[];
  ids bigint[];
  deduplicated_ids boolean[];
  ready text[] := '{}';
  written record;
  place record;
  named text[];
  present text[];
  missing text;
begin
  if jsonb_typeof(jobs) is distinct from 'array' then
    perform /*schema*/add_job_refuse('jobs', 'an array of jobs', jobs);
  end if;
  n := jsonb_array_length(jobs);
  -- Every job checked, and its queue read, before the first is written.
  for i in 0 .. n - 1 loop
    resolved[i + 1] := /*schema*/add_job_resolve(jobs -> i, case when n = 1 then '' else format('jobs[%s].', i) end);
  end loop;
  -- The dependencies named, locked in id order and counted on (sql/dependencies.ts): one
  -- finishing meanwhile either finished before and is read finished, or waits for this commit.
  select array_agg(distinct d) into named
    from unnest(resolved) u(r), jsonb_array_elements_text(u.r -> 'depends_on') d;
  if named is not null then
    with locked as (
      select j.id from /*schema*/jobs j where j.id = any (named::bigint[]) order by j.id for no key update
    ),
    counted as (
      update /*schema*/jobs j set dependents = j.dependents + 1 from locked l where j.id = l.id returning j.id
    )
    select array_agg(counted.id::text) into present from counted;
    for place in select u.r from unnest(resolved) u(r) where u.r ? 'depends_on' loop
      select d into missing from jsonb_array_elements_text(place.r -> 'depends_on') d
       where not (d = any (coalesce(present, '{}'))) limit 1;
      if missing is not null then
        perform /*schema*/add_job_refuse(place.r ->> 'depends_field',
          format('the ids of jobs that exist (job %s does not)', missing), to_jsonb(missing));
      end if;
    end loop;
  end if;
  -- Folds first, then time-windowed locks, each in the order of its key, so that two calls in
  -- concurrent transactions never wait on each other's keys in opposite orders.
  for place in
    select u.r, u.n from unnest(resolved) with ordinality u(r, n)
     order by case when u.r ? 'fold' then 0 when u.r ? 'lock' then 1 else 2 end,
              case when u.r ? 'fold' then (u.r ->> 'queue') || chr(31) || (u.r ->> 'fold_key')
                   else u.r -> 'lock' ->> 'scope' end collate "C",
              u.n
  loop
    select * into written from /*schema*/add_job_write(place.r);
    ids[place.n] := written.id;
    deduplicated_ids[place.n] := written.deduplicated;
    if not written.deduplicated and not ((place.r ->> 'queue') = any (ready)) then
      ready := ready || (place.r ->> 'queue');
    end if;
  end loop;
  -- The dependents just added wait for their dependencies, or settle at once (sql/dependencies.ts).
  if named is not null then
    with edge as (
      select u.n as job_n, d.id as dependency_id, d.queue, d.status
        from unnest(resolved) with ordinality u(r, n)
        cross join jsonb_array_elements_text(u.r -> 'depends_on') t(dependency)
        join /*schema*/jobs d on d.id = t.dependency::bigint
       where u.r ? 'depends_on' and not deduplicated_ids[u.n]
    ),
    dependent as (
      select ids[u.n] as job_id, u.n as job_n, u.r ->> 'on_failure' as on_failure
        from unnest(resolved) with ordinality u(r, n)
       where u.r ? 'depends_on' and not deduplicated_ids[u.n]
    ),
    stored as (
      insert into /*schema*/job_dependencies (job_id, dependency_id, settled)
      select ids[edge.job_n], edge.dependency_id, edge.status in ('completed', 'failed', 'cancelled', 'expired') from edge
    ),
    state as (
      select edge.job_n,
             count(*) filter (where edge.status not in ('completed', 'failed', 'cancelled', 'expired'))::int as left_count
        from edge group by edge.job_n
    ),
    bad as (
      select distinct on (edge.job_n) edge.job_n, edge.dependency_id, edge.queue, edge.status from edge
       where edge.status in ('completed', 'failed', 'cancelled', 'expired') and edge.status <> 'completed'
       order by edge.job_n, edge.dependency_id
    ),
    verdict as (
      select p.job_id, p.on_failure, s.left_count, b.dependency_id as bad_id, b.queue as bad_queue,
             b.status as bad_status, b.dependency_id is not null and p.on_failure <> 'run' as refused
        from dependent p join state s on s.job_n = p.job_n left join bad b on b.job_n = p.job_n
    )
    update /*schema*/jobs j
       set dependencies_left = v.left_count,
           on_dependency_failure = v.on_failure,
           status = case when v.refused and v.on_failure = 'cancel' then 'cancelled'
                         when v.refused then 'failed'
                         when v.left_count > 0 then 'waiting' else j.status end,
           wait = case when not v.refused and v.left_count > 0
                       then jsonb_build_object('kind', 'dependencies', 'runAt', j.run_at) else j.wait end,
           run_at = case when not v.refused and v.left_count > 0 then 'infinity' else j.run_at end,
           error = case when v.refused
                        then jsonb_build_object('name', 'DependencyFailedError',
                               'message', format('dependency %s (queue %s) ended %s', v.bad_id, v.bad_queue, v.bad_status),
                               'dependency', v.bad_id::text, 'dependencyStatus', v.bad_status)
                        else j.error end,
           finished_at = case when v.refused then now() else j.finished_at end,
           purge_after = case when v.refused
                              then /*schema*/purge_time(j.retention,
                                     case when v.on_failure = 'cancel' then 'cancelled' else 'failed' end, now())
                              else j.purge_after end
      from verdict v
     where j.id = v.job_id;
  end if;
  -- Workers of a queue with work ready now are woken, at commit (sql/job-columns.ts).
  perform pg_notify('tidemark_' || (select ns.nspname from pg_class c join pg_namespace ns on ns.oid = c.relnamespace
                                    where c.oid = '/*schema*/jobs'::regclass), 'j:' || q)
     from unnest(ready) q
    where exists (select from /*schema*/jobs j where j.id = any (ids) and j.queue = q and j.run_at <= now());
  return query select u.id, u.d from unnest(ids, deduplicated_ids) with ordinality u(id, d, n) order by u.n;
end $$;

create function /*schema*/add_job(queue text, data jsonb, options jsonb default '{}')
returns table (id bigint, deduplicated boolean)
language plpgsql as $$
begin
  if jsonb_typeof(options) is distinct from 'object' then
    perform /*schema*/add_job_refuse('options', 'an object of tm.addJob''s options', options);
  end if;
  if options ? 'queue' or options ? 'data' then
    perform /*schema*/add_job_refuse(case when options ? 'queue' then 'queue' else 'data' end,
      'the queue and the data as add_job''s first two arguments, not among its options',
      coalesce(options -> 'queue', options -> 'data'));
  end if;
  return query select * from /*schema*/add_jobs(jsonb_build_array(
    options || jsonb_build_object('queue', queue, 'data', coalesce(data, 'null'::jsonb))));
end $$;
`;
