/**
 * A job's run history (`run_history`): one row per event of its runs, oldest first, never
 * overwritten. A workflow's runs write the segments they ran (start, end, worker, outcome)
 * and what happened in them (steps run and replayed, sleeps and waits parked, wakes,
 * children started, signals consumed), in the statement that writes the run's outcome. A
 * plain job writes none: its attempts are its row and its attempt log. At most 1,000 rows a
 * job; the rest are counted in one row past them (kind `dropped`). The rows leave with their
 * job through the one removal path (sql/job-removal.ts), by the primary key led by `job_id`.
 *
 * `jobs.ran_by` is the worker of a job's last run, set by the statement that finishes it (the
 * lock's `locked_by` is cleared there), so a plain job's last attempt names its worker too.
 */
export const name = 'run-history';

export const sql = /* sql */ `
create table /*schema*/run_history (
  job_id bigint not null,
  seq integer not null,
  attempt integer not null,
  kind text not null,
  at timestamptz not null,
  ended_at timestamptz,
  worker text,
  detail jsonb,
  primary key (job_id, seq)
);
alter table /*schema*/jobs add column ran_by text;
`;
