/**
 * Jobs lose their incoming foreign keys. Every statement that deletes jobs deletes their
 * dependent rows itself, set-based, in the same statement (sql/job-removal.ts), so the
 * `ON DELETE CASCADE` triggers, which ran one query per deleted job for each referencing
 * table, are gone from every delete. Integrity is kept by construction: dependent rows are
 * written only for jobs in flight (checkpoints, signals), or together with a new job (unique
 * locks, schedule fires); children only by a running parent; and every delete removes
 * whole subtrees. Tests check each of these (test/storage/job-removal.test.ts).
 *
 * The hold links get an index on job_id, so the shared delete finds them by it too.
 */
export const name = 'set-based-removal';

export const sql = /* sql */ `
do $$
declare
  fk record;
begin
  for fk in
    select c.conrelid::regclass as tbl, c.conname
      from pg_constraint c
     where c.contype = 'f' and c.confrelid = '/*schema*/jobs'::regclass
  loop
    execute format('alter table %s drop constraint %I', fk.tbl, fk.conname);
  end loop;
end
$$;
create index retention_hold_jobs_job_idx on /*schema*/retention_hold_jobs (job_id);
`;
