/**
 * The one way jobs leave the database. Every statement that deletes jobs (the sweep, the
 * archive path, the manual purge, explicit deletes) builds its deletes with `removeJobs`,
 * which deletes the jobs and, in the same statement, the rows of every table in
 * JOB_DEPENDENTS that belong to exactly the jobs it deleted. There are no foreign keys to
 * `jobs` (migration 0003): this replaces their per-row cascade triggers with one index range
 * per table per batch. test/storage/job-removal.test.ts checks, from pg_catalog, that every
 * table with a `job_id` column is listed here, and that every statement deleting jobs is
 * built with this function.
 */

/** Tables whose rows belong to one job, by their `job_id` column (each has an index led by it). */
export const JOB_DEPENDENTS = [
  'checkpoints',
  'signals',
  'unique_locks',
  'schedule_fires',
  'retention_hold_jobs',
  'job_logs',
  'run_history',
  'job_tokens',
  'job_dependencies',
] as const;

/** One delete of jobs: a CTE name, and what follows `delete from jobs j` (USING and WHERE). */
export interface JobDelete {
  name: string;
  clause: string;
}

/**
 * True when some row of `table` has its `column` in the id span of CTE `span` (lo, hi): one
 * index descent. A batch's jobs were mostly added together, so their ids are close, and a
 * batch of plain jobs has no dependent rows in its span at all; the probe per id that
 * follows is then skipped (it is most of a plain batch's dependent-row cost otherwise).
 */
export const ANY_IN_SPAN = (table: string, column: string, span: string) =>
  /* sql */ `(select exists (select 1 from /*schema*/${table} x
     where x.${column} between (select lo from ${span}) and (select hi from ${span})))`;

/**
 * CTEs that run each job delete (returning `id, queue, status`), delete the dependent rows
 * of the jobs they deleted, and gather the deleted jobs into a CTE named `removed`. Every
 * data-modifying CTE runs exactly once, on the statement's snapshot.
 */
export function removeJobs(deletes: JobDelete[]): string {
  const jobs = deletes.map(
    (d) => `${d.name} as (
    delete from /*schema*/jobs j ${d.clause}
    returning j.id, j.queue, j.status
  )`,
  );
  const removed = `removed as (${deletes.map((d) => `select id, queue, status from ${d.name}`).join(' union all ')})`;
  const span = `removed_span as materialized (select min(id) as lo, max(id) as hi from removed)`;
  const dependents = JOB_DEPENDENTS.map(
    (table) => `removed_${table} as (
    delete from /*schema*/${table} d
     where ${ANY_IN_SPAN(table, 'job_id', 'removed_span')}
       and d.job_id = any(array(select id from removed))
  )`,
  );
  return [...jobs, removed, span, ...dependents].join(',\n  ');
}
