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

/** A row of the job list sorted by finishing time, with its place in that order. */
export interface FinishedListRow extends JobListRow {
  /** finished_at in whole microseconds since the epoch: the page cursor, exact where a Date is not. */
  finished_us: string;
}

/** The ids a page may hold and, after the first page, the (finished_at, id) it continues below. */
export type FinishedWindow = ListWindow & { after_us: string | null; after_id: string | null };

const listByFinished = (inQueue: boolean) => /* sql */ `
  select ${LIST_COLUMNS}, (extract(epoch from j.finished_at) * 1000000)::bigint::text as finished_us
    from /*schema*/jobs j
   where j.finished_at is not null${inQueue ? ' and j.queue = @queue::text' : ''}
     and (@after_us::bigint is null
          or (j.finished_at, j.id)
             < ('epoch'::timestamptz + @after_us::bigint * interval '1 microsecond', @after_id::bigint))
     and j.id < @before::bigint and j.id >= @floor::bigint
     and ${JOB_FILTER}
   order by j.finished_at desc, j.id desc
   limit @limit`;

/**
 * One page of finished jobs, the latest finished first, by keyset on (finished_at, id): a
 * backward walk of jobs_finished_idx (finished_at, id) that stops after @limit rows.
 */
export const listJobsByFinished = defineQuery<FinishedWindow, FinishedListRow>(
  'dashListJobsByFinished',
  listByFinished(false),
);

/**
 * The same for one queue (@queue not null): a backward walk of jobs_queue_finished_idx
 * (queue, finished_at, id) (migration 18), in the order the list reads.
 */
export const listJobsByFinishedInQueue = defineQuery<FinishedWindow, FinishedListRow>(
  'dashListJobsByFinishedInQueue',
  listByFinished(true),
);
