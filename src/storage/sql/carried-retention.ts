import type { FrozenRetention } from '../../model/job.js';
import { defineQuery } from './define-query.js';

/** One set of windows that some of a queue's newest jobs carry, and how many of them do. */
export interface CarriedRetentionRow {
  queue: string;
  retention: FrozenRetention;
  jobs: number;
}

/**
 * The windows frozen on each queue's newest `limit` jobs, grouped: what the jobs really carry,
 * beside the queue's stored policy. Bounded: per queue and status, the newest `limit` rows
 * by the (queue, status, id) index, then the newest `limit` of those.
 */
export const carriedRetention = defineQuery<{ statuses: string[]; limit: number }, CarriedRetentionRow>(
  'carriedRetention',
  /* sql */ `
  select q.name as queue, c.retention, c.jobs
    from /*schema*/queues q
   cross join lateral (
     select newest.retention, count(*)::int as jobs
       from (
         select j.id, j.retention
           from unnest(@statuses::text[]) as s(status)
          cross join lateral (
            select id, retention from /*schema*/jobs
             where queue = q.name and status = s.status
             order by id desc
             limit @limit
          ) j
          order by j.id desc
          limit @limit
       ) newest
      group by newest.retention
   ) c
   order by q.name, c.jobs desc, c.retention::text`,
);
