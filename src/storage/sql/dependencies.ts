import type { JobStatus } from '../../job-status.js';
import type { JobError } from '../../model/job.js';
import { defineQuery } from './define-query.js';
import { PROBE } from './held.js';
import type { IdRow } from './jobs.js';
import { FINISHED, IN_FLIGHT } from './statuses.js';

/*
 * Job dependencies (migration 16): the add's two statements, the read of a dependent's
 * dependencies, and the retention rule that keeps a dependency a dependent still needs. The
 * release of dependents is the trigger of migration 16: every path that finishes a job runs it.
 */

/**
 * Lock the dependencies an add names, in id order, and count the add on each (`dependents`):
 * a finishing dependency waits for the add's commit, so it then sees the new edges, and a
 * dependency that finished first is read finished here. The ids that exist, as text.
 */
export const lockDependencies = defineQuery<{ ids: string[] }, IdRow>(
  'lockDependencies',
  /* sql */ `
  with locked as (
    select j.id from /*schema*/jobs j where j.id = any(@ids::bigint[]) order by j.id for no key update
  )
  update /*schema*/jobs j set dependents = j.dependents + 1
    from locked l where j.id = l.id
  returning j.id::text as id`,
);

/** A dependent's stored state after attachDependencies. */
export interface AttachedRow {
  id: string;
  status: JobStatus;
  left: number;
}

/**
 * Store the edges of the dependents just inserted (their dependencies locked by
 * lockDependencies in this transaction) and set each dependent's state: `waiting` with the
 * count of dependencies not finished, or at once `failed` or `cancelled` when one already
 * ended other than completed and its policy says so, or left `pending` when none is left.
 */
export const attachDependencies = defineQuery<
  {
    /** JSON array of { job_id, dependency_id }. */
    edges: string;
    /** JSON array of { job_id, on_failure }. */
    dependents: string;
  },
  AttachedRow
>(
  'attachDependencies',
  /* sql */ `
  with edge as (
    select e.job_id, e.dependency_id, d.queue, d.status
      from json_to_recordset(@edges::json) as e(job_id bigint, dependency_id bigint)
      join /*schema*/jobs d on d.id = e.dependency_id
  ),
  dependent as (
    select * from json_to_recordset(@dependents::json) as p(job_id bigint, on_failure text)
  ),
  stored as (
    insert into /*schema*/job_dependencies (job_id, dependency_id, settled)
    select job_id, dependency_id, status in ${FINISHED} from edge
  ),
  state as (
    select job_id, count(*) filter (where status not in ${FINISHED})::int as left from edge group by job_id
  ),
  bad as (
    select distinct on (job_id) job_id, dependency_id, queue, status from edge
     where status in ${FINISHED} and status <> 'completed'
     order by job_id, dependency_id
  ),
  verdict as (
    select p.job_id, p.on_failure, s.left, b.dependency_id as bad_id, b.queue as bad_queue, b.status as bad_status,
           b.dependency_id is not null and p.on_failure <> 'run' as refused
      from dependent p join state s on s.job_id = p.job_id left join bad b on b.job_id = p.job_id
  )
  update /*schema*/jobs j
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
                            then /*schema*/purge_time(j.retention,
                                   case when v.on_failure = 'cancel' then 'cancelled' else 'failed' end, now())
                            else j.purge_after end
    from verdict v
   where j.id = v.job_id
  returning j.id::text as id, j.status, j.dependencies_left as left`,
);

/** One dependency of a dependent, as it is now (its columns null once it no longer exists). */
export interface DependencyRow {
  id: string;
  queue: string | null;
  status: JobStatus | null;
  output: unknown;
  error: JobError | null;
}

/** A dependent's dependencies, in id order (at most 1,000: the most one add may name). */
export const dependenciesOf = defineQuery<{ id: string }, DependencyRow>(
  'dependenciesOf',
  /* sql */ `
  select e.dependency_id::text as id, d.queue, d.status, d.output, d.error
    from /*schema*/job_dependencies e
    left join /*schema*/jobs d on d.id = e.dependency_id
   where e.job_id = @id::bigint
   order by e.dependency_id`,
);

/**
 * Job `m` is a dependency that a dependent in flight still needs (its outputs are read by
 * `ctx.dependencies()`): retention keeps it. Jobs that never had a dependent pay one column
 * test; the probe walks the dependency's edges only while it has some.
 */
export const NEEDED = (m: string) =>
  /* sql */ `(${m}.dependents > 0 and ${PROBE(`/*schema*/job_dependencies nd join /*schema*/jobs nj on nj.id = nd.job_id
      where nd.dependency_id = ${m}.id and nj.status in ${IN_FLIGHT}`)})`;

/**
 * Job `j`, as locked now, has had no dependent added since the statement's snapshot, which
 * NEEDED read (a probe by primary key reads the snapshot's version, the recheck of a locked
 * row the newest): a dependent added meanwhile keeps the job for a later pass.
 */
export const NO_NEW_DEPENDENTS = (j: string) =>
  /* sql */ `${j}.dependents = (select k.dependents from /*schema*/jobs k where k.id = ${j}.id)`;
