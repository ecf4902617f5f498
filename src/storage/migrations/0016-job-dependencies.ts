/**
 * Job dependencies: `addJob({ dependsOn, onDependencyFailure })`.
 *
 * `job_dependencies` holds one edge per (dependent, dependency): `job_id` is the dependent,
 * so the edges leave with it through the one removal path (sql/job-removal.ts), by the primary
 * key led by `job_id`; `dependency_id` is read by the release below through its own index.
 * `settled` is set once the dependency has finished, so a dependency retried by hand and
 * finishing again is never counted twice.
 *
 * On the dependent: `dependencies_left`, the dependencies not finished yet (null for a job
 * added without `dependsOn`), and `on_dependency_failure`. On the dependency: `dependents`,
 * how many dependents were ever added to it. It is what the release trigger's WHEN reads (a
 * plain job, at 0, runs no function when it finishes), and a change of it tells a retention
 * statement that a dependent arrived after its snapshot (sql/dependencies.ts, NEEDED).
 *
 * A waiting dependent is `waiting` with `run_at` at infinity and `wait` =
 * `{ kind: 'dependencies', runAt }` (its own run time). When its last dependency finishes it
 * becomes `pending`, due at its run time or now, whichever is later (a paused one stays paused,
 * to resume as `pending`). A dependency that ends failed, cancelled or expired fails the
 * dependent (policy `fail`), cancels it (`cancel`), or counts as finished (`run`).
 *
 * The release is a trigger, as the wake of a workflow's parent is (migration 1), so that every
 * path that finishes a job releases its dependents: a worker's outcome, a cancel, the expiry
 * tick, a stalled job's last attempt. It is one statement per finishing dependency.
 */
export const name = 'job-dependencies';

export const sql = /* sql */ `
create table /*schema*/job_dependencies (
  job_id bigint not null,
  dependency_id bigint not null,
  settled boolean not null default false,
  primary key (job_id, dependency_id)
);
create index job_dependencies_dependency_idx on /*schema*/job_dependencies (dependency_id);

alter table /*schema*/jobs add column dependents integer not null default 0;
alter table /*schema*/jobs add column dependencies_left integer;
alter table /*schema*/jobs add column on_dependency_failure text
  check (on_dependency_failure in ('fail', 'cancel', 'run'));

create function /*schema*/release_dependents() returns trigger language plpgsql as $$
declare
  ok boolean := new.status = 'completed';
  ready text[];
begin
  with settled as (
    update /*schema*/job_dependencies e set settled = true
     where e.dependency_id = new.id and not e.settled
    returning e.job_id
  ),
  released as (
    update /*schema*/jobs d
       set dependencies_left = d.dependencies_left - 1,
           status = case when not ok and d.on_dependency_failure = 'fail' then 'failed'
                         when not ok and d.on_dependency_failure = 'cancel' then 'cancelled'
                         when d.dependencies_left > 1 or d.status = 'paused' then d.status
                         else 'pending' end,
           paused_from = case when not ok and d.on_dependency_failure <> 'run' then null
                              when d.dependencies_left = 1 and d.status = 'paused' then 'pending'
                              else d.paused_from end,
           run_at = case when not ok and d.on_dependency_failure <> 'run' or d.dependencies_left = 1
                         then greatest(now(), coalesce((d.wait ->> 'runAt')::timestamptz, now()))
                         else d.run_at end,
           expire_at = case when d.dependencies_left = 1 and (ok or d.on_dependency_failure = 'run')
                            then d.expire_at + (greatest(now(), coalesce((d.wait ->> 'runAt')::timestamptz, now()))
                                                - coalesce((d.wait ->> 'runAt')::timestamptz, now()))
                            else d.expire_at end,
           wait = case when not ok and d.on_dependency_failure <> 'run' or d.dependencies_left = 1 then null
                       else d.wait end,
           error = case when not ok and d.on_dependency_failure <> 'run'
                        then jsonb_build_object('name', 'DependencyFailedError',
                               'message', format('dependency %s (queue %s) ended %s', new.id, new.queue, new.status),
                               'dependency', new.id::text, 'dependencyStatus', new.status)
                        else d.error end,
           finished_at = case when not ok and d.on_dependency_failure <> 'run' then now() else d.finished_at end,
           purge_after = case when not ok and d.on_dependency_failure = 'fail'
                                then /*schema*/purge_time(d.retention, 'failed', now())
                              when not ok and d.on_dependency_failure = 'cancel'
                                then /*schema*/purge_time(d.retention, 'cancelled', now())
                              else d.purge_after end
     where d.id = any(array(select job_id from settled))
       and d.dependencies_left > 0
       and (d.status = 'waiting' or d.status = 'paused' and d.paused_from = 'waiting')
    returning d.queue, d.status, d.run_at
  )
  select array_agg(distinct queue) into ready from released where status = 'pending' and run_at <= now();
  if ready is not null then
    perform pg_notify('tidemark_' || tg_table_schema, 'j:' || q) from unnest(ready) q;
  end if;
  return null;
end
$$;
create trigger jobs_release_dependents after update of status on /*schema*/jobs
  for each row when (new.dependents > 0
    and new.status in ('completed', 'failed', 'cancelled', 'expired')
    and old.status is distinct from new.status)
  execute function /*schema*/release_dependents();
`;
