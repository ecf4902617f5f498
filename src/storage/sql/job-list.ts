import { defineQuery } from './define-query.js';
import { JOB_FILTER, type JobFilterParams, PAIRS_WALK } from './job-filter.js';

// The dashboard's job list: keyset pages by id, both ways, with filters; and the probes that
// turn a time range into an id range.

/** A row of the job list. */
export interface JobListRow {
  id: string;
  queue: string;
  status: string;
  attempts: number;
  max_attempts: number;
  priority: number;
  created_at: Date;
  run_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  parent_id: string | null;
  data_preview: string;
  error_message: string | null;
}

/** The ids a page may hold, @floor ≤ id < @before, and the filter that narrows it. */
type ListWindow = JobFilterParams & {
  before: string;
  floor: string;
  limit: number;
};

type ListByQueueStatus = ListWindow & { queues: string[]; statuses: string[] };

const LIST_COLUMNS = `j.id::text as id, j.queue, j.status, j.attempts, j.max_attempts, j.priority,
  j.created_at, j.run_at, j.started_at, j.finished_at, j.parent_id::text as parent_id,
  left(j.data::text, 160) as data_preview, j.error ->> 'message' as error_message`;

/** `desc` walks from @before down (older pages), `asc` from @floor up (newer pages). */
type Walk = 'desc' | 'asc';

const listAll = (walk: Walk) => /* sql */ `
  select ${LIST_COLUMNS}
    from /*schema*/jobs j
   where j.id < @before::bigint and j.id >= @floor::bigint
     and ${JOB_FILTER}
   order by j.id ${walk}
   limit @limit`;

/**
 * One page of jobs with no queue or status filter, newest first: a walk down the primary
 * key between @floor and @before. The filter (JOB_FILTER) only narrows what the walk returns.
 */
export const listJobsAll = defineQuery<ListWindow, JobListRow>('dashListJobsAll', listAll('desc'));

/** The same walk upward from @floor, oldest first: the page of newer jobs ("Newer"). */
export const listJobsAllNewer = defineQuery<ListWindow, JobListRow>('dashListJobsAllNewer', listAll('asc'));

const listByQueueStatus = (walk: Walk) => PAIRS_WALK(LIST_COLUMNS, walk, '@before');

/**
 * One page of jobs of the given queues and statuses, newest first: PAIRS_WALK backward from
 * @before, each pair's walk stopping after @limit rows.
 */
export const listJobsByQueueStatus = defineQuery<ListByQueueStatus, JobListRow>(
  'dashListJobsByQueueStatus',
  listByQueueStatus('desc'),
);

/** The same walks upward from @floor, oldest first: the page of newer jobs ("Newer"). */
export const listJobsByQueueStatusNewer = defineQuery<ListByQueueStatus, JobListRow>(
  'dashListJobsByQueueStatusNewer',
  listByQueueStatus('asc'),
);

/** The lowest and highest job ids (two index probes; ordered by the bigint, not its text). */
export const jobIdBounds = defineQuery<Record<string, never>, { lo: string | null; hi: string | null }>(
  'dashJobIdBounds',
  /* sql */ `
  select (select j.id::text from /*schema*/jobs j order by j.id limit 1) as lo,
         (select j.id::text from /*schema*/jobs j order by j.id desc limit 1) as hi`,
);

/** The first job at or after an id, with its creation time: one probe, for time-range searches. */
export const jobAtOrAfter = defineQuery<{ id: string }, { id: string; created_at: Date }>(
  'dashJobAtOrAfter',
  /* sql */ `
  select j.id::text as id, j.created_at from /*schema*/jobs j where j.id >= @id::bigint order by j.id limit 1`,
);
