import { defineQuery } from './define-query.js';

/** A running job as the Running page shows it. */
export interface RunningJobRow {
  id: string;
  queue: string;
  key: string | null;
  attempts: number;
  started_at: Date | null;
  locked_by: string | null;
  locked_until: Date | null;
  now: Date;
}

/**
 * The jobs running now, longest running first: the active jobs, read through the partial index
 * on them (jobs_stalled_idx), which holds no more rows than the cluster runs at once.
 */
export const runningJobs = defineQuery<{ limit: number }, RunningJobRow>(
  'runningJobs',
  /* sql */ `
  select id::text as id, queue, key, attempts, started_at, locked_by, locked_until, now() as now
    from /*schema*/jobs
   where status = 'active' and locked_until is not null
   order by started_at nulls last, id
   limit @limit`,
);
