/**
 * The job filter, one implementation for the job list and the bulk actions: what a filter
 * means (queue, status, creation time, text in the data or in the error's message or name, tags,
 * key, version)
 * is written once here, as SQL conditions on the row `j` and the function that gives them
 * their parameters. The list and the bulk walks choose rows by index (queue, status, id);
 * these conditions then decide which rows match, and the bulk actions check them again on
 * the locked row in the statement that writes it.
 */

/** What a filter asks, as the callers give it. `since` (seconds) is read against `now`. */
export interface JobFilterFields {
  queue?: string | null;
  status?: string | null;
  since?: number | null;
  from?: Date | null;
  to?: Date | null;
  /** Text searched case-insensitively in the data as JSON text and the error's message and name. */
  q?: string | null;
  /** Jobs carrying every one of these tags. */
  tags?: string[] | null;
  /** Jobs of this concurrency key. */
  key?: string | null;
  /** Jobs added under this queue `version`. */
  version?: string | null;
}

/** The parameters of JOB_FILTER; null leaves a field out. */
export type JobFilterParams = {
  queue: string | null;
  status: string | null;
  from: Date | null;
  to: Date | null;
  /** An ILIKE pattern (the text with its wildcards escaped), or null. */
  pattern: string | null;
  tags: string[] | null;
  key: string | null;
  version: string | null;
};

/** A filter that matches every job: the per-job actions pass it. */
export const ANY_JOB: JobFilterParams = {
  queue: null,
  status: null,
  from: null,
  to: null,
  pattern: null,
  tags: null,
  key: null,
  version: null,
};

/** The conditions of a filter on the row `j`, with the parameters of jobFilterParams. */
export const JOB_FILTER = /* sql */ `(@queue::text is null or j.queue = @queue::text)
     and (@status::text is null or j.status = @status::text)
     and (@from::timestamptz is null or j.created_at >= @from::timestamptz)
     and (@to::timestamptz is null or j.created_at < @to::timestamptz)
     and (@tags::text[] is null or j.tags @> @tags::text[])
     and (@key::text is null or j.key = @key::text)
     and (@version::text is null or j.version = @version::text)
     and (@pattern::text is null
          or j.data::text ilike @pattern::text
          or j.error ->> 'message' ilike @pattern::text
          or j.error ->> 'name' ilike @pattern::text)`;

/** Turn a filter into the parameters of JOB_FILTER. */
export function jobFilterParams(filter: JobFilterFields, now = Date.now()): JobFilterParams {
  const since = filter.since ?? null;
  return {
    queue: filter.queue ?? null,
    status: filter.status ?? null,
    from: since !== null ? new Date(now - since * 1000) : (filter.from ?? null),
    to: since !== null ? null : (filter.to ?? null),
    pattern: filter.q == null ? null : `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
    tags: filter.tags ?? null,
    key: filter.key ?? null,
    version: filter.version ?? null,
  };
}

/**
 * The walk of jobs_queue_status_idx both job lists use: one per (queue, status) pair of
 * @queues and @statuses over the ids @floor ≤ id < `upper`, each stopping after @limit rows,
 * merged in id order. The status and the id bound are one row comparison, not `status =`
 * plus `id <`: given the equality the planner, which cannot know how rare a status is, may
 * prefer walking the primary key and filtering, which reads most of the table for a rare one.
 */
export const PAIRS_WALK = (columns: string, order: 'asc' | 'desc', upper: string) => /* sql */ `
  select page.* from unnest(@queues::text[]) as q(name)
   cross join unnest(@statuses::text[]) as s(status)
   cross join lateral (
     select ${columns}
       from /*schema*/jobs j
      where j.queue = q.name
        and (j.status, j.id) < (s.status, ${upper}::bigint)
        and (j.status, j.id) >= (s.status, @floor::bigint)
        and ${JOB_FILTER}
      order by j.status ${order}, j.id ${order}
      limit @limit
   ) page
   order by page.id::bigint ${order}
   limit @limit`;
