import { defineQuery } from './define-query.js';
import { JOB_COLUMNS, type JobRow } from './job-columns.js';
import { JOB_FILTER, type JobFilterParams, PAIRS_WALK } from './job-filter.js';

/*
 * `tm.listJobs` and `tm.countJobs`: keyset pages of whole jobs, and bounded counts, each an
 * index walk chosen by the filter's most selective field. The filter (JOB_FILTER) decides what
 * matches; the walk only decides the order rows are read in and where reading stops.
 *
 * - key: jobs_key_idx (key, id), in id order;
 * - tags: jobs_tags_idx (GIN), its matches sorted by id;
 * - queue or status: jobs_queue_status_idx (queue, status, id), one walk per pair, merged;
 * - otherwise the primary key.
 */

/** Which index a walk reads. */
export type QueryPath = 'key' | 'tags' | 'pairs' | 'all';

/** Which way a page walks the ids. */
export type QueryOrder = 'desc' | 'asc';

/** The ids a walk may read (@floor ≤ id < @ceiling), its filter and its length. */
export type QueryWindow = JobFilterParams & {
  floor: string;
  ceiling: string;
  limit: number;
  /** The (queue, status) pairs a `pairs` walk reads; empty for the other walks. */
  queues: string[];
  statuses: string[];
};

/** What narrows each walk before the filter, on the row `j`. */
const WALK: Record<Exclude<QueryPath, 'pairs'>, string> = {
  key: 'j.key = @key::text',
  tags: 'j.tags @> @tags::text[]',
  all: 'true',
};

const IN_WINDOW = 'j.id >= @floor::bigint and j.id < @ceiling::bigint';

const walkQuery = (path: Exclude<QueryPath, 'pairs'>, order: QueryOrder) => /* sql */ `
  select ${JOB_COLUMNS}
    from /*schema*/jobs j
   where ${WALK[path]} and ${IN_WINDOW}
     and ${JOB_FILTER}
   order by j.id ${order}
   limit @limit`;

const pageQuery = (path: QueryPath, order: QueryOrder) =>
  defineQuery<QueryWindow, JobRow>(
    `queryJobs_${path}_${order}`,
    path === 'pairs' ? PAIRS_WALK(JOB_COLUMNS, order, '@ceiling') : walkQuery(path, order),
  );

/** One page of whole jobs, per walk and order. */
export const QUERY_PAGES = {
  key: { desc: pageQuery('key', 'desc'), asc: pageQuery('key', 'asc') },
  tags: { desc: pageQuery('tags', 'desc'), asc: pageQuery('tags', 'asc') },
  pairs: { desc: pageQuery('pairs', 'desc'), asc: pageQuery('pairs', 'asc') },
  all: { desc: pageQuery('all', 'desc'), asc: pageQuery('all', 'asc') },
} as const;

const countQuery = (path: QueryPath) =>
  defineQuery<QueryWindow, { n: number }>(
    `countJobs_${path}`,
    path === 'pairs'
      ? /* sql */ `
  select count(*)::int as n from (
    select 1 from unnest(@queues::text[]) as q(name)
     cross join unnest(@statuses::text[]) as s(status)
     cross join lateral (
       select 1 from /*schema*/jobs j
        where j.queue = q.name
          and (j.status, j.id) >= (s.status, @floor::bigint)
          and (j.status, j.id) < (s.status, @ceiling::bigint)
          and ${JOB_FILTER}
        order by j.status, j.id
        limit @limit
     ) one
     limit @limit
  ) counted`
      : /* sql */ `
  select count(*)::int as n from (
    select 1 from /*schema*/jobs j
     where ${WALK[path]} and ${IN_WINDOW} and ${JOB_FILTER}
     ${path === 'all' ? 'order by j.id' : ''}
     limit @limit
  ) counted`,
  );

/**
 * The jobs matching, counted up to @limit, per walk. Without a field of its own the count walks
 * the primary key too: a sequential scan stops as early when most rows match, but reads the
 * whole table when few do.
 */
export const QUERY_COUNTS = {
  key: countQuery('key'),
  tags: countQuery('tags'),
  pairs: countQuery('pairs'),
  all: countQuery('all'),
} as const;
